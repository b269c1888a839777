//! Model to markdown: a [`Document`] written as Quire's canonical
//! GitBook-flavoured markdown, which reads back as the same document.
//!
//! Blocks are separated by blank lines. GitBook tags are only read back at
//! the top level and inside other GitBook blocks, so inside lists and quotes
//! a hint is written as its content, tabs as their bold titles and content,
//! embeds and content references as links. Inline content is written by
//! [`inline`].

mod inline;

use super::fit::{Place, allows, degrade};
use super::markdown_reader::quote_attr;
use super::model::{
    Block, CodeBlock, ColumnAlign, Container, ContainerKind, Document, Expandable, Heading, Hint, Image, Inline, List,
    ListKind, Tab, Table, TableCell, anchor_id, is_anchor_id,
};
use super::text::plain_text;
use inline::{InlineWriter, destination, longest_run};

impl Document {
    /// The document as canonical markdown: front matter (when there is
    /// some), then the blocks; empty for an empty document.
    pub fn to_markdown(&self) -> String {
        let body = blocks_md(&self.blocks, Context::TOP);
        let mut out = String::with_capacity(body.len() + 64);
        if let Some(front_matter) = &self.front_matter {
            out.push_str("---\n");
            out.push_str(front_matter);
            if !front_matter.is_empty() && !front_matter.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("---\n");
            if !body.is_empty() {
                out.push('\n');
            }
        }
        if !body.is_empty() {
            out.push_str(&body);
            out.push('\n');
        }
        out
    }
}

/// Where blocks are written: the place the reader will find them in (which
/// decides what it lets them be) and whether it reads GitBook tags there.
#[derive(Clone, Copy)]
struct Context {
    place: Place,
    tags: bool,
}

impl Context {
    const TOP: Context = Context {
        place: Place::Top,
        tags: true,
    };
    const QUOTE: Context = Context {
        place: Place::Quote,
        tags: false,
    };
    const ITEM: Context = Context {
        place: Place::ListItem,
        tags: false,
    };

    /// Inside a GitBook container (`place`) written in this context: its
    /// content stays here when tags are not read.
    fn inside(self, place: Place) -> Context {
        if self.tags { Context { place, tags: true } } else { self }
    }
}

/// Blocks separated by blank lines.
fn blocks_md(blocks: &[Block], context: Context) -> String {
    blocks_md_first(blocks, context, None).0
}

/// [`blocks_md`] after markdown ending with a list marked `after` (see
/// [`list_md`]), and the first block written (blocks may write nothing).
fn blocks_md_first(blocks: &[Block], context: Context, after: Option<char>) -> (String, Option<&Block>) {
    let mut out = String::new();
    let mut first = None;
    let mut previous: Option<&Block> = None;
    let mut previous_marker = after;
    for (i, block) in blocks.iter().enumerate() {
        let mut markdown = block_md(block, context, previous_marker);
        if context.place == Place::ListItem
            && let Block::Quote(quoted) = block
            && ends_with_empty_item(&markdown)
            && blocks[i + 1..].iter().any(|b| !block_md(b, context, None).is_empty())
        {
            // pulldown-cmark ends the enclosing item at a blank line after an
            // empty item closing a quote: that item goes.
            let mut quoted = quoted.clone();
            while drop_last_empty_item(&mut quoted) {}
            markdown = block_md(&Block::Quote(quoted), context, previous_marker);
        }
        if markdown.is_empty() {
            continue;
        }
        if out.is_empty() {
            first = Some(block);
        } else {
            // An item's text and its sub-list stay together (a tight list).
            let tight = context.place == Place::ListItem
                && previous.is_some_and(|b| writes_text(b, context, false))
                && interrupts_paragraph(&markdown);
            out.push_str(if tight { "\n" } else { "\n\n" });
        }
        previous_marker = last_list_marker(&markdown);
        out.push_str(&markdown);
        previous = Some(block);
    }
    (out, first)
}

