//! The official API's JSON document form (`JSONDocument`) and its conversion
//! to and from GitBook-flavoured markdown, Quire's canonical page form.
//!
//! [`markdown_to_document`] reads markdown (front matter aside) into blocks,
//! inlines and marked text; [`document_to_markdown`] writes a document back
//! as canonical markdown and rejects what is not a document.
//!
//! GitBook blocks (`{% hint %}`, `{% tabs %}`, `{% code %}`,
//! `{% content-ref %}`, `{% embed %}` and `$$` math) are recognised when
//! their tags start a line at the top level or inside another GitBook block;
//! inside lists and quotes their text stays text.
//!
//! The schema limits what each container holds (a hint holds no code block,
//! a quote no image…). A block markdown puts where the schema forbids it is
//! rewritten into allowed blocks that keep its content (see [`fit`]).

use std::cmp::Reverse;
use std::collections::HashSet;
use std::fmt;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value, json};

use crate::markdown::split_front_matter;

/// Why a value is not a document we can convert; the message names the
/// problem and where it is (`nodes[2].nodes[0]: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError(pub String);

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DocumentError {}

type Result<T> = std::result::Result<T, DocumentError>;

fn invalid(path: &str, problem: impl fmt::Display) -> DocumentError {
    DocumentError(format!("{path}: {problem}"))
}

/// The JSON document for a page's markdown.
pub fn markdown_to_document(markdown: &str) -> Value {
    let (_, body) = split_front_matter(markdown);
    let mut ids = Ids::default();
    let blocks = segment_blocks(&segments(body), &mut ids);
    json!({
        "object": "document",
        "data": { "schemaVersion": 1 },
        "nodes": fit(blocks, Place::Top),
    })
}

/// Canonical markdown for a JSON document, or what makes it unacceptable.
pub fn document_to_markdown(doc: &Value) -> Result<String> {
    if !doc.is_object() {
        return Err(DocumentError("a document must be a JSON object".into()));
    }
    if doc.get("object").and_then(Value::as_str) != Some("document") {
        return Err(invalid("object", "must be \"document\""));
    }
    if doc.get("data").is_some_and(|d| !d.is_object()) {
        return Err(invalid("data", "must be an object"));
    }
    let nodes = doc
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("nodes", "must be an array of blocks"))?;
    let markdown = blocks_md(nodes, "nodes", Within::Tags)?;
    Ok(if markdown.is_empty() { markdown } else { markdown + "\n" })
}

// ---------------------------------------------------------------------------
// Nodes and text
// ---------------------------------------------------------------------------

fn block(kind: &str, data: Value, nodes: Vec<Value>) -> Value {
    json!({ "object": "block", "type": kind, "isVoid": false, "data": data, "nodes": nodes })
}

fn void_block(kind: &str, data: Value) -> Value {
    json!({ "object": "block", "type": kind, "isVoid": true, "data": data })
}

fn text_node(leaves: &[Leaf]) -> Value {
    let leaves: Vec<Value> = leaves.iter().map(Leaf::to_json).collect();
    json!({ "object": "text", "leaves": leaves })
}

/// A paragraph; neighbouring text nodes merge (as they do when read back)
/// and an empty paragraph still holds an (empty) text node.
fn paragraph(nodes: Vec<Value>) -> Value {
    let mut merged: Vec<Value> = Vec::new();
    let mut leaves: Vec<Leaf> = Vec::new();
    let flush = |leaves: &mut Vec<Leaf>, merged: &mut Vec<Value>| {
        let normalized = normalize_leaves(std::mem::take(leaves));
        if !normalized.is_empty() {
            merged.push(text_node(&normalized));
        }
    };
    for node in nodes {
        match leaves_of(&node, "") {
            Ok(text) => leaves.extend(text),
            Err(_) => {
                flush(&mut leaves, &mut merged);
                merged.push(node);
            }
        }
    }
    flush(&mut leaves, &mut merged);
    if merged.is_empty() {
        merged.push(text_node(&[Leaf::plain("")]));
    }
    block("paragraph", json!({}), merged)
}

fn link(reference: Value, nodes: Vec<Value>) -> Value {
    json!({ "object": "inline", "type": "link", "isVoid": false, "data": { "ref": reference }, "nodes": nodes })
}

fn node_type(node: &Value) -> &str {
    node.get("type").and_then(Value::as_str).unwrap_or("")
}

fn child_nodes(node: &Value) -> &[Value] {
    node.get("nodes").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn data_str<'a>(node: &'a Value, key: &str) -> Option<&'a str> {
    node.get("data")?.get(key)?.as_str()
}

/// The marks text may carry; markdown writes all but `code` as delimiters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Marks {
    bold: bool,
    italic: bool,
    strikethrough: bool,
    code: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Delimited {
    Bold,
    Italic,
    Strikethrough,
}

impl Delimited {
    const ALL: [Delimited; 3] = [Delimited::Bold, Delimited::Italic, Delimited::Strikethrough];

    fn delimiter(self) -> &'static str {
        match self {
            Delimited::Bold => "**",
            Delimited::Italic => "*",
            Delimited::Strikethrough => "~~",
        }
    }
}

impl Marks {
    fn has(self, mark: Delimited) -> bool {
        match mark {
            Delimited::Bold => self.bold,
            Delimited::Italic => self.italic,
            Delimited::Strikethrough => self.strikethrough,
        }
    }

    fn to_json(self) -> Vec<Value> {
        [
            (self.bold, "bold"),
            (self.italic, "italic"),
            (self.strikethrough, "strikethrough"),
            (self.code, "code"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, kind)| json!({ "object": "mark", "type": kind }))
        .collect()
    }

    /// Marks of a leaf; types markdown cannot write (colour, keyboard…) are
    /// left out.
    fn from_json(marks: Option<&Value>, path: &str) -> Result<Marks> {
        let mut out = Marks::default();
        let Some(marks) = marks else {
            return Ok(out);
        };
        let list = marks
            .as_array()
            .ok_or_else(|| invalid(path, "`marks` must be an array"))?;
        for mark in list {
            let kind = mark
                .get("type")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(path, "a mark needs a string `type`"))?;
            match kind {
                "bold" => out.bold = true,
                "italic" => out.italic = true,
                "strikethrough" => out.strikethrough = true,
                "code" => out.code = true,
                _ => {}
            }
        }
        Ok(out)
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Leaf {
    text: String,
    marks: Marks,
}

impl Leaf {
    fn plain(text: &str) -> Leaf {
        Leaf {
            text: text.to_owned(),
            marks: Marks::default(),
        }
    }

    fn to_json(&self) -> Value {
        json!({ "object": "leaf", "text": self.text, "marks": self.marks.to_json() })
    }
}

/// Leaves as markdown can express them: whitespace at the edges of marked
/// (non-code) text moves outside the marks, neighbours with the same marks
/// merge and empty leaves go. Both directions use it, so they agree.
fn normalize_leaves(leaves: Vec<Leaf>) -> Vec<Leaf> {
    let mut out: Vec<Leaf> = Vec::new();
    for piece in leaves.into_iter().flat_map(split_edges) {
        if piece.text.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.marks == piece.marks => last.text.push_str(&piece.text),
            _ => out.push(piece),
        }
    }
    out
}

fn split_edges(leaf: Leaf) -> Vec<Leaf> {
    if leaf.marks.code || leaf.marks == Marks::default() {
        return vec![leaf];
    }
    let core = leaf.text.trim();
    if core.is_empty() {
        return vec![Leaf::plain(&leaf.text)];
    }
    let start = leaf.text.len() - leaf.text.trim_start().len();
    let end = start + core.len();
    vec![
        Leaf::plain(&leaf.text[..start]),
        Leaf {
            text: core.to_owned(),
            marks: leaf.marks,
        },
        Leaf::plain(&leaf.text[end..]),
    ]
}

/// The text of inline nodes, marks and links aside.
fn plain_text(nodes: &[Value]) -> String {
    let mut out = String::new();
    for node in nodes {
        if let Some(leaves) = node.get("leaves").and_then(Value::as_array) {
            for leaf in leaves {
                out.push_str(leaf.get("text").and_then(Value::as_str).unwrap_or(""));
            }
        }
        out.push_str(&plain_text(child_nodes(node)));
    }
    out
}

// ---------------------------------------------------------------------------
// References
// ---------------------------------------------------------------------------

/// The content reference a markdown link target stands for.
fn ref_from_url(url: &str) -> Value {
    if let Some(rest) = url.strip_prefix("/pages/").filter(|r| is_id(r.split('#').next())) {
        return match rest.split_once('#') {
            Some((page, anchor)) if !anchor.is_empty() => {
                json!({ "kind": "anchor", "anchor": anchor, "page": page })
            }
            Some((page, _)) => json!({ "kind": "page", "page": page }),
            None => json!({ "kind": "page", "page": rest }),
        };
    }
    if let Some(anchor) = url.strip_prefix('#').filter(|a| !a.is_empty()) {
        return json!({ "kind": "anchor", "anchor": anchor });
    }
    image_ref(url)
}

/// An image source: a file of the space (`/files/<id>`) or a URL.
fn image_ref(url: &str) -> Value {
    match url.strip_prefix("/files/").filter(|id| is_id(Some(id))) {
        Some(id) => json!({ "kind": "file", "file": id }),
        None => json!({ "kind": "url", "url": url }),
    }
}

fn is_id(id: Option<&str>) -> bool {
    id.is_some_and(|id| !id.is_empty() && !id.contains(['/', '?', '#', ' ']))
}

/// The markdown link target of a content reference.
fn ref_to_url(reference: Option<&Value>, path: &str) -> Result<String> {
    let reference = reference.ok_or_else(|| invalid(path, "`data.ref` is missing"))?;
    let field = |key: &str| {
        reference
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| invalid(path, format!("the reference needs a string `{key}`")))
    };
    let kind = field("kind")?;
    Ok(match kind {
        "url" => field("url")?.to_owned(),
        "page" => format!("/pages/{}", field("page")?),
        "file" => format!("/files/{}", field("file")?),
        "anchor" => match reference.get("page").and_then(Value::as_str) {
            Some(page) => format!("/pages/{page}#{}", field("anchor")?),
            None => format!("#{}", field("anchor")?),
        },
        other => return Err(invalid(path, format!("unsupported reference kind `{other}`"))),
    })
}

/// Like [`ref_to_url`], for image sources (files and URLs only).
fn image_url(reference: Option<&Value>, path: &str) -> Result<String> {
    match reference.and_then(|r| r.get("kind")).and_then(Value::as_str) {
        Some("url" | "file") => ref_to_url(reference, path),
        _ => Err(invalid(path, "an image reference must be a `url` or a `file`")),
    }
}

// ---------------------------------------------------------------------------
// Markdown to document: GitBook tags
// ---------------------------------------------------------------------------

/// Markdown split at GitBook blocks.
#[derive(Debug)]
enum Segment {
    Markdown(String),
    Hint {
        style: String,
        body: Vec<Segment>,
    },
    Tabs(Vec<(String, Vec<Segment>)>),
    /// `{% code %}` attributes and the markdown they wrap.
    Code(Vec<(String, String)>, String),
    ContentRef(String),
    Embed(String),
    Math(String),
    /// A tag we do not know: its text becomes a paragraph.
    Raw(String),
}

/// A line that is exactly one `{% name key="value" … %}` tag.
struct TagLine {
    name: String,
    attrs: Vec<(String, String)>,
}

