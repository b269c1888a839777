//! GitBook's block tags in markdown: a line that is exactly one
//! `{% name key="value" … %}` tag, the `{% endname %}` line closing a paired
//! tag, `$$` formula lines, and markdown split at them into [`Segment`]s.
//!
//! Tags are recognised when they start a line outside fenced code; what is
//! between a paired tag and its end is split the same way (GitBook blocks
//! nest). A tag that is not one of ours, or whose end is missing, stays text.

/// Markdown split at GitBook blocks.
#[derive(Debug)]
pub(super) enum Segment {
    /// Plain markdown, read with CommonMark.
    Markdown(String),
    Hint {
        style: String,
        body: Vec<Segment>,
    },
    /// `{% tab %}` titles and bodies.
    Tabs(Vec<(String, Vec<Segment>)>),
    /// `<details>` (`open` for `<details open>`), the markdown of its
    /// `<summary>` and its body.
    Expandable {
        open: bool,
        title: String,
        body: Vec<Segment>,
    },
    /// `{% code %}` attributes and the markdown they wrap.
    Code(Vec<(String, String)>, String),
    ContentRef(String),
    Include(String),
    Embed(String),
    /// An OpenAPI operation: spec, path, method.
    OpenApi(String, String, String),
    /// OpenAPI schemas: spec, names, grouped.
    OpenApiSchemas(String, Vec<String>, bool),
    Math(String),
    /// A GitBook container block (`{% stepper %}`, `{% step %}`…).
    Container {
        kind: ContainerKind,
        attrs: Vec<(String, String)>,
        body: Vec<Segment>,
    },
    /// A tag we do not know: its text becomes a paragraph.
    Raw(String),
}

use super::super::model::ContainerKind;

/// A line that is exactly one `{% name … %}` tag.
pub(super) struct TagLine {
    pub name: String,
    /// The quoted argument after the name (`{% include "path" %}`).
    pub argument: Option<String>,
    pub attrs: Vec<(String, String)>,
    /// Everything after the name, as written (an `if`'s condition).
    pub rest: String,
}

impl TagLine {
    pub fn parse(line: &str) -> Option<TagLine> {
        let inner = line.trim_end().strip_prefix("{%")?.strip_suffix("%}")?;
        if inner.contains("%}") {
            return None;
        }
        let inner = inner.trim();
        let (name, rest) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        if name.is_empty() {
            return None;
        }
        let rest = rest.trim_start();
        let (argument, rest) = match rest.chars().next() {
            Some('"' | '\'') => {
                let (value, rest) = attr_value(rest);
                (Some(value), rest)
            }
            _ => (None, rest),
        };
        Some(TagLine {
            name: name.to_owned(),
            argument,
            attrs: parse_attrs(rest),
            rest: inner[name.len()..].to_owned(),
        })
    }