/// The marker of the list `markdown` ends with (`-`, `*`, `.` or `)`), if
/// it ends with one: its last unindented line starts with a marker.
fn last_list_marker(markdown: &str) -> Option<char> {
    let line = markdown
        .rsplit('\n')
        .find(|line| !line.is_empty() && !line.starts_with(' '))?;
    let marker_end = |rest: &str| rest.is_empty() || rest.starts_with(' ');
    let first = line.chars().next()?;
    if matches!(first, '-' | '*' | '+') && marker_end(&line[1..]) {
        return Some(first);
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let delimiter = line[digits..].chars().next().filter(|c| matches!(c, '.' | ')'))?;
    (digits > 0 && marker_end(&line[digits + 1..])).then_some(delimiter)
}

/// Whether the last line of `markdown` is a list marker alone (quoted).
fn ends_with_empty_item(markdown: &str) -> bool {
    let last = markdown.rsplit('\n').next().unwrap_or("");
    let rest = last.trim_start_matches(['>', ' ']);
    let rest = rest
        .strip_suffix(" [ ]")
        .or_else(|| rest.strip_suffix(" [x]"))
        .unwrap_or(rest);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    matches!(rest, "-" | "*" | "+") || (digits > 0 && matches!(&rest[digits..], "." | ")"))
}

/// Drops the empty item ending the last list in `blocks` (nested lists and
/// quotes included); false when there is none.
fn drop_last_empty_item(blocks: &mut Vec<Block>) -> bool {
    // Blocks that write nothing are not there for the reader.
    while blocks
        .last()
        .is_some_and(|b| block_md(b, Context::ITEM, None).is_empty())
    {
        blocks.pop();
    }
    match blocks.last_mut() {
        Some(Block::List(list)) => match list.items.last_mut() {
            Some(item) if blocks_md(&item.blocks, Context::ITEM).is_empty() => {
                list.items.pop();
                if list.items.is_empty() {
                    blocks.pop();
                }
                true
            }
            Some(item) => drop_last_empty_item(&mut item.blocks),
            None => false,
        },
        Some(Block::Quote(quoted)) => drop_last_empty_item(quoted),
        _ => false,
    }
}

/// Whether `markdown` starts with a list that may start right below a
/// paragraph line: a first item with content, numbered 1 if numbered.
fn interrupts_paragraph(markdown: &str) -> bool {
    let line = markdown.split('\n').next().unwrap_or("");
    let rest = match line.chars().next() {
        Some('-' | '*' | '+') => &line[1..],
        _ => match line.strip_prefix('1') {
            Some(rest) => rest.strip_prefix(['.', ')']).unwrap_or(""),
            None => "",
        },
    };
    rest.len() > 1 && rest.starts_with(' ')
}

/// A block's markdown, after markdown ending with a list marked `after`.
fn block_md(block: &Block, context: Context, after: Option<char>) -> String {
    match block {
        Block::Paragraph(content) => paragraph_md(content, context),
        Block::Heading(heading) => {
            let hashes = "#".repeat(usize::from(heading.level.depth()));
            let text = format!("{hashes} {}", heading_text(&heading.content));
            format!("{}{}", text.trim_end(), heading_anchor(heading))
        }
        Block::List(list) => list_md(list, after),
        Block::Divider => "***".to_owned(),
        Block::Quote(blocks) => prefix_lines(&blocks_md(blocks, Context::QUOTE), "> ", ">"),
        Block::Hint(hint) => hint_md(hint, context, after),
        Block::Images(images) => images_md(images),
        Block::Code(code) => code_md(code, context.tags),
        Block::Math { formula } => math_md(formula, context),
        Block::Html(html) => html.clone(),
        Block::Container(container) => container_md(container, context, after),
        Block::Tabs(tabs) => tabs_md(tabs, context, after),
        Block::Expandable(expandable) => expandable_md(expandable, context, after),
        Block::ContentRef { target } => {
            let url = target.to_url();
            if context.tags {
                format!(
                    "{{% content-ref url={} %}}\n{}\n{{% endcontent-ref %}}",
                    quote_attr(&url),
                    labelled_link_md(content_ref_label(&url), &url)
                )
            } else {
                link_md(&url)
            }
        }
        Block::Include { path } => {
            let tag = format!("{{% include {} %}}", quote_attr(path));
            if context.tags {
                tag
            } else {
                let mut writer = InlineWriter::new(false);
                writer.text(&tag);
                writer.finish()
            }
        }
        Block::Embed { url } => {
            if context.tags {
                format!("{{% embed url={} %}}", quote_attr(url))
            } else {
                link_md(url)
            }
        }
        Block::Table(table) => table_md(table),
        Block::OpenApiSchemas(pointer) => {
            if context.tags {
                let grouped = if pointer.grouped { "" } else { " grouped=\"false\"" };
                format!(
                    "{{% openapi-schemas spec={} schemas={}{grouped} %}}\n{{% endopenapi-schemas %}}",
                    quote_attr(&pointer.spec),
                    quote_attr(&pointer.schemas.join(","))
                )
            } else {
                blocks_md_first(&degrade(block.clone()), context, after).0
            }
        }
        Block::OpenApiOperation(op) => {
            if context.tags {
                format!(
                    "{{% openapi-operation spec={} path={} method={} %}}",
                    quote_attr(&op.spec),
                    quote_attr(&op.path),
                    quote_attr(&op.method)
                )
            } else {
                blocks_md_first(&degrade(block.clone()), context, after).0
            }
        }
    }
}

/// Inline content as a heading's text (also an expandable's summary, which
/// is read as one).
/// The anchor GitBook appends to a heading whose id is not the one its
/// text gives (` <a href="#id" id="id"></a>`), else nothing.
fn heading_anchor(heading: &Heading) -> String {
    let derived = anchor_id(&plain_text(&heading.content));
    let numbered = |id: &str| {
        id.strip_prefix(derived.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if heading.id.is_empty() || heading.id == derived || numbered(&heading.id) || !is_anchor_id(&heading.id) {
        return String::new();
    }
    format!(" <a href=\"#{0}\" id=\"{0}\"></a>", heading.id)
}

fn heading_text(content: &[Inline]) -> String {
    let mut writer = InlineWriter::heading();
    writer.inlines(content);
    // The reader trims a heading's text, Unicode spaces included.
    let mut text = writer.finish().trim_start_matches([' ', '\t']).trim_end().to_owned();
    // A trailing `#` run would be read as the closing sequence.
    let before_run = text.trim_end_matches('#');
    let backslashes = before_run.len() - before_run.trim_end_matches('\\').len();
    if before_run.len() < text.len() && backslashes.is_multiple_of(2) {
        text.insert(before_run.len(), '\\');
    }
    text
}

fn inline_md(content: &[Inline]) -> String {
    let mut writer = InlineWriter::new(false);
    writer.inlines(content);
    writer.finish()
}

/// A paragraph. One holding only images is written as an images block (an
/// image a line), one holding only a formula as a display formula where
/// one may stand: that is how they read back.
fn paragraph_md(content: &[Inline], context: Context) -> String {
    let is_blank = |inline: &Inline| matches!(inline, Inline::Text { text, .. } if text.trim().is_empty());
    let mut visible = content.iter().filter(|inline| !is_blank(inline));
    let first = visible.next();
    if first.is_some() && content.iter().all(|i| matches!(i, Inline::Image(_)) || is_blank(i)) {
        let images: Vec<&Image> = content
            .iter()
            .filter_map(|inline| match inline {
                Inline::Image(image) => Some(image),
                _ => None,
            })
            .collect();
        return images
            .iter()
            .map(|i| inline::image_md(i, false))
            .collect::<Vec<_>>()
            .join("\n");
    }
    if let (Some(Inline::Math { formula }), None) = (first, visible.next()) {
        if allows(context.place, &Block::Math { formula: String::new() }) {
            return math_md(formula, context);
        }
        // Read back as a display formula, trimmed, then made inline again.
        let mut writer = InlineWriter::new(false);
        writer.formula(formula.replace(['\n', '\r'], " ").trim());
        return writer.finish();
    }
    inline_md(content)
}

/// `[url](url)`, a link showing its own target.
fn link_md(url: &str) -> String {
    labelled_link_md(url, url)
}

fn labelled_link_md(label: &str, url: &str) -> String {
    let mut writer = InlineWriter::within_line();
    writer.text(label);
    format!("[{}]({})", writer.finish(), destination(url, false))
}

/// The text GitBook gives a content reference's link: the file (or folder)
/// it points to, `cards-and-tables.md` for `../blocks/cards-and-tables.md`
/// and `.` for `./`;
/// a full URL stays whole.
fn content_ref_label(url: &str) -> &str {
    if url.contains("://") {
        return url;
    }
    let path = url.split(['#', '?']).next().unwrap_or(url).trim_end_matches('/');
    match path.rsplit('/').next() {
        Some(last) if !last.is_empty() => last,
        _ => url,
    }
}

/// A display formula between `$$` lines. Where tags are not read (a list
/// item, a quote) those lines are a paragraph's, read as a `$$…$$` formula
/// alone in it: a formula whose lines could end that paragraph or lose
/// their spaces is written on one line.
fn math_md(formula: &str, context: Context) -> String {
    let formula = formula.trim_end();
    let line_ok = |line: &str| {
        let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let numbered = digits > 0 && line[digits..].starts_with(['.', ')']);
        line.trim() == line
            && !numbered
            && line
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || "\\{}()^&,.;:'\"!?/[]".contains(c))
    };
    let as_paragraph = || formula.contains('\n') && inline::inline_formula_ok(formula) && formula.lines().all(line_ok);
    if context.tags || as_paragraph() {
        return format!("$$\n{formula}\n$$");
    }
    let mut writer = InlineWriter::new(false);
    writer.formula(formula.trim());
    writer.finish()
}

/// A list. Right after another list of its family (bullets or numbers),
/// even one ending a hint written as its content, it would read back as
/// part of that list: it uses the other marker (`*`, or `)`).
fn list_md(list: &List, after: Option<char>) -> String {
    let numbered = matches!(list.kind, ListKind::Numbered { .. });
    let alternate = after == Some(if numbered { '.' } else { '-' });
    let bullet = if alternate { "*" } else { "-" };
    // Markdown numbers have at most nine digits.
    let last_start = 999_999_999u64.saturating_sub(list.items.len() as u64);
    let mut out = Vec::with_capacity(list.items.len());
    for (i, item) in list.items.iter().enumerate() {
        let (body, first) = blocks_md_first(&item.blocks, Context::ITEM, None);
        let (marker, width) = match list.kind {
            ListKind::Numbered { start } => {
                let number = start.min(last_start) + i as u64;
                let marker = format!("{number}{}", if alternate { ')' } else { '.' });
                let width = marker.len() + 1;
                (marker, width)
            }
            ListKind::Tasks => {
                let mark = if item.checked { 'x' } else { ' ' };
                (format!("{bullet} [{mark}]"), 2)
            }
            ListKind::Bulleted => (bullet.to_owned(), 2),
        };
        // A task's check box is read in text only: anything else starts on
        // the next line. So does a first line that would make the marker
        // line a thematic break (`- - -`).
        let first_line = body.split('\n').next().unwrap_or("");
        let next_line = (list.kind == ListKind::Tasks && !first.is_none_or(|b| writes_text(b, Context::ITEM, true)))
            || (!numbered && is_thematic_break(&format!("{marker} {first_line}")));
        out.push(list_item_md(&marker, width, &body, next_line));
    }
    out.join("\n")
}

/// Whether `block`'s markdown starts (`first`) or ends with a paragraph's
/// text: a task's first line may only hold text, and only text keeps an
/// item's sub-list tight.
fn writes_text(block: &Block, context: Context, first: bool) -> bool {
    let edge_of = |blocks: &[Block]| {
        let mut written = blocks.iter().filter(|b| !block_md(b, context, None).is_empty());
        let edge = if first { written.next() } else { written.next_back() };
        edge.is_none_or(|b| writes_text(b, context, first))
    };
    match block {
        Block::Paragraph(_) | Block::Images(_) => true,
        Block::Math { .. }
        | Block::ContentRef { .. }
        | Block::Include { .. }
        | Block::Embed { .. }
        | Block::OpenApiOperation(_)
        | Block::OpenApiSchemas(_) => context.place == Place::ListItem || !context.tags,
        Block::Hint(hint) if !context.tags => edge_of(&hint.blocks),
        Block::Tabs(tabs) if !context.tags => edge_of(&degrade(Block::Tabs(tabs.clone()))),
        Block::Expandable(e) if !context.tags => edge_of(&degrade(Block::Expandable(e.clone()))),
        _ => false,
    }
}

/// Whether `line` reads as a thematic break: three or more of one of `-`,
/// `*`, `_`, with spaces and tabs only.
fn is_thematic_break(line: &str) -> bool {
    let line = line.trim_start_matches(' ');
    let Some(c) = line.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    line.chars().all(|x| x == c || x == ' ' || x == '\t') && line.chars().filter(|x| *x == c).count() >= 3
}

/// `marker body`, the body's following lines indented to the content; the
/// body starts on the marker's line unless `next_line`.
fn list_item_md(marker: &str, width: usize, body: &str, next_line: bool) -> String {
    let mut lines = body.split('\n');
    let mut out = marker.to_owned();
    if !next_line {
        match lines.next() {
            Some(first) if !first.is_empty() => {
                out.push(' ');
                out.push_str(first);
            }
            _ => {}
        }
    }
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

fn hint_md(hint: &Hint, context: Context, after: Option<char>) -> String {
    if !context.tags {
        return blocks_md_first(&hint.blocks, context, after).0;
    }
    let body = blocks_md(&hint.blocks, context.inside(Place::Hint));
    wrap_tag(
        &format!("hint style={}", quote_attr(hint.style.as_str())),
        "endhint",
        &body,
    )
}

/// A GitBook container as its tags (`{% step %}` … `{% endstep %}`);
/// outside the places tags are read, the blocks it degrades to.
fn container_md(container: &Container, context: Context, after: Option<char>) -> String {
    if !context.tags {
        let blocks = degrade(Block::Container(container.clone()));
        return blocks_md_first(&blocks, context, after).0;
    }
    let body = blocks_md(&container.blocks, context.inside(Place::Container));
    let tag = container.kind.tag();
    let mut open = tag.to_owned();
    if container.kind == ContainerKind::If {
        open.push(' ');
        open.push_str(container.attr("condition").unwrap_or_default());
    } else {
        for (key, value) in &container.attrs {
            open.push_str(&format!(" {key}={}", quote_attr(value)));
        }
    }
    wrap_tag(&open, &format!("end{tag}"), &body)
}

fn wrap_tag(open: &str, close: &str, body: &str) -> String {
    if body.is_empty() {
        format!("{{% {open} %}}\n{{% {close} %}}")
    } else {
        format!("{{% {open} %}}\n{body}\n{{% {close} %}}")
    }
}

/// Tabs; outside the places tags are read, what they degrade to (each tab
/// its bold title and content, see `fit`).
fn tabs_md(tabs: &[Tab], context: Context, after: Option<char>) -> String {
    if !context.tags {
        let blocks = degrade(Block::Tabs(tabs.to_vec()));
        return blocks_md_first(&blocks, context, after).0;
    }
    let inner = context.inside(Place::Tab);
    let parts: Vec<String> = tabs
        .iter()
        .map(|tab| {
            let body = blocks_md(&tab.blocks, inner);
            wrap_tag(&format!("tab title={}", quote_attr(&tab.title)), "endtab", &body)
        })
        .collect();
    wrap_tag("tabs", "endtabs", &parts.join("\n\n"))
}

/// An expandable as `<details>` with its title in `<summary>`; outside the
/// places tags are read, what it degrades to (its bold title and content).
fn expandable_md(expandable: &Expandable, context: Context, after: Option<char>) -> String {
    if !context.tags {
        let blocks = degrade(Block::Expandable(expandable.clone()));
        return blocks_md_first(&blocks, context, after).0;
    }
    let title = heading_text(&expandable.title);
    let open = if expandable.open { "<details open>" } else { "<details>" };
    let body = blocks_md(&expandable.blocks, context.inside(Place::Expandable));
    let mut out = format!("{open}\n\n<summary>{title}</summary>\n\n");
    if !body.is_empty() {
        out.push_str(&body);
        out.push_str("\n\n");
    }
    out.push_str("</details>");
    out
}

fn code_md(code: &CodeBlock, tags: bool) -> String {
    // A carriage return would end a line too.
    let body = code.lines.join("\n").replace("\r\n", "\n").replace('\r', "\n");
    let syntax = code
        .syntax
        .as_deref()
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or("");
    let fence_char = if syntax.contains('`') { '~' } else { '`' };
    let longest = longest_run(&body, fence_char);
    let fence = fence_char.to_string().repeat((longest + 1).max(3));
    let fenced = format!("{fence}{}\n{body}\n{fence}", inline::escape_info(syntax));
    let attrs = code_attrs(code);
    if tags && !attrs.is_empty() {
        wrap_tag(&format!("code {attrs}"), "endcode", &fenced)
    } else {
        fenced
    }
}

/// `{% code %}` attributes for the code block's title, overflow, line
/// numbers and whether it expands.
fn code_attrs(code: &CodeBlock) -> String {
    let mut attrs = Vec::new();
    if let Some(title) = &code.title {
        attrs.push(format!("title={}", quote_attr(title)));
    }
    if let Some(overflow) = code.overflow {
        attrs.push(format!("overflow={}", quote_attr(overflow.as_str())));
    }
    if let Some(numbers) = code.line_numbers {
        attrs.push(format!("lineNumbers=\"{numbers}\""));
    }
    if let Some(expandable) = code.expandable {
        attrs.push(format!("expandable=\"{expandable}\""));
    }
    attrs.join(" ")
}

fn images_md(images: &[Image]) -> String {
    images
        .iter()
        .map(|image| inline::image_md(image, false))
        .collect::<Vec<_>>()
        .join("\n")
}

fn table_md(table: &Table) -> String {
    if table.columns.is_empty() {
        return String::new();
    }
    let mut header = Vec::with_capacity(table.columns.len());
    let mut rule = Vec::with_capacity(table.columns.len());
    for column in &table.columns {
        let mut writer = InlineWriter::new(true);
        writer.text(&column.title);
        header.push(writer.finish().trim_start_matches([' ', '\t']).to_owned());
        rule.push(match column.align {
            ColumnAlign::Center => ":-:",
            ColumnAlign::Right => "--:",
            ColumnAlign::Left => "---",
        });
    }
    let mut lines = vec![table_row(&header), table_row(&rule)];
    let empty = TableCell::new();
    for row in &table.rows {
        let cells: Vec<String> = (0..table.columns.len())
            .map(|c| {
                let mut writer = InlineWriter::new(true);
                writer.inlines(row.get(c).unwrap_or(&empty));
                writer.finish().trim_start_matches([' ', '\t']).to_owned()
            })
            .collect();
        lines.push(table_row(&cells));
    }
    lines.join("\n")
}

fn table_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
    format!("| {} |", cells.join(" | "))
}