impl TagLine {
    fn parse(line: &str) -> Option<TagLine> {
        let inner = line.trim_end().strip_prefix("{%")?.strip_suffix("%}")?;
        if inner.contains("%}") {
            return None;
        }
        let inner = inner.trim();
        let (name, rest) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        if name.is_empty() {
            return None;
        }
        Some(TagLine {
            name: name.to_owned(),
            attrs: parse_attrs(rest),
        })
    }

    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// `key="value"` pairs (single, double or no quotes; `\` escapes inside
/// quotes). Parsing stops at the first thing that is not a pair.
fn parse_attrs(mut rest: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    loop {
        rest = rest.trim_start();
        let Some((key, after)) = rest.split_once('=') else {
            return attrs;
        };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return attrs;
        }
        let (value, after) = attr_value(after.trim_start());
        attrs.push((key.to_owned(), value));
        rest = after;
    }
}

fn attr_value(s: &str) -> (String, &str) {
    let Some(quote) = s.chars().next().filter(|c| *c == '"' || *c == '\'') else {
        let end = s.find(char::is_whitespace).unwrap_or(s.len());
        return (s[..end].to_owned(), &s[end..]);
    };
    let mut value = String::new();
    let mut chars = s[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => value.extend(chars.next().map(|(_, c)| c)),
            c if c == quote => return (value, &s[1 + i + 1..]),
            c => value.push(c),
        }
    }
    (value, "")
}

fn quote_attr(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Follows fenced code so that tags inside code stay code: true when `line`
/// opens, continues or closes a fence.
fn in_fence(fence: &mut Option<(char, usize)>, line: &str) -> bool {
    fn run(t: &str) -> Option<(char, usize)> {
        let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let n = t.chars().take_while(|x| *x == c).count();
        (n >= 3).then_some((c, n))
    }
    let t = line.trim_start();
    match *fence {
        Some((c, n)) => {
            if run(t).is_some_and(|(c2, n2)| c2 == c && n2 >= n && t[n2..].trim().is_empty()) {
                *fence = None;
            }
            true
        }
        None => match run(t) {
            Some((c, n)) if !(c == '`' && t[n..].contains('`')) => {
                *fence = Some((c, n));
                true
            }
            _ => false,
        },
    }
}

/// The line closing the tag opened on `lines[start]`, nested tags of the
/// same name counted.
fn find_end(lines: &[&str], start: usize, name: &str) -> Option<usize> {
    let end_name = format!("end{name}");
    let mut depth = 1;
    let mut fence = None;
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        if in_fence(&mut fence, line) {
            continue;
        }
        match TagLine::parse(line) {
            Some(tag) if tag.name == name => depth += 1,
            Some(tag) if tag.name == end_name => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

fn segments(src: &str) -> Vec<Segment> {
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    let mut out = Vec::new();
    let mut chunk = String::new();
    let mut fence = None;
    let mut i = 0;
    while i < lines.len() {
        // `in_fence` runs first on every line: it follows the fences.
        if !in_fence(&mut fence, lines[i])
            && let Some((segment, next)) = special_segment(&lines, i)
        {
            flush_markdown(&mut chunk, &mut out);
            out.push(segment);
            i = next;
            continue;
        }
        chunk.push_str(lines[i]);
        i += 1;
    }
    flush_markdown(&mut chunk, &mut out);
    out
}

fn flush_markdown(chunk: &mut String, out: &mut Vec<Segment>) {
    if !chunk.trim().is_empty() {
        out.push(Segment::Markdown(std::mem::take(chunk)));
    }
    chunk.clear();
}

/// A GitBook block starting at `lines[i]`, and the line after it.
fn special_segment(lines: &[&str], i: usize) -> Option<(Segment, usize)> {
    if let Some(found) = math_segment(lines, i) {
        return Some(found);
    }
    let line = lines[i].trim_end();
    let tag = TagLine::parse(line)?;
    let paired = match tag.name.as_str() {
        "hint" | "tabs" | "code" => true,
        "content-ref" => tag.attr("url").is_some(),
        "embed" => {
            if let Some(url) = tag.attr("url") {
                return Some((Segment::Embed(url.to_owned()), i + 1));
            }
            false
        }
        _ => false,
    };
    if let Some(end) = paired.then(|| find_end(lines, i, &tag.name)).flatten() {
        let body = lines[i + 1..end].concat();
        return Some((paired_segment(tag, body), end + 1));
    }
    Some((Segment::Raw(line.to_owned()), i + 1))
}

fn paired_segment(tag: TagLine, body: String) -> Segment {
    match tag.name.as_str() {
        "hint" => Segment::Hint {
            style: tag.attr("style").unwrap_or("info").to_owned(),
            body: segments(&body),
        },
        "tabs" => Segment::Tabs(tab_segments(&body)),
        "code" => Segment::Code(tag.attrs, body),
        _ => Segment::ContentRef(tag.attr("url").unwrap_or_default().to_owned()),
    }
}

/// `$$` on its own line up to the next `$$` line, or `$$formula$$` alone on
/// a line.
fn math_segment(lines: &[&str], i: usize) -> Option<(Segment, usize)> {
    let line = lines[i].trim_end();
    if line == "$$" {
        let end = (i + 1..lines.len()).find(|j| lines[*j].trim_end() == "$$")?;
        let formula = lines[i + 1..end].concat();
        return Some((Segment::Math(formula.trim_end().to_owned()), end + 1));
    }
    let inner = line.strip_prefix("$$")?.strip_suffix("$$")?;
    (!inner.trim().is_empty() && !inner.contains("$$")).then(|| (Segment::Math(inner.trim().to_owned()), i + 1))
}

/// The `{% tab %}` items of a `{% tabs %}` body. Other text between them is
/// kept as an untitled tab.
fn tab_segments(body: &str) -> Vec<(String, Vec<Segment>)> {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let mut tabs = Vec::new();
    let mut stray = String::new();
    let mut fence = None;
    let mut i = 0;
    while i < lines.len() {
        let tab = (!in_fence(&mut fence, lines[i]))
            .then(|| TagLine::parse(lines[i]))
            .flatten()
            .filter(|tag| tag.name == "tab");
        if let Some((tag, end)) = tab.and_then(|tag| find_end(&lines, i, "tab").map(|end| (tag, end))) {
            push_stray_tab(&mut stray, &mut tabs);
            let title = tag.attr("title").unwrap_or_default().to_owned();
            tabs.push((title, segments(&lines[i + 1..end].concat())));
            i = end + 1;
            continue;
        }
        stray.push_str(lines[i]);
        i += 1;
    }
    push_stray_tab(&mut stray, &mut tabs);
    tabs
}

fn push_stray_tab(stray: &mut String, tabs: &mut Vec<(String, Vec<Segment>)>) {
    if !stray.trim().is_empty() {
        tabs.push((String::new(), segments(stray)));
    }
    stray.clear();
}

/// Heading and tab ids, unique within a document.
#[derive(Default)]
struct Ids {
    headings: HashSet<String>,
    tabs: usize,
}

impl Ids {
    fn heading(&mut self, text: &str) -> String {
        let base = anchor_id(text);
        let mut id = base.clone();
        let mut n = 1;
        while !self.headings.insert(id.clone()) {
            id = format!("{base}-{n}");
            n += 1;
        }
        id
    }

    fn tab(&mut self) -> String {
        self.tabs += 1;
        format!("tab-{}", self.tabs)
    }
}

/// A heading id matching the schema's `^[-a-z0-9.+_]+$`: lower-case ASCII
/// letters and digits, words joined by `-`.
fn anchor_id(text: &str) -> String {
    let mut id = String::new();
    let mut dash = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            if dash && !id.is_empty() {
                id.push('-');
            }
            id.push(c);
            dash = false;
        } else {
            dash = true;
        }
    }
    if id.is_empty() { "heading".to_owned() } else { id }
}

fn segment_blocks(segments: &[Segment], ids: &mut Ids) -> Vec<Value> {
    let mut blocks = Vec::new();
    for segment in segments {
        match segment {
            Segment::Markdown(src) => blocks.extend(parse_markdown(src, ids)),
            Segment::Hint { style, body } => {
                let style = match style.as_str() {
                    s @ ("info" | "warning" | "danger" | "success") => s,
                    _ => "info",
                };
                blocks.push(block("hint", json!({ "style": style }), segment_blocks(body, ids)));
            }
            Segment::Tabs(tabs) => {
                let items = tabs
                    .iter()
                    .map(|(title, body)| {
                        let mut item = block("tabs-item", json!({ "title": title }), segment_blocks(body, ids));
                        item["meta"] = json!({ "id": ids.tab() });
                        item
                    })
                    .collect();
                blocks.push(block("tabs", json!({}), items));
            }
            Segment::Code(attrs, body) => {
                let mut inner = parse_markdown(body, ids);
                for code in inner.iter_mut().filter(|b| node_type(b) == "code") {
                    apply_code_attrs(code, attrs);
                }
                blocks.extend(inner);
            }
            Segment::ContentRef(url) => {
                blocks.push(void_block("content-ref", json!({ "ref": ref_from_url(url) })));
            }
            Segment::Embed(url) => blocks.push(void_block("embed", json!({ "url": url }))),
            Segment::Math(formula) => blocks.push(void_block("math", json!({ "formula": formula }))),
            Segment::Raw(line) => blocks.push(paragraph(vec![text_node(&[Leaf::plain(line)])])),
        }
    }
    blocks
}

/// `{% code %}` attributes the document keeps: title, overflow, lineNumbers.
fn apply_code_attrs(code: &mut Value, attrs: &[(String, String)]) {
    let Some(data) = code.get_mut("data").and_then(Value::as_object_mut) else {
        return;
    };
    for (key, value) in attrs {
        match (key.as_str(), value.as_str()) {
            ("title", title) => data.insert("title".into(), json!(title)),
            ("overflow", o @ ("wrap" | "scroll")) => data.insert("overflow".into(), json!(o)),
            ("lineNumbers", n @ ("true" | "false")) => data.insert("lineNumbers".into(), json!(n == "true")),
            _ => None,
        };
    }
}

// ---------------------------------------------------------------------------
// Markdown to document: CommonMark
// ---------------------------------------------------------------------------

fn parse_markdown(src: &str, ids: &mut Ids) -> Vec<Value> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut builder = Builder {
        ids,
        stack: vec![Frame::Root(Vec::new())],
    };
    for event in Parser::new_ext(src, options) {
        builder.event(event);
    }
    builder.finish()
}

/// Inline content being read, with the links still open.
struct Inlines {
    /// `frames[0]` is the block's own content, later ones open links.
    frames: Vec<InlineFrame>,
    bold: u32,
    italic: u32,
    strikethrough: u32,
    image: Option<PendingImage>,
}

#[derive(Default)]
struct InlineFrame {
    link: Option<Value>,
    nodes: Vec<Value>,
    leaves: Vec<Leaf>,
}

struct PendingImage {
    url: String,
    title: String,
    alt: String,
}

impl InlineFrame {
    fn flush(&mut self) {
        let leaves = normalize_leaves(std::mem::take(&mut self.leaves));
        if !leaves.is_empty() {
            self.nodes.push(text_node(&leaves));
        }
    }
}

impl Inlines {
    fn new() -> Inlines {
        Inlines {
            frames: vec![InlineFrame::default()],
            bold: 0,
            italic: 0,
            strikethrough: 0,
            image: None,
        }
    }