    pub fn attr(&self, key: &str) -> Option<&str> {
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

/// A tag attribute value, double-quoted and escaped; line breaks become
/// spaces (a tag is one line).
pub(crate) fn quote_attr(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            // `%}` would end the tag.
            '}' if out.ends_with('%') => out.push_str("\\}"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Follows fenced code so that tags inside code stay code: true when `line`
/// opens, continues or closes a fence. A fence may open after quote and
/// list markers (`> - ````); it closes after quote markers and indentation.
pub(super) fn in_fence(fence: &mut Option<(char, usize)>, line: &str) -> bool {
    fn run(t: &str) -> Option<(char, usize)> {
        let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let n = t.chars().take_while(|x| *x == c).count();
        (n >= 3).then_some((c, n))
    }
    let t = match fence {
        Some(_) => strip_quote_markers(line),
        None => strip_container_markers(line),
    };
    match *fence {
        Some((c, n)) => {
            if run(t).is_some_and(|(c2, n2)| c2 == c && n2 >= n && is_blank(&t[n2..])) {
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

/// Whether `s` is blank to markdown: spaces, tabs and line ends only.
pub(super) fn is_blank(s: &str) -> bool {
    s.trim_matches([' ', '\t', '\r', '\n']).is_empty()
}

/// `line` without its indentation and quote markers.
fn strip_quote_markers(line: &str) -> &str {
    let mut t = line.trim_start();
    while let Some(rest) = t.strip_prefix('>') {
        t = rest.trim_start();
    }
    t
}

/// `line` without its indentation, quote markers and list markers.
fn strip_container_markers(line: &str) -> &str {
    let mut t = line.trim_start();
    loop {
        let rest = if let Some(rest) = t.strip_prefix('>') {
            rest
        } else if let Some(rest) = t.strip_prefix(['-', '*', '+']).filter(|r| r.starts_with([' ', '\t'])) {
            rest
        } else {
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            match t[digits..].strip_prefix(['.', ')']) {
                Some(rest) if (1..=9).contains(&digits) && rest.starts_with([' ', '\t']) => rest,
                _ => return t,
            }
        };
        t = rest.trim_start();
    }
}

/// The line closing the tag opened on `lines[start]`, nested tags of the
/// same name counted.
pub(super) fn find_end(lines: &[&str], start: usize, name: &str) -> Option<usize> {
    let mut depth = 1;
    let mut fence = None;
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        if in_fence(&mut fence, line) || !line.starts_with("{%") {
            continue;
        }
        match TagLine::parse(line) {
            Some(tag) if tag.name == name => depth += 1,
            Some(tag) if tag.name.strip_prefix("end") == Some(name) => {
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

/// How deep hints and tabs nest; deeper tags stay text (the schema lets a
/// tab hold a hint, nothing deeper).
const MAX_NESTING: usize = 8;

/// `src` split at the GitBook blocks starting its lines, inside `depth`
/// hints and tabs.
pub(super) fn segments(src: &str, depth: usize) -> Vec<Segment> {
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    let mut out = Vec::new();
    let mut chunk = String::new();
    let mut fence = None;
    let mut i = 0;
    while i < lines.len() {
        // `in_fence` runs first on every line: it follows the fences.
        if !in_fence(&mut fence, lines[i])
            && let Some((segment, next)) = special_segment(&lines, i, depth)
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
    if !is_blank(chunk) {
        out.push(Segment::Markdown(std::mem::take(chunk)));
    }
    chunk.clear();
}

/// A GitBook block starting at `lines[i]`, and the line after it.
fn special_segment(lines: &[&str], i: usize, depth: usize) -> Option<(Segment, usize)> {
    let line = lines[i];
    if line.starts_with("$$") {
        return math_segment(lines, i);
    }
    if line.starts_with("<details") {
        return details_segment(lines, i, depth);
    }
    if !line.starts_with("{%") {
        return None;
    }
    let line = line.trim_end();
    let tag = TagLine::parse(line)?;
    let paired = match tag.name.as_str() {
        "hint" | "tabs" => depth < MAX_NESTING,
        "code" => true,
        "content-ref" => tag.attr("url").is_some(),
        "embed" => {
            if let Some(url) = tag.attr("url") {
                // GitBook closes an embed with a caption: `{% endembed %}`.
                let next = find_end(lines, i, "embed").map_or(i + 1, |end| end + 1);
                return Some((Segment::Embed(url.to_owned()), next));
            }
            false
        }
        // GitBook writes a file without a caption as one tag.
        "file" if find_end(lines, i, "file").is_none() => {
            let segment = Segment::Container {
                kind: ContainerKind::File,
                attrs: tag.attrs,
                body: Vec::new(),
            };
            return Some((segment, i + 1));
        }
        name if ContainerKind::parse(name).is_some() => depth < MAX_NESTING,

        "openapi-operation" => {
            if let (Some(spec), Some(path), Some(method)) = (tag.attr("spec"), tag.attr("path"), tag.attr("method")) {
                // GitBook's editor closes the block, with a link to the spec
                // inside for other readers: the block is the operation.
                let next = find_end(lines, i, "openapi-operation").map_or(i + 1, |end| end + 1);
                return Some((
                    Segment::OpenApi(spec.to_owned(), path.to_owned(), method.to_ascii_lowercase()),
                    next,
                ));
            }
            false
        }
        "openapi-schemas" => {
            if let (Some(spec), Some(schemas)) = (tag.attr("spec"), tag.attr("schemas")) {
                // GitBook closes the block around a caption.
                let next = find_end(lines, i, "openapi-schemas").map_or(i + 1, |end| end + 1);
                let names = schemas
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                let grouped = tag.attr("grouped") != Some("false");
                return Some((Segment::OpenApiSchemas(spec.to_owned(), names, grouped), next));
            }
            false
        }
        // GitBook's legacy blocks name the spec by `src` and wrap a link.
        "openapi" | "swagger" => {
            tag.attr("src").is_some() && tag.attr("path").is_some() && tag.attr("method").is_some()
        }
        "include" => {
            if let (Some(path), true) = (&tag.argument, tag.attrs.is_empty()) {
                return Some((Segment::Include(path.clone()), i + 1));
            }
            false
        }
        _ => false,
    };
    if let Some(end) = paired.then(|| find_end(lines, i, &tag.name)).flatten() {
        let body = lines[i + 1..end].concat();
        return Some((paired_segment(tag, body, depth + 1), end + 1));
    }
    Some((Segment::Raw(line.to_owned()), i + 1))
}

fn paired_segment(tag: TagLine, body: String, depth: usize) -> Segment {
    if let Some(kind) = ContainerKind::parse(&tag.name) {
        let attrs = match kind {
            ContainerKind::If => vec![("condition".to_owned(), tag.rest.trim().to_owned())],
            _ => tag.attrs,
        };
        return Segment::Container {
            kind,
            attrs,
            body: segments(&body, depth),
        };
    }
    match tag.name.as_str() {
        "hint" => Segment::Hint {
            style: tag.attr("style").unwrap_or("info").to_owned(),
            body: segments(&body, depth),
        },
        "tabs" => Segment::Tabs(tab_segments(&body, depth)),
        "code" => Segment::Code(tag.attrs, body),
        "openapi" | "swagger" => Segment::OpenApi(
            tag.attr("src").unwrap_or_default().to_owned(),
            tag.attr("path").unwrap_or_default().to_owned(),
            tag.attr("method").unwrap_or_default().to_ascii_lowercase(),
        ),
        _ => Segment::ContentRef(tag.attr("url").unwrap_or_default().to_owned()),
    }
}

/// The opening line of an expandable block: `<details>` or
/// `<details open>`, alone on its line; `Some(open)`.
fn details_open(line: &str) -> Option<bool> {
    match line.trim_end() {
        "<details>" => Some(false),
        "<details open>" => Some(true),
        _ => None,
    }
}

/// `<details>` up to its `</details>` line (nested ones counted, fenced
/// code skipped), with the `<summary>…</summary>` line that starts its body
/// (after blank lines) as its title. Without its end it stays text.
fn details_segment(lines: &[&str], i: usize, depth: usize) -> Option<(Segment, usize)> {
    let open = details_open(lines[i])?;
    if depth >= MAX_NESTING {
        return None;
    }
    let mut nested = 1;
    let mut fence = None;
    let mut end = None;
    for (j, line) in lines.iter().enumerate().skip(i + 1) {
        if in_fence(&mut fence, line) {
            continue;
        }
        if details_open(line).is_some() {
            nested += 1;
        } else if line.trim_end() == "</details>" {
            nested -= 1;
            if nested == 0 {
                end = Some(j);
                break;
            }
        }
    }
    let end = end?;
    let mut start = i + 1;
    while start < end && is_blank(lines[start]) {
        start += 1;
    }
    let mut title = String::new();
    if let Some(inner) = lines
        .get(start)
        .filter(|_| start < end)
        .and_then(|l| l.trim_end().strip_prefix("<summary>"))
        .and_then(|l| l.strip_suffix("</summary>"))
    {
        title = inner.to_owned();
        start += 1;
    }
    let body = segments(&lines[start..end].concat(), depth + 1);
    Some((Segment::Expandable { open, title, body }, end + 1))
}

/// `$$` on its own line up to the next `$$` line, or `$$formula$$` alone on
/// a line that starts a paragraph (after a text line, it is the paragraph's
/// inline formula).
fn math_segment(lines: &[&str], i: usize) -> Option<(Segment, usize)> {
    let line = lines[i].trim_end();
    if line == "$$" {
        let end = (i + 1..lines.len()).find(|j| lines[*j].trim_end() == "$$")?;
        let formula = lines[i + 1..end].concat();
        return Some((Segment::Math(formula.trim_end().to_owned()), end + 1));
    }
    if i > 0 && !is_blank(lines[i - 1]) {
        return None;
    }
    let inner = line.strip_prefix("$$")?.strip_suffix("$$")?;
    (!inner.trim().is_empty() && !inner.contains("$$")).then(|| (Segment::Math(inner.trim().to_owned()), i + 1))
}

/// The `{% tab %}` items of a `{% tabs %}` body. Other text between them is
/// kept as an untitled tab.
fn tab_segments(body: &str, depth: usize) -> Vec<(String, Vec<Segment>)> {
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
            push_stray_tab(&mut stray, &mut tabs, depth);
            let title = tag.attr("title").unwrap_or_default().to_owned();
            tabs.push((title, segments(&lines[i + 1..end].concat(), depth)));
            i = end + 1;
            continue;
        }
        stray.push_str(lines[i]);
        i += 1;
    }
    push_stray_tab(&mut stray, &mut tabs, depth);
    tabs
}

fn push_stray_tab(stray: &mut String, tabs: &mut Vec<(String, Vec<Segment>)>, depth: usize) {
    if !is_blank(stray) {
        tabs.push((String::new(), segments(stray, depth)));
    }
    stray.clear();
}