    fn top(&mut self) -> &mut InlineFrame {
        if self.frames.is_empty() {
            self.frames.push(InlineFrame::default());
        }
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn marks(&self, code: bool) -> Marks {
        Marks {
            bold: self.bold > 0,
            italic: self.italic > 0,
            strikethrough: self.strikethrough > 0,
            code,
        }
    }

    fn text(&mut self, text: &str, code: bool) {
        if let Some(image) = &mut self.image {
            image.alt.push_str(text);
            return;
        }
        let marks = self.marks(code);
        let top = self.top();
        match top.leaves.last_mut() {
            Some(last) if last.marks == marks => last.text.push_str(text),
            _ => top.leaves.push(Leaf {
                text: text.to_owned(),
                marks,
            }),
        }
    }

    fn push_node(&mut self, node: Value) {
        let top = self.top();
        top.flush();
        top.nodes.push(node);
    }

    fn start_link(&mut self, url: &str) {
        self.frames.push(InlineFrame {
            link: Some(ref_from_url(url)),
            ..InlineFrame::default()
        });
    }

    fn end_link(&mut self) {
        if self.frames.len() < 2 {
            return;
        }
        if let Some(mut frame) = self.frames.pop() {
            frame.flush();
            let reference = frame.link.unwrap_or_else(|| ref_from_url(""));
            self.push_node(link(reference, frame.nodes));
        }
    }

    fn end_image(&mut self) {
        if let Some(image) = self.image.take() {
            let mut data = json!({ "ref": image_ref(&image.url) });
            if !image.alt.is_empty() {
                data["alt"] = json!(image.alt);
            }
            if !image.title.is_empty() {
                data["caption"] = json!(image.title);
            }
            self.push_node(json!({ "object": "inline", "type": "inline-image", "isVoid": true, "data": data }));
        }
    }

    fn finish(mut self) -> Vec<Value> {
        while self.frames.len() > 1 {
            self.end_link();
        }
        let mut frame = self.frames.pop().unwrap_or_default();
        frame.flush();
        frame.nodes
    }
}

enum InlineKind {
    Paragraph { implicit: bool },
    Heading(u8),
    Cell,
}

enum Frame {
    Root(Vec<Value>),
    Quote(Vec<Value>),
    /// A list item's blocks and, for a task item, whether it is checked.
    Item(Vec<Value>, Option<bool>),
    List {
        start: Option<u64>,
        items: Vec<(Vec<Value>, Option<bool>)>,
    },
    Inline(InlineKind, Inlines),
    Code {
        syntax: String,
        text: String,
    },
    Html(String),
    Table {
        aligns: Vec<Alignment>,
        rows: Vec<Vec<Vec<Value>>>,
        row: Vec<Vec<Value>>,
    },
}

struct Builder<'a> {
    ids: &'a mut Ids,
    stack: Vec<Frame>,
}

impl Builder<'_> {
    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(end) => self.end(end),
            Event::Text(text) => self.text(&text),
            Event::Code(text) => self.inlines().text(&text, true),
            Event::Html(html) => match self.stack.last_mut() {
                Some(Frame::Html(buf)) => buf.push_str(&html),
                _ => self.inlines().text(&html, false),
            },
            Event::InlineHtml(text)
            | Event::InlineMath(text)
            | Event::DisplayMath(text)
            | Event::FootnoteReference(text) => self.inlines().text(&text, false),
            Event::SoftBreak => self.inlines().text(" ", false),
            Event::HardBreak => self.inlines().text("\n", false),
            Event::Rule => self.push_block(void_block("divider", json!({}))),
            Event::TaskListMarker(checked) => {
                // In a loose list the marker comes inside the paragraph.
                let item = self.stack.iter_mut().rev().find_map(|frame| match frame {
                    Frame::Item(_, task) => Some(task),
                    _ => None,
                });
                if let Some(task) = item {
                    *task = Some(checked);
                }
            }
        }
    }

    fn text(&mut self, text: &str) {
        match self.stack.last_mut() {
            Some(Frame::Code { text: buf, .. } | Frame::Html(buf)) => buf.push_str(text),
            _ => self.inlines().text(text, false),
        }
    }

    /// The inline content being read; text straight in a container (a
    /// tight list item) opens a paragraph.
    fn inlines(&mut self) -> &mut Inlines {
        if !matches!(self.stack.last(), Some(Frame::Inline(..))) {
            self.stack
                .push(Frame::Inline(InlineKind::Paragraph { implicit: true }, Inlines::new()));
        }
        match self.stack.last_mut() {
            Some(Frame::Inline(_, inlines)) => inlines,
            _ => unreachable!("an inline frame was just pushed"),
        }
    }

    fn start(&mut self, tag: Tag) {
        if is_block_tag(&tag) {
            self.close_implicit_paragraph();
        }
        let frame = match tag {
            Tag::Paragraph => Frame::Inline(InlineKind::Paragraph { implicit: false }, Inlines::new()),
            Tag::Heading { level, .. } => Frame::Inline(InlineKind::Heading(level as u8), Inlines::new()),
            Tag::BlockQuote(_) => Frame::Quote(Vec::new()),
            Tag::CodeBlock(kind) => Frame::Code {
                syntax: match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or("").to_owned(),
                    CodeBlockKind::Indented => String::new(),
                },
                text: String::new(),
            },
            Tag::HtmlBlock => Frame::Html(String::new()),
            Tag::List(start) => Frame::List {
                start,
                items: Vec::new(),
            },
            Tag::Item => Frame::Item(Vec::new(), None),
            Tag::Table(aligns) => Frame::Table {
                aligns,
                rows: Vec::new(),
                row: Vec::new(),
            },
            Tag::TableCell => Frame::Inline(InlineKind::Cell, Inlines::new()),
            Tag::Emphasis => {
                self.inlines().italic += 1;
                return;
            }
            Tag::Strong => {
                self.inlines().bold += 1;
                return;
            }
            Tag::Strikethrough => {
                self.inlines().strikethrough += 1;
                return;
            }
            Tag::Link { dest_url, .. } => {
                self.inlines().start_link(&dest_url);
                return;
            }
            Tag::Image { dest_url, title, .. } => {
                self.inlines().image = Some(PendingImage {
                    url: dest_url.to_string(),
                    title: title.to_string(),
                    alt: String::new(),
                });
                return;
            }
            _ => return,
        };
        self.stack.push(frame);
    }

    fn end(&mut self, end: TagEnd) {
        match end {
            TagEnd::Emphasis => {
                let inlines = self.inlines();
                inlines.italic = inlines.italic.saturating_sub(1);
            }
            TagEnd::Strong => {
                let inlines = self.inlines();
                inlines.bold = inlines.bold.saturating_sub(1);
            }
            TagEnd::Strikethrough => {
                let inlines = self.inlines();
                inlines.strikethrough = inlines.strikethrough.saturating_sub(1);
            }
            TagEnd::Link => self.inlines().end_link(),
            TagEnd::Image => self.inlines().end_image(),
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(Frame::Table { rows, row, .. }) = self.stack.last_mut() {
                    rows.push(std::mem::take(row));
                }
            }
            TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::HtmlBlock
            | TagEnd::List(_)
            | TagEnd::Item
            | TagEnd::Table
            | TagEnd::TableCell => {
                if !matches!(end, TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::TableCell) {
                    self.close_implicit_paragraph();
                }
                self.close_frame();
            }
            _ => {}
        }
    }

    fn close_implicit_paragraph(&mut self) {
        if matches!(
            self.stack.last(),
            Some(Frame::Inline(InlineKind::Paragraph { implicit: true }, _))
        ) {
            self.close_frame();
        }
    }

    /// Pops the innermost frame and hands what it built to its parent.
    fn close_frame(&mut self) {
        if self.stack.len() < 2 {
            return;
        }
        let Some(frame) = self.stack.pop() else {
            return;
        };
        match frame {
            Frame::Inline(InlineKind::Cell, inlines) => {
                if let Some(Frame::Table { row, .. }) = self.stack.last_mut() {
                    row.push(inlines.finish());
                }
            }
            Frame::Inline(InlineKind::Paragraph { .. }, inlines) => {
                let nodes = inlines.finish();
                self.push_block(images_block(&nodes).unwrap_or_else(|| paragraph(nodes)));
            }
            Frame::Inline(InlineKind::Heading(level), inlines) => {
                let heading = self.heading(level, inlines.finish());
                self.push_block(heading);
            }
            Frame::Item(blocks, checked) => {
                if let Some(Frame::List { items, .. }) = self.stack.last_mut() {
                    items.push((blocks, checked));
                }
            }
            Frame::Quote(blocks) => self.push_block(block("blockquote", json!({}), blocks)),
            // The root is never popped here (see the guard above).
            Frame::Root(blocks) => self.stack.push(Frame::Root(blocks)),
            Frame::List { start, items } => self.push_block(list_block(start, items)),
            Frame::Code { syntax, text } => self.push_block(code_block(&syntax, &text)),
            Frame::Html(html) => {
                let text = html.trim_end_matches('\n');
                self.push_block(paragraph(vec![text_node(&[Leaf::plain(text)])]));
            }
            Frame::Table { aligns, rows, .. } => self.push_block(table_block(&aligns, rows)),
        }
    }

    fn push_block(&mut self, node: Value) {
        self.close_implicit_paragraph();
        match self.stack.last_mut() {
            Some(Frame::Root(blocks) | Frame::Quote(blocks) | Frame::Item(blocks, _)) => blocks.push(node),
            _ => {
                // Not expected from the parser; keep the block at the root
                // rather than lose it.
                if let Some(Frame::Root(blocks)) = self.stack.first_mut() {
                    blocks.push(node);
                }
            }
        }
    }

    fn heading(&mut self, level: u8, nodes: Vec<Value>) -> Value {
        let id = self.ids.heading(&plain_text(&nodes));
        let kind = format!("heading-{}", level.clamp(1, 3));
        let mut heading = block(&kind, json!({ "id": id }), nodes);
        heading["meta"] = json!({ "id": id });
        heading
    }

    fn finish(mut self) -> Vec<Value> {
        while self.stack.len() > 1 {
            self.close_frame();
        }
        match self.stack.pop() {
            Some(Frame::Root(blocks)) => blocks,
            _ => Vec::new(),
        }
    }
}

fn is_block_tag(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::List(_)
            | Tag::Table(_)
    )
}

/// A paragraph of images only (whitespace aside) is an `images` block.
fn images_block(nodes: &[Value]) -> Option<Value> {
    let is_image = |n: &Value| node_type(n) == "inline-image";
    let is_blank =
        |n: &Value| n.get("object") == Some(&json!("text")) && plain_text(std::slice::from_ref(n)).trim().is_empty();
    if !nodes.iter().any(is_image) || !nodes.iter().all(|n| is_image(n) || is_blank(n)) {
        return None;
    }
    let images = nodes.iter().filter(|n| is_image(n)).map(image_block).collect();
    Some(block("images", json!({}), images))
}

fn image_block(inline: &Value) -> Value {
    let data = inline.get("data");
    let mut image_data = json!({ "ref": data.and_then(|d| d.get("ref")).cloned().unwrap_or(Value::Null) });
    if let Some(alt) = data.and_then(|d| d.get("alt")) {
        image_data["alt"] = alt.clone();
    }
    let caption = data
        .and_then(|d| d.get("caption"))
        .and_then(Value::as_str)
        .unwrap_or("");
    json!({
        "object": "block",
        "type": "image",
        "isVoid": true,
        "data": image_data,
        "fragments": [{
            "object": "fragment",
            "fragment": "caption",
            "nodes": [paragraph(vec![text_node(&[Leaf::plain(caption)])])],
        }],
    })
}

fn list_block(start: Option<u64>, items: Vec<(Vec<Value>, Option<bool>)>) -> Value {
    let tasks = items.iter().any(|(_, checked)| checked.is_some());
    let items = items
        .into_iter()
        .map(|(nodes, checked)| {
            let data = if tasks {
                json!({ "checked": checked.unwrap_or(false) })
            } else {
                json!({})
            };
            block("list-item", data, nodes)
        })
        .collect();
    match start {
        _ if tasks => block("list-tasks", json!({}), items),
        Some(start) => block("list-ordered", json!({ "start": start }), items),
        None => block("list-unordered", json!({}), items),
    }
}

fn code_block(syntax: &str, text: &str) -> Value {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines = body
        .split('\n')
        .map(|line| {
            block(
                "code-line",
                json!({ "highlighted": false }),
                vec![text_node(&[Leaf::plain(line)])],
            )
        })
        .collect();
    let data = if syntax.is_empty() {
        json!({})
    } else {
        json!({ "syntax": syntax })
    };
    block("code", data, lines)
}

/// A GFM table as the schema's grid table: one text column definition per
/// header cell (its plain text is the column title) and one record per row
/// whose values name the fragments holding the cells' paragraphs.
fn table_block(aligns: &[Alignment], rows: Vec<Vec<Vec<Value>>>) -> Value {
    let mut rows = rows.into_iter();
    let header = rows.next().unwrap_or_default();
    let columns: Vec<String> = (0..header.len()).map(|c| format!("c{c}")).collect();
    let mut definition = Map::new();
    for (c, cell) in header.iter().enumerate() {
        let alignment = match aligns.get(c) {
            Some(Alignment::Center) => "center",
            Some(Alignment::Right) => "right",
            _ => "left",
        };
        definition.insert(
            columns[c].clone(),
            json!({ "id": columns[c], "title": plain_text(cell), "type": "text", "textAlignment": alignment }),
        );
    }
    let mut records = Map::new();
    let mut fragments = Vec::new();
    for (r, mut row) in rows.enumerate() {
        row.resize_with(columns.len(), Vec::new);
        let mut values = Map::new();
        for (column, cell) in columns.iter().zip(row) {
            let key = format!("r{r}-{column}");
            values.insert(column.clone(), json!(key));
            fragments.push(json!({ "object": "fragment", "fragment": key, "nodes": [paragraph(cell)] }));
        }
        records.insert(
            format!("r{r}"),
            json!({ "orderIndex": format!("a{r:06}"), "values": values }),
        );
    }
    json!({
        "object": "block",
        "type": "table",
        "isVoid": true,
        "data": {
            "view": { "type": "grid", "columns": columns, "hideHeader": false },
            "records": records,
            "definition": definition,
        },
        "fragments": fragments,
    })
}

// ---------------------------------------------------------------------------
// Fitting blocks to the schema's containers
// ---------------------------------------------------------------------------

/// Where a block sits; each place admits its own block types.
#[derive(Clone, Copy)]
enum Place {
    Top,
    ListItem,
    Quote,
    Hint,
    Tab,
}

fn allowed(place: Place, kind: &str) -> bool {
    let essential = matches!(
        kind,
        "paragraph"
            | "heading-1"
            | "heading-2"
            | "heading-3"
            | "list-ordered"
            | "list-unordered"
            | "list-tasks"
            | "divider"
    );
    essential
        || match place {
            Place::Top => true,
            Place::ListItem => matches!(kind, "code" | "hint" | "blockquote" | "math" | "table"),
            Place::Quote => kind == "blockquote",
            Place::Hint => matches!(kind, "embed" | "table"),
            Place::Tab => matches!(
                kind,
                "content-ref" | "code" | "embed" | "images" | "hint" | "blockquote" | "math"
            ),
        }
}

/// Makes `blocks` (and everything inside them) valid where they sit: a block
/// not allowed in `place` is replaced by blocks that are, with its content.
fn fit(blocks: Vec<Value>, place: Place) -> Vec<Value> {
    let mut out = Vec::new();
    for mut node in blocks {
        fit_children(&mut node);
        if allowed(place, node_type(&node)) {
            out.push(node);
        } else {
            out.extend(fit(degrade(node), place));
        }
    }
    out
}

fn fit_children(node: &mut Value) {
    let place = match node_type(node) {
        "blockquote" => Place::Quote,
        "hint" => Place::Hint,
        "list-item" => Place::ListItem,
        "tabs-item" => Place::Tab,
        "list-ordered" | "list-unordered" | "list-tasks" | "tabs" => {
            if let Some(items) = node.get_mut("nodes").and_then(Value::as_array_mut) {
                items.iter_mut().for_each(fit_children);
            }
            return;
        }
        _ => return,
    };
    let children = take_nodes(node);
    node["nodes"] = Value::Array(fit(children, place));
}

fn take_nodes(node: &mut Value) -> Vec<Value> {
    match node.get_mut("nodes").map(Value::take) {
        Some(Value::Array(nodes)) => nodes,
        _ => Vec::new(),
    }
}

/// Blocks carrying the content of a block that cannot stay where it is:
/// containers give up their children, code becomes code-marked text, images
/// inline images, tables a paragraph per row (cells joined with ` | `),
/// embeds and content references links. Code titles are lost.
fn degrade(mut node: Value) -> Vec<Value> {
    match node_type(&node) {
        "hint" | "blockquote" => take_nodes(&mut node),
        "tabs" => take_nodes(&mut node)
            .into_iter()
            .flat_map(|mut item| {
                let title = data_str(&item, "title").unwrap_or("").to_owned();
                let heading = (!title.is_empty()).then(|| {
                    let bold = Marks {
                        bold: true,
                        ..Marks::default()
                    };
                    paragraph(vec![text_node(&[Leaf {
                        text: title,
                        marks: bold,
                    }])])
                });
                heading.into_iter().chain(take_nodes(&mut item))
            })
            .collect(),
        "code" => vec![code_paragraph(&node)],
        "images" => {
            let inlines = child_nodes(&node).iter().map(inline_image).collect();
            vec![paragraph(inlines)]
        }
        "embed" => {
            let url = data_str(&node, "url").unwrap_or("");
            let reference = json!({ "kind": "url", "url": url });
            vec![paragraph(vec![link(reference, vec![text_node(&[Leaf::plain(url)])])])]
        }
        "content-ref" => {
            let reference = node
                .get("data")
                .and_then(|d| d.get("ref"))
                .cloned()
                .unwrap_or(Value::Null);
            let label = ref_to_url(Some(&reference), "").unwrap_or_default();
            vec![paragraph(vec![link(
                reference,
                vec![text_node(&[Leaf::plain(&label)])],
            )])]
        }
        "math" => {
            let formula = data_str(&node, "formula").unwrap_or("");
            vec![paragraph(vec![text_node(&[Leaf::plain(&format!("$${formula}$$"))])])]
        }
        "table" => table_rows(&node)
            .into_iter()
            .map(|cells| {
                let mut nodes = Vec::new();
                for (i, cell) in cells.into_iter().enumerate() {
                    if i > 0 {
                        nodes.push(text_node(&[Leaf::plain(" | ")]));
                    }
                    nodes.extend(cell);
                }
                paragraph(nodes)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A code block as one paragraph: each line code-marked, lines separated by
/// line breaks.
fn code_paragraph(code: &Value) -> Value {
    let mut lines: Vec<String> = child_nodes(code)
        .iter()
        .map(|line| plain_text(child_nodes(line)))
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let first = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
    let code_mark = Marks {
        code: true,
        ..Marks::default()
    };
    let mut leaves = Vec::new();
    for (i, line) in lines[first..].iter().enumerate() {
        if i > 0 {
            leaves.push(Leaf::plain("\n"));
        }
        leaves.push(Leaf {
            text: line.clone(),
            marks: code_mark,
        });
    }
    let leaves = normalize_leaves(leaves);
    paragraph(if leaves.is_empty() {
        Vec::new()
    } else {
        vec![text_node(&leaves)]
    })
}

fn inline_image(image: &Value) -> Value {
    let data = image.get("data");
    let mut inline_data = json!({ "ref": data.and_then(|d| d.get("ref")).cloned().unwrap_or(Value::Null) });
    if let Some(alt) = data.and_then(|d| d.get("alt")) {
        inline_data["alt"] = alt.clone();
    }
    let caption = caption_text(image);
    if !caption.is_empty() {
        inline_data["caption"] = json!(caption);
    }
    json!({ "object": "inline", "type": "inline-image", "isVoid": true, "data": inline_data })
}

/// The plain text of an image's caption fragment.
fn caption_text(image: &Value) -> String {
    let fragments = image
        .get("fragments")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    fragments
        .iter()
        .filter(|f| f.get("fragment").and_then(Value::as_str) == Some("caption"))
        .flat_map(|f| child_nodes(f).iter().map(|p| plain_text(child_nodes(p))))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The header and rows of a table we built, as inline nodes per cell.
fn table_rows(table: &Value) -> Vec<Vec<Vec<Value>>> {
    let data = table.get("data").cloned().unwrap_or_default();
    let columns: Vec<&str> = data["view"]["columns"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let header = columns
        .iter()
        .map(|c| {
            vec![text_node(&[Leaf::plain(
                data["definition"][*c]["title"].as_str().unwrap_or(""),
            )])]
        })
        .collect();
    let mut rows = vec![header];
    for record in sorted_records(&data["records"]) {
        let cells = columns
            .iter()
            .map(|c| {
                let key = record["values"][*c].as_str().unwrap_or("");
                fragment(table, key)
                    .and_then(|f| child_nodes(f).first())
                    .map(|p| child_nodes(p).to_vec())
                    .unwrap_or_default()
            })
            .collect();
        rows.push(cells);
    }
    rows
}

fn sorted_records(records: &Value) -> Vec<&Value> {
    let mut list: Vec<(&String, &Value)> = records.as_object().map(|m| m.iter().collect()).unwrap_or_default();
    list.sort_by_key(|(key, record)| (record["orderIndex"].as_str().unwrap_or(""), *key));
    list.into_iter().map(|(_, record)| record).collect()
}

fn fragment<'a>(node: &'a Value, key: &str) -> Option<&'a Value> {
    node.get("fragments")?
        .as_array()?
        .iter()
        .find(|f| f.get("fragment").and_then(Value::as_str) == Some(key))
}

// ---------------------------------------------------------------------------
// Document to markdown
// ---------------------------------------------------------------------------

fn is_list(kind: &str) -> bool {
    matches!(kind, "list-ordered" | "list-unordered" | "list-tasks")
}

/// Where blocks are written. GitBook tags are only read back at the top
/// level and inside other GitBook blocks, not in lists or quotes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    Tags,
    Quote,
    Item,
}

/// Blocks separated by blank lines.
fn blocks_md(nodes: &[Value], path: &str, within: Within) -> Result<String> {
    let mut out = String::new();
    let mut previous_kind = "";
    // Two lists of one kind in a row would read back as one list: the second
    // uses the other bullet (`*`, or `)` for numbers).
    let mut previous_alternate = false;
    for (i, node) in nodes.iter().enumerate() {
        let path = format!("{path}[{i}]");
        let kind = block_kind(node, &path)?;
        let alternate = is_list(kind) && kind == previous_kind && !previous_alternate;
        let markdown = block_md(node, kind, &path, within, alternate)?;
        if markdown.is_empty() {
            continue;
        }
        if !out.is_empty() {
            // An item's text and its sub-list stay together (a tight list).
            let tight = within == Within::Item && previous_kind == "paragraph" && interrupts_paragraph(node, kind);
            out.push_str(if tight { "\n" } else { "\n\n" });
        }
        out.push_str(&markdown);
        previous_kind = kind;
        previous_alternate = alternate;
    }
    Ok(out)
}

/// Whether a list may start right below a paragraph line: not an ordered
/// list starting past 1, nor one whose first item is empty.
fn interrupts_paragraph(list: &Value, kind: &str) -> bool {
    let start = list.get("data").and_then(|d| d.get("start")).and_then(Value::as_f64);
    let first_item_empty = child_nodes(list)
        .first()
        .is_none_or(|item| child_nodes(item).is_empty());
    is_list(kind) && !first_item_empty && (kind != "list-ordered" || start.is_none_or(|s| s == 1.0))
}

fn block_kind<'a>(node: &'a Value, path: &str) -> Result<&'a str> {
    if node.get("object").and_then(Value::as_str) != Some("block") {
        return Err(invalid(path, "expected a block (`object` \"block\")"));
    }
    node.get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(path, "a block needs a string `type`"))
}

fn nodes_of<'a>(node: &'a Value, path: &str) -> Result<&'a [Value]> {
    node.get("nodes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| invalid(path, "`nodes` must be an array"))
}

fn block_md(node: &Value, kind: &str, path: &str, within: Within, alternate: bool) -> Result<String> {
    let tags = within == Within::Tags;
    match kind {
        "paragraph" => paragraph_md(nodes_of(node, path)?, path),
        "heading-1" | "heading-2" | "heading-3" => heading_md(node, kind, path),
        "list-ordered" | "list-unordered" | "list-tasks" => list_md(node, kind, path, alternate),
        "divider" => Ok("***".to_owned()),
        "blockquote" => {
            let inner = blocks_md(nodes_of(node, path)?, &format!("{path}.nodes"), Within::Quote)?;
            Ok(prefix_lines(&inner, "> ", ">"))
        }
        "hint" => hint_md(node, path, within),
        "images" => images_md(node, path),
        "code" => code_md(node, path, tags),
        "math" => {
            let formula = data_str(node, "formula").ok_or_else(|| invalid(path, "math needs `data.formula`"))?;
            Ok(format!("$$\n{formula}\n$$"))
        }
        "tabs" => tabs_md(node, path, within),
        "content-ref" => {
            let url = ref_to_url(node.get("data").and_then(|d| d.get("ref")), path)?;
            Ok(if tags {
                format!(
                    "{{% content-ref url={} %}}\n{}\n{{% endcontent-ref %}}",
                    quote_attr(&url),
                    link_md(&url)
                )
            } else {
                link_md(&url)
            })
        }
        "embed" => {
            let url = data_str(node, "url").ok_or_else(|| invalid(path, "embed needs `data.url`"))?;
            Ok(if tags {
                format!("{{% embed url={} %}}", quote_attr(url))
            } else {
                link_md(url)
            })
        }
        "table" => table_md(node, path),
        other => Err(invalid(path, format!("unsupported block type `{other}`"))),
    }
}

/// `[url](url)`, a link showing its own target.
fn link_md(url: &str) -> String {
    let mut writer = InlineWriter::new(false);
    writer.text(url);
    format!("[{}]({})", writer.finish(), destination(url))
}

fn heading_md(node: &Value, kind: &str, path: &str) -> Result<String> {
    let level = if kind == "heading-1" {
        1
    } else if kind == "heading-2" {
        2
    } else {
        3
    };
    let mut text = paragraph_md(nodes_of(node, path)?, path)?.replace("\\\n", " ");
    // A trailing `#` run would be read as the closing sequence.
    if text.ends_with('#') {
        let run = text.len() - text.trim_end_matches('#').len();
        text.insert(text.len() - run, '\\');
    }
    Ok(format!("{} {text}", "#".repeat(level)).trim_end().to_owned())
}

fn list_md(node: &Value, kind: &str, path: &str, alternate: bool) -> Result<String> {
    let items = nodes_of(node, path)?;
    let start = match node.get("data").and_then(|d| d.get("start")) {
        None | Some(Value::Null) => 1,
        Some(n) => n
            .as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < 1e9)
            .ok_or_else(|| invalid(path, "`data.start` must be a whole number below 1000000000"))?
            as u64,
    };
    let bullet = if alternate { "*" } else { "-" };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}.nodes[{i}]");
        if block_kind(item, &item_path)? != "list-item" {
            return Err(invalid(&item_path, "a list holds `list-item` blocks only"));
        }
        let body = blocks_md(nodes_of(item, &item_path)?, &format!("{item_path}.nodes"), Within::Item)?;
        let (marker, width) = match kind {
            "list-ordered" => {
                let marker = format!("{}{}", start + i as u64, if alternate { ')' } else { '.' });
                let width = marker.len() + 1;
                (marker, width)
            }
            "list-tasks" => {
                let checked = item.get("data").and_then(|d| d.get("checked")).and_then(Value::as_bool);
                let mark = if checked == Some(true) { 'x' } else { ' ' };
                (format!("{bullet} [{mark}]"), 2)
            }
            _ => (bullet.to_owned(), 2),
        };
        out.push(list_item_md(&marker, width, &body));
    }
    Ok(out.join("\n"))
}

/// `marker body`, the body's following lines indented to the content.
fn list_item_md(marker: &str, width: usize, body: &str) -> String {
    let mut lines = body.split('\n');
    let mut out = match lines.next() {
        Some(first) if !first.is_empty() => format!("{marker} {first}"),
        _ => marker.to_owned(),
    };
    let pad = " ".repeat(width);
    for line in lines {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    out
}

fn prefix_lines(text: &str, prefix: &str, empty: &str) -> String {
    if text.is_empty() {
        return empty.to_owned();
    }
    text.split('\n')
        .map(|line| {
            if line.is_empty() {
                empty.to_owned()
            } else {
                format!("{prefix}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn hint_md(node: &Value, path: &str, within: Within) -> Result<String> {
    let style = data_str(node, "style").ok_or_else(|| invalid(path, "hint needs `data.style`"))?;
    if !matches!(style, "info" | "warning" | "danger" | "success") {
        return Err(invalid(path, format!("unknown hint style `{style}`")));
    }
    let body = blocks_md(nodes_of(node, path)?, &format!("{path}.nodes"), within)?;
    if within != Within::Tags {
        return Ok(body);
    }
    Ok(wrap_tag(&format!("hint style={}", quote_attr(style)), "endhint", &body))
}

fn wrap_tag(open: &str, close: &str, body: &str) -> String {
    if body.is_empty() {
        format!("{{% {open} %}}\n{{% {close} %}}")
    } else {
        format!("{{% {open} %}}\n{body}\n{{% {close} %}}")
    }
}

fn tabs_md(node: &Value, path: &str, within: Within) -> Result<String> {
    let tags = within == Within::Tags;
    let mut tabs = Vec::new();
    for (i, item) in nodes_of(node, path)?.iter().enumerate() {
        let item_path = format!("{path}.nodes[{i}]");
        if block_kind(item, &item_path)? != "tabs-item" {
            return Err(invalid(&item_path, "tabs hold `tabs-item` blocks only"));
        }
        let title = data_str(item, "title").unwrap_or("");
        let body = blocks_md(nodes_of(item, &item_path)?, &format!("{item_path}.nodes"), within)?;
        if tags {
            tabs.push(wrap_tag(&format!("tab title={}", quote_attr(title)), "endtab", &body));
            continue;
        }
        // Outside the places tags are read, a tab is its bold title and body.
        if !title.is_empty() {
            let mut heading = InlineWriter::new(false);
            heading.text(title);
            tabs.push(format!("**{}**", heading.finish()));
        }
        if !body.is_empty() {
            tabs.push(body);
        }
    }
    let body = tabs.join("\n\n");
    Ok(if tags { wrap_tag("tabs", "endtabs", &body) } else { body })
}

fn code_md(node: &Value, path: &str, tags: bool) -> Result<String> {
    let mut lines = Vec::new();
    for (i, line) in nodes_of(node, path)?.iter().enumerate() {
        let line_path = format!("{path}.nodes[{i}]");
        if block_kind(line, &line_path)? != "code-line" {
            return Err(invalid(&line_path, "code holds `code-line` blocks only"));
        }
        let mut text = String::new();
        for (j, child) in nodes_of(line, &line_path)?.iter().enumerate() {
            let child_path = format!("{line_path}.nodes[{j}]");
            for leaf in leaves_of(child, &child_path)? {
                text.push_str(&leaf.text);
            }
        }
        lines.push(text);
    }
    let body = lines.join("\n");
    let syntax = data_str(node, "syntax").unwrap_or("");
    let fence_char = if syntax.contains('`') { '~' } else { '`' };
    let longest = longest_run(&body, fence_char);
    let fence = fence_char.to_string().repeat((longest + 1).max(3));
    let fenced = format!("{fence}{syntax}\n{body}\n{fence}");
    let attrs = code_attrs(node);
    Ok(if tags && !attrs.is_empty() {
        wrap_tag(&format!("code {attrs}"), "endcode", &fenced)
    } else {
        fenced
    })
}

/// `{% code %}` attributes for the code block's title, overflow and line
/// numbers.
fn code_attrs(node: &Value) -> String {
    let data = node.get("data");
    let mut attrs = Vec::new();
    if let Some(title) = data_str(node, "title") {
        attrs.push(format!("title={}", quote_attr(title)));
    }
    if let Some(overflow) = data_str(node, "overflow") {
        attrs.push(format!("overflow={}", quote_attr(overflow)));
    }
    if let Some(numbers) = data.and_then(|d| d.get("lineNumbers")).and_then(Value::as_bool) {
        attrs.push(format!("lineNumbers=\"{numbers}\""));
    }
    attrs.join(" ")
}

fn longest_run(text: &str, c: char) -> usize {
    let mut longest = 0;
    let mut current = 0;
    for ch in text.chars() {
        current = if ch == c { current + 1 } else { 0 };
        longest = longest.max(current);
    }
    longest
}

fn images_md(node: &Value, path: &str) -> Result<String> {
    let mut out = Vec::new();
    for (i, image) in nodes_of(node, path)?.iter().enumerate() {
        let image_path = format!("{path}.nodes[{i}]");
        if block_kind(image, &image_path)? != "image" {
            return Err(invalid(&image_path, "images hold `image` blocks only"));
        }
        let data = image.get("data");
        let url = image_url(data.and_then(|d| d.get("ref")), &image_path)?;
        let alt = data.and_then(|d| d.get("alt")).and_then(Value::as_str).unwrap_or("");
        out.push(image_md(&url, alt, &caption_text(image)));
    }
    Ok(out.join("\n"))
}

fn image_md(url: &str, alt: &str, title: &str) -> String {
    let mut alt_text = InlineWriter::new(false);
    alt_text.text(&alt.replace('\n', " "));
    let title = if title.is_empty() {
        String::new()
    } else {
        format!(" \"{}\"", title.replace('\\', "\\\\").replace('"', "\\\""))
    };
    format!("![{}]({}{title})", alt_text.finish(), destination(url))
}

/// A link destination, in `<…>` when it has spaces or brackets.
fn destination(url: &str) -> String {
    let escaped = url.replace('\\', "\\\\");
    if url.is_empty() || url.contains([' ', '(', ')', '<', '>', '\n']) {
        format!(
            "<{}>",
            escaped.replace('<', "\\<").replace('>', "\\>").replace('\n', " ")
        )
    } else {
        escaped
    }
}

fn table_md(node: &Value, path: &str) -> Result<String> {
    let data = node
        .get("data")
        .filter(|d| d.is_object())
        .ok_or_else(|| invalid(path, "table needs `data`"))?;
    let columns: Vec<&str> = data
        .get("view")
        .and_then(|v| v.get("columns"))
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(path, "table needs `data.view.columns`"))?
        .iter()
        .map(|c| c.as_str().ok_or_else(|| invalid(path, "table columns must be strings")))
        .collect::<Result<_>>()?;
    if columns.is_empty() {
        return Ok(String::new());
    }
    let definition = data.get("definition").filter(|d| d.is_object());
    let records = data
        .get("records")
        .filter(|r| r.is_object())
        .ok_or_else(|| invalid(path, "table needs `data.records`"))?;
    let mut header = Vec::new();
    let mut rule = Vec::new();
    for column in &columns {
        let def = definition.and_then(|d| d.get(*column));
        let title = def.and_then(|d| d.get("title")).and_then(Value::as_str).unwrap_or("");
        let mut writer = InlineWriter::new(true);
        writer.text(title);
        header.push(writer.finish());
        rule.push(match def.and_then(|d| d.get("textAlignment")).and_then(Value::as_str) {
            Some("center") => ":-:",
            Some("right") => "--:",
            _ => "---",
        });
    }
    let mut lines = vec![table_row(&header), table_row(&rule)];
    for record in sorted_records(records) {
        let mut cells = Vec::new();
        for column in &columns {
            cells.push(table_cell_md(
                node,
                record.get("values").and_then(|v| v.get(*column)),
                path,
            )?);
        }
        lines.push(table_row(&cells));
    }
    Ok(lines.join("\n"))
}

fn table_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
    format!("| {} |", cells.join(" | "))
}

/// A cell: a string naming one of the table's fragments (a text cell), or a
/// plain value.
fn table_cell_md(table: &Value, value: Option<&Value>, path: &str) -> Result<String> {
    let mut writer = InlineWriter::new(true);
    match value {
        None | Some(Value::Null) => {}
        Some(Value::String(key)) => match fragment(table, key) {
            Some(fragment) => {
                for (i, node) in nodes_of(fragment, path)?.iter().enumerate() {
                    let node_path = format!("{path}.fragments[{key}].nodes[{i}]");
                    if block_kind(node, &node_path)? != "paragraph" {
                        return Err(invalid(&node_path, "table cells hold paragraphs only"));
                    }
                    if i > 0 {
                        writer.raw(" ");
                    }
                    writer.inlines(nodes_of(node, &node_path)?, &node_path)?;
                }
            }
            None => writer.text(key),
        },
        Some(Value::Number(n)) => writer.text(&n.to_string()),
        Some(Value::Bool(b)) => writer.text(&b.to_string()),
        Some(Value::Array(items)) => {
            let items: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            writer.text(&items.join(", "));
        }
        Some(reference @ Value::Object(_)) => {
            let target = reference.get("ref").unwrap_or(reference);
            let url = ref_to_url(Some(target), path)?;
            writer.raw(&link_md(&url));
        }
    }
    Ok(writer.finish().replace("\\\n", " "))
}

fn paragraph_md(nodes: &[Value], path: &str) -> Result<String> {
    let mut writer = InlineWriter::new(false);
    writer.inlines(nodes, &format!("{path}.nodes"))?;
    Ok(writer.finish())
}

fn leaves_of(node: &Value, path: &str) -> Result<Vec<Leaf>> {
    if node.get("object").and_then(Value::as_str) != Some("text") {
        return Err(invalid(path, "expected a text node (`object` \"text\")"));
    }
    let leaves = node
        .get("leaves")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(path, "a text node needs a `leaves` array"))?;
    leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            let leaf_path = format!("{path}.leaves[{i}]");
            let text = leaf
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(&leaf_path, "a leaf needs a string `text`"))?;
            Ok(Leaf {
                text: text.to_owned(),
                marks: Marks::from_json(leaf.get("marks"), &leaf_path)?,
            })
        })
        .collect()
}

/// Writes inline markdown, escaping text so that it reads back as text.
struct InlineWriter {
    out: String,
    /// At the start of a line, where `#`, `-`, `1.`… would start a block.
    line_start: bool,
    /// In a table cell, where `|` must be escaped even in code.
    in_table: bool,
}

impl InlineWriter {
    fn new(in_table: bool) -> InlineWriter {
        InlineWriter {
            out: String::new(),
            line_start: true,
            in_table,
        }
    }

    fn finish(mut self) -> String {
        // A break at the very end would read back as a literal backslash.
        while let Some(rest) = self.out.strip_suffix("\\\n") {
            self.out.truncate(rest.len());
        }
        self.out
    }

    fn raw(&mut self, s: &str) {
        if !s.is_empty() {
            self.out.push_str(s);
            self.line_start = false;
        }
    }

    fn hard_break(&mut self) {
        self.out.push_str("\\\n");
        self.line_start = true;
    }

    fn inlines(&mut self, nodes: &[Value], path: &str) -> Result<()> {
        for (i, node) in nodes.iter().enumerate() {
            let path = format!("{path}[{i}]");
            match node.get("object").and_then(Value::as_str) {
                Some("text") => self.leaves(leaves_of(node, &path)?),
                Some("inline") => self.inline(node, &path)?,
                _ => return Err(invalid(&path, "expected a text or inline node")),
            }
        }
        Ok(())
    }

    fn inline(&mut self, node: &Value, path: &str) -> Result<()> {
        let data = node.get("data");
        match node_type(node) {
            "link" => {
                let url = ref_to_url(data.and_then(|d| d.get("ref")), path)?;
                self.raw("[");
                self.inlines(nodes_of(node, path)?, &format!("{path}.nodes"))?;
                self.raw(&format!("]({})", destination(&url)));
            }
            "inline-image" => {
                let url = image_url(data.and_then(|d| d.get("ref")), path)?;
                let text = |key: &str| data.and_then(|d| d.get(key)).and_then(Value::as_str).unwrap_or("");
                self.raw(&image_md(&url, text("alt"), text("caption")));
            }
            "inline-math" => {
                let formula =
                    data_str(node, "formula").ok_or_else(|| invalid(path, "inline-math needs `data.formula`"))?;
                self.raw(&format!("$${formula}$$"));
            }
            "emoji" => {
                let code = data_str(node, "code").ok_or_else(|| invalid(path, "emoji needs `data.code`"))?;
                let emoji: Option<String> = code
                    .split('-')
                    .map(|hex| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32))
                    .collect();
                let emoji = emoji.ok_or_else(|| invalid(path, format!("unknown emoji code `{code}`")))?;
                self.text(&emoji);
            }
            other => return Err(invalid(path, format!("unsupported inline type `{other}`"))),
        }
        Ok(())
    }

    /// Marked text: delimiters open and close around runs of leaves, the
    /// mark running longest outermost.
    fn leaves(&mut self, leaves: Vec<Leaf>) {
        let leaves = normalize_leaves(leaves);
        let mut open: Vec<Delimited> = Vec::new();
        for (i, leaf) in leaves.iter().enumerate() {
            if let Some(first_closed) = open.iter().position(|m| !leaf.marks.has(*m)) {
                for mark in open.drain(first_closed..).rev() {
                    self.raw(mark.delimiter());
                }
            }
            let mut opening: Vec<Delimited> = Delimited::ALL
                .into_iter()
                .filter(|m| leaf.marks.has(*m) && !open.contains(m))
                .collect();
            opening.sort_by_key(|m| Reverse(leaves[i..].iter().take_while(|l| l.marks.has(*m)).count()));
            for mark in opening {
                self.raw(mark.delimiter());
                open.push(mark);
            }
            if leaf.marks.code {
                self.code(&leaf.text);
            } else {
                self.text(&leaf.text);
            }
        }
        for mark in open.into_iter().rev() {
            self.raw(mark.delimiter());
        }
    }

    fn code(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.hard_break();
            }
            if !line.is_empty() {
                let line = if self.in_table {
                    line.replace('|', "\\|")
                } else {
                    line.to_owned()
                };
                self.raw(&code_span(&line));
            }
        }
    }

    /// Escaped text; `\n` is a line break.
    fn text(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.hard_break();
            }
            let line = if self.line_start { line.trim_start() } else { line };
            if !line.is_empty() {
                let escaped = escape_text(line, self.line_start);
                self.raw(&escaped);
            }
        }
    }
}

fn code_span(text: &str) -> String {
    let ticks = "`".repeat(longest_run(text, '`') + 1);
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' ') && !text.trim().is_empty());
    let pad = if pad { " " } else { "" };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// Text with markdown's special characters escaped. At a line start, the
/// characters that would open a block (`#`, `>`, `-`, `+`, `=`, `1.`) too.
fn escape_text(text: &str, line_start: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    if line_start {
        let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
        let after = text[digits.len()..].chars().next();
        if !digits.is_empty() && matches!(after, Some('.' | ')')) {
            out.push_str(&digits);
            out.push('\\');
            chars = text[digits.len()..].chars().peekable();
        } else if text.starts_with(['#', '>', '-', '+', '=']) {
            out.push('\\');
        }
    }
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '~' | '|' => out.push('\\'),
            '$' if next == Some('$') => out.push('\\'),
            '%' if out.ends_with('{') => out.push('\\'),
            '&' if looks_like_entity(chars.clone().collect::<String>().as_str()) => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Whether text after a `&` would read as an entity (`amp;`, `#38;`).
fn looks_like_entity(after: &str) -> bool {
    let name: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '#')
        .collect();
    !name.is_empty() && after[name.len()..].starts_with(';')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markdown → document → markdown → document: both documents agree.
    /// Returns the written markdown.
    fn round_trip(markdown: &str) -> String {
        let first = markdown_to_document(markdown);
        let written = document_to_markdown(&first).expect("our own documents convert");
        let second = markdown_to_document(&written);
        if first != second {
            let (first, second) = (format!("{first:#}"), format!("{second:#}"));
            let at = first.lines().zip(second.lines()).position(|(a, b)| a != b).unwrap_or(0);
            let context = |s: &str| {
                s.lines()
                    .skip(at.saturating_sub(8))
                    .take(12)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "markdown:\n{markdown}\n--- written:\n{written}\n--- first differs at line {at}:\n{}\n--- second:\n{}",
                context(&first),
                context(&second)
            );
        }
        written
    }

    fn nodes(markdown: &str) -> Vec<Value> {
        match markdown_to_document(markdown)["nodes"].take() {
            Value::Array(nodes) => nodes,
            other => panic!("nodes is not an array: {other}"),
        }
    }

    fn only_block(markdown: &str) -> Value {
        let mut blocks = nodes(markdown);
        assert_eq!(blocks.len(), 1, "{blocks:#?}");
        blocks.remove(0)
    }

    fn leaf(text: &str, marks: &[&str]) -> Value {
        let marks: Vec<Value> = marks.iter().map(|m| json!({ "object": "mark", "type": m })).collect();
        json!({ "object": "leaf", "text": text, "marks": marks })
    }

    fn error(doc: Value) -> String {
        document_to_markdown(&doc).expect_err("the document is refused").0
    }

    const RICH: &str = r#"---
title: Sample
---

# Getting started

Some **bold**, *italic*, ~~struck~~ and `code` text with a [page link](/pages/abc123),
a [file](/files/f1), an [anchor](#install) and a [site](https://example.com/a?b=1&c=2).\
A second line.

## Install

1. First
2. Second
   - nested
   - items

- [x] done
- [ ] todo

> A quote
>
> > nested
>
> ```
> code in a quote
> ```

```rust
fn main() {
    println!("hi");
}
```

{% code title="app.js" overflow="wrap" lineNumbers="true" %}
```js
console.log(1)
```
{% endcode %}

***

![Logo](/files/logo "The logo")

Text with ![icon](https://example.com/i.png) inline.

{% hint style="warning" %}
Careful **here**.

```sh
rm -rf /
```

{% hint style="danger" %}
Nested hint.
{% endhint %}
{% endhint %}

{% tabs %}
{% tab title="macOS" %}
brew install quire

| a | b |
| - | - |
| 1 | 2 |
{% endtab %}

{% tab title="Linux" %}
```sh
apt install quire
```
{% endtab %}
{% endtabs %}

{% content-ref url="/pages/xyz" %}
[Other](/pages/xyz)
{% endcontent-ref %}

{% embed url="https://youtube.com/watch?v=1" %}

$$
E = mc^2
$$

| Name | Value |
| :--- | ---: |
| a | **1** |
| b `x\|y` | [two](/pages/p2) |

{% unknown thing="x" %}

<div>html</div>

### Deep heading

#### Deeper heading
"#;

    #[test]
    fn empty_markdown_is_an_empty_document() {
        let doc = markdown_to_document("");
        assert_eq!(
            doc,
            json!({ "object": "document", "data": { "schemaVersion": 1 }, "nodes": [] })
        );
        assert_eq!(markdown_to_document("---\ntitle: x\n---\n")["nodes"], json!([]));
        assert_eq!(document_to_markdown(&doc).unwrap(), "");
    }

    #[test]
    fn front_matter_is_not_content() {
        let block = only_block("---\ntitle: T\n---\nHello\n");
        assert_eq!(plain_text(child_nodes(&block)), "Hello");
    }

    #[test]
    fn headings_have_schema_ids() {
        let blocks =
            nodes("# Getting Started!\n\n## Café & Co\n\n### Three\n\n#### Four\n\n# Getting started\n\n# ¿?\n");
        let kinds: Vec<&str> = blocks.iter().map(node_type).collect();
        assert_eq!(
            kinds,
            [
                "heading-1",
                "heading-2",
                "heading-3",
                "heading-3",
                "heading-1",
                "heading-1"
            ]
        );
        let ids: Vec<&str> = blocks.iter().map(|b| data_str(b, "id").unwrap()).collect();
        assert_eq!(
            ids,
            [
                "getting-started",
                "caf-co",
                "three",
                "four",
                "getting-started-1",
                "heading"
            ]
        );
        for b in &blocks {
            assert_eq!(b["meta"]["id"], b["data"]["id"]);
            assert_eq!(b["isVoid"], json!(false));
        }
        assert_eq!(
            blocks[0]["nodes"],
            json!([{ "object": "text", "leaves": [leaf("Getting Started!", &[])] }])
        );
    }

    #[test]
    fn lists_ordered_unordered_and_tasks() {
        let ordered = only_block("3. three\n4. four\n");
        assert_eq!(node_type(&ordered), "list-ordered");
        assert_eq!(ordered["data"], json!({ "start": 3 }));
        let item = &ordered["nodes"][0];
        assert_eq!(node_type(item), "list-item");
        assert_eq!(node_type(&item["nodes"][0]), "paragraph");
        assert_eq!(plain_text(child_nodes(&item["nodes"][0])), "three");

        let unordered = only_block("- a\n  - nested\n- b\n");
        assert_eq!(node_type(&unordered), "list-unordered");
        assert_eq!(unordered["data"], json!({}));
        let nested = &unordered["nodes"][0]["nodes"][1];
        assert_eq!(node_type(nested), "list-unordered");

        let tasks = only_block("- [x] done\n- [ ] todo\n");
        assert_eq!(node_type(&tasks), "list-tasks");
        assert_eq!(tasks["nodes"][0]["data"], json!({ "checked": true }));
        assert_eq!(tasks["nodes"][1]["data"], json!({ "checked": false }));
        assert_eq!(plain_text(child_nodes(&tasks["nodes"][1]["nodes"][0])), "todo");

        let loose_tasks = only_block("- [x] done\n\n- [ ] todo\n");
        assert_eq!(node_type(&loose_tasks), "list-tasks");
        assert_eq!(loose_tasks["nodes"][0]["data"], json!({ "checked": true }));
    }

    #[test]
    fn code_blocks_have_one_line_per_line() {
        let code = only_block("```rust\nfn main() {\n\n}\n```\n");
        assert_eq!(node_type(&code), "code");
        assert_eq!(code["data"], json!({ "syntax": "rust" }));
        let lines: Vec<String> = child_nodes(&code)
            .iter()
            .map(|l| {
                assert_eq!(node_type(l), "code-line");
                assert_eq!(l["data"], json!({ "highlighted": false }));
                plain_text(child_nodes(l))
            })
            .collect();
        assert_eq!(lines, ["fn main() {", "", "}"]);

        let indented = only_block("    indented\n");
        assert_eq!(indented["data"], json!({}));

        let titled = only_block(
            "{% code title=\"app.js\" overflow=\"wrap\" lineNumbers=\"true\" %}\n```js\nx\n```\n{% endcode %}\n",
        );
        assert_eq!(
            titled["data"],
            json!({ "syntax": "js", "title": "app.js", "overflow": "wrap", "lineNumbers": true })
        );
    }

    #[test]
    fn hints_keep_style_and_marks() {
        let hint = only_block("{% hint style=\"success\" %}\nWell **done**.\n{% endhint %}\n");
        assert_eq!(node_type(&hint), "hint");
        assert_eq!(hint["data"], json!({ "style": "success" }));
        assert_eq!(
            hint["nodes"][0]["nodes"][0]["leaves"],
            json!([leaf("Well ", &[]), leaf("done", &["bold"]), leaf(".", &[])])
        );
        let unknown_style = only_block("{% hint style=\"purple\" %}\nx\n{% endhint %}\n");
        assert_eq!(unknown_style["data"], json!({ "style": "info" }));
    }

    #[test]
    fn links_become_content_references() {
        let p =
            only_block("[a](/pages/abc) [b](/files/f1) [c](#top) [d](https://x.org) [e](/pages/abc#sec) [f](/docs/x)");
        let refs: Vec<Value> = child_nodes(&p)
            .iter()
            .filter(|n| node_type(n) == "link")
            .map(|n| n["data"]["ref"].clone())
            .collect();
        assert_eq!(
            refs,
            [
                json!({ "kind": "page", "page": "abc" }),
                json!({ "kind": "file", "file": "f1" }),
                json!({ "kind": "anchor", "anchor": "top" }),
                json!({ "kind": "url", "url": "https://x.org" }),
                json!({ "kind": "anchor", "anchor": "sec", "page": "abc" }),
                json!({ "kind": "url", "url": "/docs/x" }),
            ]
        );
        let first = &child_nodes(&p)[0];
        assert_eq!(first["object"], "inline");
        assert_eq!(first["isVoid"], json!(false));
        assert_eq!(
            first["nodes"],
            json!([{ "object": "text", "leaves": [leaf("a", &[])] }])
        );
    }

    #[test]
    fn images_standalone_and_inline() {
        let images = only_block("![Logo](/files/logo \"The logo\")\n![](https://x.org/a.png)\n");
        assert_eq!(node_type(&images), "images");
        assert_eq!(images["isVoid"], json!(false));
        let first = &images["nodes"][0];
        assert_eq!(node_type(first), "image");
        assert_eq!(first["isVoid"], json!(true));
        assert_eq!(
            first["data"],
            json!({ "ref": { "kind": "file", "file": "logo" }, "alt": "Logo" })
        );
        assert_eq!(first["fragments"][0]["fragment"], "caption");
        assert_eq!(caption_text(first), "The logo");
        assert_eq!(
            images["nodes"][1]["data"],
            json!({ "ref": { "kind": "url", "url": "https://x.org/a.png" } })
        );

        let p = only_block("See ![icon](/files/i) here");
        assert_eq!(node_type(&p), "paragraph");
        let inline = &p["nodes"][1];
        assert_eq!(node_type(inline), "inline-image");
        assert_eq!(inline["isVoid"], json!(true));
        assert_eq!(
            inline["data"],
            json!({ "ref": { "kind": "file", "file": "i" }, "alt": "icon" })
        );
    }

    #[test]
    fn marks_on_leaves() {
        let p = only_block("a **b *c*** ~~d~~ `e` **`f`**");
        assert_eq!(
            p["nodes"][0]["leaves"],
            json!([
                leaf("a ", &[]),
                leaf("b", &["bold"]),
                leaf(" ", &[]),
                leaf("c", &["bold", "italic"]),
                leaf(" ", &[]),
                leaf("d", &["strikethrough"]),
                leaf(" ", &[]),
                leaf("e", &["code"]),
                leaf(" ", &[]),
                leaf("f", &["bold", "code"]),
            ])
        );
    }

    #[test]
    fn tabs_content_refs_embeds_math_and_dividers() {
        let blocks = nodes(
            "{% tabs %}\n{% tab title=\"A\" %}\nalpha\n{% endtab %}\n{% tab title=\"B\" %}\nbeta\n{% endtab %}\n{% endtabs %}\n\n\
             {% content-ref url=\"/pages/p1\" %}\n[P](/pages/p1)\n{% endcontent-ref %}\n\n\
             {% content-ref url=\"https://x.org\" %}\n[X](https://x.org)\n{% endcontent-ref %}\n\n\
             {% embed url=\"https://v.org/1\" %}\n\n$$\nx^2\n$$\n\n$$y$$\n\n---\n",
        );
        let kinds: Vec<&str> = blocks.iter().map(node_type).collect();
        assert_eq!(
            kinds,
            ["tabs", "content-ref", "content-ref", "embed", "math", "math", "divider"]
        );
        let tabs = &blocks[0];
        assert_eq!(tabs["nodes"][0]["data"], json!({ "title": "A" }));
        assert_eq!(tabs["nodes"][0]["meta"], json!({ "id": "tab-1" }));
        assert_eq!(tabs["nodes"][1]["meta"], json!({ "id": "tab-2" }));
        assert_eq!(plain_text(child_nodes(&tabs["nodes"][1]["nodes"][0])), "beta");
        assert_eq!(blocks[1]["data"], json!({ "ref": { "kind": "page", "page": "p1" } }));
        assert_eq!(
            blocks[2]["data"],
            json!({ "ref": { "kind": "url", "url": "https://x.org" } })
        );
        assert_eq!(blocks[3]["data"], json!({ "url": "https://v.org/1" }));
        assert_eq!(blocks[4]["data"], json!({ "formula": "x^2" }));
        assert_eq!(blocks[5]["data"], json!({ "formula": "y" }));
        assert_eq!(
            blocks[6],
            json!({ "object": "block", "type": "divider", "isVoid": true, "data": {} })
        );
    }

    #[test]
    fn tables_are_grid_tables() {
        let table = only_block("| Name | Value |\n| :-: | --: |\n| a | **1** |\n");
        assert_eq!(node_type(&table), "table");
        assert_eq!(table["isVoid"], json!(true));
        let data = &table["data"];
        assert_eq!(
            data["view"],
            json!({ "type": "grid", "columns": ["c0", "c1"], "hideHeader": false })
        );
        assert_eq!(
            data["definition"]["c1"],
            json!({ "id": "c1", "title": "Value", "type": "text", "textAlignment": "right" })
        );
        assert_eq!(data["definition"]["c0"]["textAlignment"], "center");
        let key = data["records"]["r0"]["values"]["c1"].as_str().unwrap();
        let cell = fragment(&table, key).unwrap();
        assert_eq!(cell["nodes"][0]["nodes"][0]["leaves"], json!([leaf("1", &["bold"])]));
    }

    #[test]
    fn gitbook_tags_we_do_not_know_stay_text() {
        let blocks = nodes("{% swagger src=\"x\" %}\nbody\n{% endswagger %}\n\n{% hint %}\nno end\n");
        let texts: Vec<String> = blocks.iter().map(|b| plain_text(child_nodes(b))).collect();
        assert_eq!(
            texts,
            [
                "{% swagger src=\"x\" %}",
                "body",
                "{% endswagger %}",
                "{% hint %}",
                "no end"
            ]
        );
        // Tags inside code are code.
        let code = only_block("```\n{% hint style=\"info\" %}\n{% endhint %}\n```\n");
        assert_eq!(node_type(&code), "code");
    }

    #[test]
    fn blocks_the_schema_forbids_in_a_container_are_rewritten() {
        // Code is not allowed in a hint: its lines become code-marked text.
        let hint = only_block("{% hint style=\"info\" %}\n```sh\nls\ncd /\n```\n{% endhint %}\n");
        assert_eq!(
            hint["nodes"],
            json!([paragraph(vec![json!({
                "object": "text",
                "leaves": [leaf("ls", &["code"]), leaf("\n", &[]), leaf("cd /", &["code"])],
            })])])
        );
        // Images are not allowed in a list item: they stay inline.
        let list = only_block("- ![a](/files/x)\n");
        assert_eq!(node_type(&list["nodes"][0]["nodes"][0]), "paragraph");
        assert_eq!(node_type(&list["nodes"][0]["nodes"][0]["nodes"][0]), "inline-image");
        // A hint inside a hint gives up its wrapper.
        let outer =
            only_block("{% hint style=\"info\" %}\n{% hint style=\"danger\" %}\ninner\n{% endhint %}\n{% endhint %}\n");
        assert_eq!(node_type(&outer["nodes"][0]), "paragraph");
        // A table in a quote becomes a paragraph per row.
        let quote = only_block("> | a | b |\n> | - | - |\n> | 1 | 2 |\n");
        let rows: Vec<String> = child_nodes(&quote).iter().map(|p| plain_text(child_nodes(p))).collect();
        assert_eq!(rows, ["a | b", "1 | 2"]);
        for markdown in [
            "{% hint style=\"info\" %}\n```sh\nls\n\n  cd /\n```\n{% endhint %}\n",
            "- ![a](/files/x)\n",
            "> | a | b |\n> | - | - |\n> | 1 | `2` |\n",
            "{% tabs %}\n{% tab title=\"T\" %}\n| a |\n| - |\n| 1 |\n{% endtab %}\n{% endtabs %}\n",
        ] {
            round_trip(markdown);
        }
    }

    #[test]
    fn round_trips_each_construct() {
        for markdown in [
            "Plain paragraph.\n",
            "Two\nlines joined, and a hard\\\nbreak.\n",
            "# One\n\n## Two\n\n### Three\n\n#### Four\n",
            "# Heading with `code` and *marks* #\n",
            "**bold** *italic* ***both*** ~~strike~~ `code` **`bold code`** a*b*c\n",
            "**a***b* and *a***b** and **x** **y**\n",
            "Escapes: \\*not\\* \\_em\\_ \\[x\\] \\<b> 1 < 2 & 3 &amp; \\# {\\% x %} \\$\\$x\\$\\$ a|b\n",
            "\\# not a heading\n\n\\- not a list\n\n1\\. not a list\n\n\\> not a quote\n",
            "``code with ` tick`` and ` `` ` and `  spaced  `\n",
            "[page](/pages/abc) [file](/files/f) [anchor](#a) [url](https://x.org/a_b?c=1&d=2) [spaced](<a b>) [sec](/pages/p#s)\n",
            "[**bold link**](https://x.org) and <https://auto.link>\n",
            "- a\n- b\n  - c\n\n    more c\n- d\n",
            "3. three\n4. four\n\n10. ten\n",
            "- a\n  3. three\n- b\n  1. one\n- c\n  -\n",
            "- [x] done\n- [ ] todo\n",
            "- a\n\n\n* b\n\n\n- c\n",
            "1. a\n\n\n1) b\n",
            "> quote\n>\n> > nested\n>\n> - list\n",
            "```rust\nfn main() {\n\n    ```not a fence\n}\n```\n",
            "````md\n```\ninner\n```\n````\n",
            "```\n```\n",
            "    indented code\n",
            "{% code title=\"app \\\"x\\\".js\" overflow=\"wrap\" lineNumbers=\"true\" %}\n```js\nx\n```\n{% endcode %}\n",
            "***\n\n---\n\n___\n",
            "![Logo](/files/logo \"The \\\"logo\\\"\")\n![](https://x.org/a%20b.png)\n",
            "Text ![icon](https://x.org/i.png \"cap\") inline and [![img](/files/i)](/pages/p)\n",
            "{% hint style=\"info\" %}\nInfo **text**.\n\n- a list\n{% endhint %}\n\n{% hint style=\"danger\" %}\n{% endhint %}\n",
            "{% tabs %}\n{% tab title=\"A\" %}\nalpha\n{% endtab %}\n\n{% tab title=\"B\" %}\n```sh\nbeta\n```\n{% endtab %}\n{% endtabs %}\n",
            "{% content-ref url=\"/pages/p1\" %}\n[P](/pages/p1)\n{% endcontent-ref %}\n",
            "{% embed url=\"https://v.org/1\" %}\n",
            "$$\nE = mc^2\n$$\n",
            "| a | b | c |\n| :- | :-: | -: |\n| 1 | **2** | [x](/pages/p) |\n| `x\\|y` |  | z |\n",
            "{% unknown a=\"b\" %}\n\n{% endhint %}\n",
            "<div>\n<p>html</p>\n</div>\n\ninline <br> html\n",
            "- {% hint style=\"info\" %}\n  in a list\n  {% endhint %}\n",
            "> ```\n> code in a quote\n> ```\n",
            RICH,
        ] {
            round_trip(markdown);
        }
    }

    #[test]
    fn canonical_markdown_is_gitbook_style() {
        let written = round_trip(
            "{% hint style=\"warning\" %}\nCareful.\n{% endhint %}\n\n- one\n- two\n\n1. a\n\n{% code title=\"x.sh\" %}\n```sh\nls\n```\n{% endcode %}\n",
        );
        assert_eq!(
            written,
            "{% hint style=\"warning\" %}\nCareful.\n{% endhint %}\n\n- one\n- two\n\n1. a\n\n{% code title=\"x.sh\" %}\n```sh\nls\n```\n{% endcode %}\n"
        );
    }

    #[test]
    fn documents_from_users_convert() {
        let doc = json!({
            "object": "document",
            "data": {},
            "nodes": [
                { "object": "block", "type": "heading-2", "data": { "id": "x" }, "nodes": [
                    { "object": "text", "leaves": [{ "object": "leaf", "text": "Title", "marks": [] }] }
                ] },
                { "object": "block", "type": "paragraph", "nodes": [
                    { "object": "text", "leaves": [
                        { "object": "leaf", "text": "see ", "marks": [] },
                        { "object": "leaf", "text": "this ", "marks": [{ "object": "mark", "type": "bold" }] },
                        { "object": "leaf", "text": "red", "marks": [{ "object": "mark", "type": "color", "data": { "text": "red", "background": "default" } }] }
                    ] },
                    { "object": "inline", "type": "link", "data": { "ref": { "kind": "page", "page": "p1" } }, "nodes": [
                        { "object": "text", "leaves": [{ "object": "leaf", "text": "page", "marks": [] }] }
                    ] },
                    { "object": "inline", "type": "emoji", "data": { "code": "1f600" }, "isVoid": true }
                ] },
                { "object": "block", "type": "hint", "data": { "style": "info" }, "nodes": [
                    { "object": "block", "type": "paragraph", "nodes": [] }
                ] }
            ]
        });
        assert_eq!(
            document_to_markdown(&doc).unwrap(),
            "## Title\n\nsee **this** red[page](/pages/p1)😀\n\n{% hint style=\"info\" %}\n{% endhint %}\n"
        );
    }

    #[test]
    fn documents_that_are_not_documents_are_refused() {
        let paragraph_in = |node: Value| json!({ "object": "document", "data": {}, "nodes": [node] });
        assert!(error(json!([])).contains("JSON object"));
        assert!(error(json!({ "nodes": [] })).starts_with("object:"));
        assert!(error(json!({ "object": "page", "nodes": [] })).starts_with("object:"));
        assert!(error(json!({ "object": "document" })).starts_with("nodes:"));
        assert!(error(json!({ "object": "document", "data": 1, "nodes": [] })).starts_with("data:"));
        assert_eq!(
            error(paragraph_in(
                json!({ "object": "block", "type": "swagger", "isVoid": true, "data": {} })
            )),
            "nodes[0]: unsupported block type `swagger`"
        );
        assert_eq!(
            error(paragraph_in(json!({ "object": "block", "type": "nope", "nodes": [] }))),
            "nodes[0]: unsupported block type `nope`"
        );
        assert!(error(paragraph_in(json!({ "object": "text", "leaves": [] }))).contains("expected a block"));
        assert!(error(paragraph_in(json!({ "object": "block", "nodes": [] }))).contains("string `type`"));
        assert!(
            error(paragraph_in(json!({ "object": "block", "type": "paragraph" }))).contains("`nodes` must be an array")
        );
        // A block inside a paragraph.
        let nested = error(paragraph_in(json!({ "object": "block", "type": "paragraph", "nodes": [
            { "object": "block", "type": "paragraph", "nodes": [] }
        ] })));
        assert_eq!(nested, "nodes[0].nodes[0]: expected a text or inline node");
        let leafless = error(paragraph_in(json!({ "object": "block", "type": "paragraph", "nodes": [
            { "object": "text", "leaves": [{ "object": "leaf", "marks": [] }] }
        ] })));
        assert_eq!(leafless, "nodes[0].nodes[0].leaves[0]: a leaf needs a string `text`");
        assert!(
            error(paragraph_in(
                json!({ "object": "block", "type": "list-unordered", "nodes": [
                { "object": "block", "type": "paragraph", "nodes": [] }
            ] })
            ))
            .contains("list-item")
        );
        assert!(
            error(paragraph_in(
                json!({ "object": "block", "type": "hint", "data": { "style": "pink" }, "nodes": [] })
            ))
            .contains("hint style")
        );
        assert!(error(paragraph_in(json!({ "object": "block", "type": "hint", "nodes": [] }))).contains("data.style"));
        assert!(
            error(paragraph_in(json!({ "object": "block", "type": "paragraph", "nodes": [
                { "object": "inline", "type": "link", "data": { "ref": { "kind": "user", "user": "u" } }, "nodes": [] }
            ] })))
            .contains("unsupported reference kind `user`")
        );
        assert!(
            error(paragraph_in(json!({ "object": "block", "type": "images", "data": {}, "nodes": [
                { "object": "block", "type": "image", "data": { "ref": { "kind": "page", "page": "p" } }, "fragments": [] }
            ] })))
            .contains("`url` or a `file`")
        );
        assert!(
            error(paragraph_in(
                json!({ "object": "block", "type": "code", "data": {}, "nodes": [
            { "object": "block", "type": "paragraph", "nodes": [] }
        ] })
            ))
            .contains("code-line")
        );
        assert!(
            error(paragraph_in(
                json!({ "object": "block", "type": "math", "data": {}, "isVoid": true })
            ))
            .contains("formula")
        );
    }

    /// The official spec: `QUIRE_OPENAPI_SPEC`, or the npm package unpacked
    /// under the workspace's `target/tmp` (fetched with `npm pack` once).
    fn official_spec() -> Value {
        use std::path::PathBuf;
        use std::process::Command;
        let path = match std::env::var("QUIRE_OPENAPI_SPEC") {
            Ok(path) => PathBuf::from(path),
            Err(_) => {
                let dir = PathBuf::from(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../target/tmp/gitbook-api-0.202.0"
                ));
                let spec = dir.join("package/spec/openapi.json");
                if !spec.exists() {
                    std::fs::create_dir_all(&dir).expect("create the spec directory");
                    let pack = Command::new("npm")
                        .args(["pack", "@gitbook/api@0.202.0", "--silent", "--pack-destination"])
                        .arg(&dir)
                        .status()
                        .expect("run npm pack (npm is needed to fetch the official spec)");
                    assert!(pack.success(), "npm pack @gitbook/api@0.202.0 failed");
                    let untar = Command::new("tar")
                        .arg("xzf")
                        .arg(dir.join("gitbook-api-0.202.0.tgz"))
                        .arg("-C")
                        .arg(&dir)
                        .status()
                        .expect("run tar");
                    assert!(untar.success(), "could not unpack the spec");
                }
                spec
            }
        };
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        serde_json::from_str(&text).expect("the spec is JSON")
    }

    #[test]
    fn documents_satisfy_the_official_schema() {
        let spec = official_spec();
        let schema = json!({
            "$ref": "#/components/schemas/JSONDocument",
            "components": spec["components"],
        });
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .expect("the JSONDocument schema compiles");
        let doc = markdown_to_document(RICH);
        let kinds: HashSet<&str> = doc["nodes"].as_array().unwrap().iter().map(node_type).collect();
        for kind in [
            "heading-1",
            "list-ordered",
            "list-tasks",
            "blockquote",
            "code",
            "divider",
            "images",
            "hint",
            "tabs",
            "content-ref",
            "embed",
            "math",
            "table",
            "paragraph",
        ] {
            assert!(kinds.contains(kind), "the sample lacks {kind}");
        }
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{} schema errors:\n{}",
            errors.len(),
            errors.join("\n")
        );
    }
}
