//! CommonMark (with GFM tables, strikethrough and task lists, and `$$`
//! formulas) read into blocks: pulldown-cmark's events folded on a stack of
//! open containers.
//!
//! Text in `$…$` (single dollars) is text, as GitBook reads it; `$$…$$` is an
//! inline formula, and a paragraph holding only one is a display formula.
//! The HTML tags `<strong>`/`<b>`, `<em>`/`<i>` and `<s>`/`<del>`/`<strike>`
//! mark text as `**`, `*` and `~~` do.
//! A paragraph of images only is an images block; an HTML block that is one
//! GitBook `<figure>` is an image with its caption, any other is kept as
//! written ([`Block::Html`]), as are inline tags ([`Inline::Html`]) but
//! GitBook's icons (`<i class="fa-…">`, [`Inline::Icon`]) and the anchor it
//! appends to headings, whose id becomes the heading's.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::super::html;
use super::super::model::is_anchor_id;
use super::super::model::{
    Block, CodeBlock, Column, ColumnAlign, Heading, HeadingLevel, Image, ImageSource, Inline, LinkTarget, List,
    ListItem, ListKind, Marks, Table, normalize_inlines,
};
use super::super::text::plain_text;
use super::Ids;
use super::figure::parse_figure;

/// The inline content of one line of markdown (an expandable's
/// `<summary>`), read as a heading's text is: the writer writes it as one.
pub(super) fn parse_inline_line(line: &str) -> Vec<Inline> {
    let mut ids = Ids::default();
    match parse_markdown(&format!("# {line}"), &mut ids).as_slice() {
        [Block::Heading(heading)] => heading.content.clone(),
        _ => vec![Inline::plain(line.trim())],
    }
}

const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_MATH);

/// The blocks of CommonMark `src`.
pub(super) fn parse_markdown(src: &str, ids: &mut Ids) -> Vec<Block> {
    let src = without_single_dollar_formulas(src);
    let mut builder = Builder {
        ids,
        stack: vec![Frame::Root(Vec::new())],
        containers: 0,
        ignored: 0,
        spare: Inlines::new(),
    };
    for event in Parser::new_ext(&src, OPTIONS) {
        builder.event(event);
    }
    builder.finish()
}

/// How many times `$`s opening single-dollar formulas are escaped before
/// what is left is read as text (see `Event::InlineMath`).
const DOLLAR_PASSES: usize = 8;

/// `src` with each `$` that would open a single-dollar formula escaped.
/// GitBook has none: `**$65 a month** plus **$12 a seat**` is bold prices,
/// but pulldown-cmark's math would read `$65 … $` as a formula and take it
/// out of the emphasis around it. Escaping a `$` can let a later one pair
/// up, so this repeats (a few times at most) until no formula is left.
fn without_single_dollar_formulas(src: &str) -> std::borrow::Cow<'_, str> {
    let mut text = std::borrow::Cow::Borrowed(src);
    if !src.contains('$') {
        return text;
    }
    for _ in 0..DOLLAR_PASSES {
        let opens: Vec<usize> = Parser::new_ext(&text, OPTIONS)
            .into_offset_iter()
            .filter_map(|(event, range)| matches!(event, Event::InlineMath(_)).then_some(range.start))
            .collect();
        if opens.is_empty() {
            break;
        }
        let escaped = text.to_mut();
        for at in opens.into_iter().rev() {
            escaped.insert(at, '\\');
        }
    }
    text
}

/// Inline content being read, with the links still open.
struct Inlines {
    /// `frames[0]` is the block's own content, later ones open links.
    frames: Vec<InlineFrame>,
    bold: u32,
    italic: u32,
    strikethrough: u32,
    image: Option<PendingImage>,
    /// An icon tag open (`<i class="fa-github">`): its text (`:github:`)
    /// is its name, not text of the page.
    icon: Option<String>,
    /// An expression tag open (`<code class="expression">`): its text is
    /// the expression.
    expression: Option<String>,
}

#[derive(Default)]
struct InlineFrame {
    link: Option<LinkTarget>,
    content: Vec<Inline>,
}

struct PendingImage {
    url: String,
    title: String,
    alt: String,
}

impl Inlines {
    fn new() -> Inlines {
        Inlines {
            frames: vec![InlineFrame::default()],
            bold: 0,
            italic: 0,
            strikethrough: 0,
            image: None,
            icon: None,
            expression: None,
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
        if self.icon.is_some() {
            return;
        }
        if let Some(expression) = &mut self.expression {
            expression.push_str(text);
            return;
        }
        if let Some(image) = &mut self.image {
            image.alt.push_str(text);
            return;
        }
        let marks = self.marks(code);
        let top = self.top();
        match top.content.last_mut() {
            Some(Inline::Text { text: last, marks: m }) if *m == marks => last.push_str(text),
            _ => top.content.push(Inline::marked(text, marks)),
        }
    }

    /// GitBook's icon tags: `<i class="fa-…">` opens an icon, whose
    /// `</i>` makes it one [`Inline::Icon`]; false for other HTML.
    fn icon(&mut self, html: &str) -> bool {
        if let Some(expression) = &self.expression {
            if html::end_tag(html).as_deref() == Some("code") {
                let inline = Inline::Expression {
                    expression: expression.trim().to_owned(),
                };
                self.expression = None;
                self.top().content.push(inline);
            }
            return true;
        }
        if html::start_tag(html)
            .is_some_and(|(name, attrs)| name == "code" && attrs.iter().any(|(k, v)| k == "class" && v == "expression"))
        {
            self.expression = Some(String::new());
            return true;
        }
        if let Some(icon) = &self.icon {
            if html::end_tag(html).as_deref() == Some("i") {
                let icon = Inline::Icon { icon: icon.clone() };
                self.icon = None;
                self.top().content.push(icon);
            }
            return true;
        }
        match html::icon_tag(html) {
            Some(icon) => {
                self.icon = Some(icon);
                true
            }
            None => false,
        }
    }

    /// An HTML tag for a mark (`<strong>`, `</em>`, `<s>`…) opens or closes
    /// it; false for other HTML.
    fn html_mark(&mut self, html: &str) -> bool {
        let tag = html.trim().to_ascii_lowercase();
        let (closing, name) = match tag.strip_prefix("</") {
            Some(rest) => (true, rest),
            None => (false, &tag[tag.len().min(1)..]),
        };
        let counter = match name.strip_suffix('>').map(str::trim_end) {
            Some("strong" | "b") => &mut self.bold,
            Some("em" | "i") => &mut self.italic,
            Some("s" | "del" | "strike") => &mut self.strikethrough,
            _ => return false,
        };
        *counter = if closing {
            counter.saturating_sub(1)
        } else {
            counter.saturating_add(1)
        };
        true
    }

    fn formula(&mut self, formula: &str) {
        match &mut self.image {
            Some(image) => {
                image.alt.push_str("$$");
                image.alt.push_str(formula);
                image.alt.push_str("$$");
            }
            None => self.top().content.push(Inline::Math {
                formula: formula.to_owned(),
            }),
        }
    }

    fn start_link(&mut self, url: &str) {
        self.frames.push(InlineFrame {
            link: Some(LinkTarget::from_url(url)),
            ..InlineFrame::default()
        });
    }

    fn end_link(&mut self) {
        if self.frames.len() < 2 {
            return;
        }
        if let Some(frame) = self.frames.pop() {
            let target = frame.link.unwrap_or_else(|| LinkTarget::from_url(""));
            self.top().content.push(Inline::Link {
                target,
                content: frame.content,
            });
        }
    }

    fn end_image(&mut self) {
        if let Some(image) = self.image.take() {
            self.top().content.push(Inline::Image(Image {
                source: ImageSource::from_url(&image.url),
                alt: image.alt,
                caption: image.title,
            }));
        }
    }

    fn finish(mut self) -> Vec<Inline> {
        while self.frames.len() > 1 {
            self.end_link();
        }
        let frame = self.frames.pop().unwrap_or_default();
        normalize_inlines(frame.content)
    }
}

enum InlineKind {
    Paragraph { implicit: bool },
    Heading(u8),
    Cell,
}

enum Frame {
    Root(Vec<Block>),
    Quote(Vec<Block>),
    /// A list item's blocks and, for a task item, whether it is checked.
    Item(Vec<Block>, Option<bool>),
    List {
        start: Option<u64>,
        items: Vec<(Vec<Block>, Option<bool>)>,
    },
    Inline(InlineKind, Inlines),
    Code {
        syntax: String,
        text: String,
    },
    Html(String),
    Table {
        aligns: Vec<Alignment>,
        rows: Vec<Vec<Vec<Inline>>>,
        row: Vec<Vec<Inline>>,
    },
}

/// How deep quotes and list items nest; deeper ones give their content to
/// the innermost one kept (recursion over the model stays shallow).
const MAX_CONTAINERS: usize = 32;

struct Builder<'a> {
    ids: &'a mut Ids,
    stack: Vec<Frame>,
    /// Quotes and list items open.
    containers: usize,
    /// Quotes, lists and items open past [`MAX_CONTAINERS`], left out.
    ignored: usize,
    /// Where inline events go if no inline frame can take them (never, in
    /// practice).
    spare: Inlines,
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
            Event::InlineHtml(html) => {
                let inlines = self.inlines();
                if inlines.image.is_some() {
                    inlines.text(&html, false);
                } else if !inlines.icon(&html) && !inlines.html_mark(&html) {
                    inlines.top().content.push(Inline::Html(html.to_string()));
                }
            }
            Event::FootnoteReference(text) => self.inlines().text(&text, false),
            // GitBook has no single-dollar formulas: that is text (a line
            // break in it, a space).
            Event::InlineMath(text) => {
                let text = format!("${}$", text.replace("\r\n", " ").replace(['\r', '\n'], " "));
                self.inlines().text(&text, false);
            }
            Event::DisplayMath(formula) => self.inlines().formula(&formula),
            Event::SoftBreak => self.inlines().text(" ", false),
            Event::HardBreak => self.inlines().text("\n", false),
            Event::Rule => self.push_block(Block::Divider),
            Event::TaskListMarker(checked) if self.ignored > 0 => {
                self.inlines().text(if checked { "[x] " } else { "[ ] " }, false);
            }
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
            _ => &mut self.spare,
        }
    }

    fn start(&mut self, tag: Tag) {
        if is_block_tag(&tag) {
            self.close_implicit_paragraph();
        }
        if matches!(tag, Tag::BlockQuote(_) | Tag::List(_) | Tag::Item)
            && (self.ignored > 0 || self.containers >= MAX_CONTAINERS)
        {
            self.ignored += 1;
            return;
        }
        if matches!(tag, Tag::BlockQuote(_) | Tag::Item) {
            self.containers += 1;
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
        if self.ignored > 0 && matches!(end, TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item) {
            self.ignored -= 1;
            self.close_implicit_paragraph();
            return;
        }
        if matches!(end, TagEnd::BlockQuote(_) | TagEnd::Item) {
            self.containers = self.containers.saturating_sub(1);
        }
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
                let content = inlines.finish();
                let block = images_block(&content)
                    .or_else(|| formula_block(&content))
                    .unwrap_or(Block::Paragraph(content));
                self.push_block(block);
            }
            Frame::Inline(InlineKind::Heading(depth), inlines) => {
                let (content, anchor) = heading_anchor(inlines.finish());
                let id = match anchor {
                    Some(id) if is_anchor_id(&id) && self.ids.headings.insert(id.clone()) => id,
                    _ => self.ids.heading(&plain_text(&content)),
                };
                self.push_block(Block::Heading(Heading {
                    level: HeadingLevel::from_depth(depth),
                    id,
                    content,
                }));
            }
            Frame::Item(blocks, checked) => {
                if let Some(Frame::List { items, .. }) = self.stack.last_mut() {
                    items.push((blocks, checked));
                }
            }
            Frame::Quote(blocks) => self.push_block(Block::Quote(blocks)),
            // The root is never popped here (see the guard above).
            Frame::Root(blocks) => self.stack.push(Frame::Root(blocks)),
            Frame::List { start, items } => self.push_block(list_block(start, items)),
            Frame::Code { syntax, text } => self.push_block(code_block(syntax, &text)),
            Frame::Html(html) => {
                let block = match parse_figure(&html) {
                    Some(image) => Block::Images(vec![image]),
                    None => Block::Html(html.trim_end_matches('\n').to_owned()),
                };
                self.push_block(block);
            }
            Frame::Table { aligns, rows, .. } => self.push_block(table_block(&aligns, rows)),
        }
    }

    fn push_block(&mut self, block: Block) {
        self.close_implicit_paragraph();
        match self.stack.last_mut() {
            Some(Frame::Root(blocks) | Frame::Quote(blocks) | Frame::Item(blocks, _)) => blocks.push(block),
            _ => {
                // Not expected from the parser; keep the block at the root
                // rather than lose it.
                if let Some(Frame::Root(blocks)) = self.stack.first_mut() {
                    blocks.push(block);
                }
            }
        }
    }

    fn finish(mut self) -> Vec<Block> {
        while self.stack.len() > 1 {
            self.close_frame();
        }
        match self.stack.pop() {
            Some(Frame::Root(blocks)) => blocks,
            _ => Vec::new(),
        }
    }
}

/// A heading's content without the anchor GitBook appends to it
/// (`## Setup <a href="#setup" id="setup"></a>`), and that anchor's id.
fn heading_anchor(mut content: Vec<Inline>) -> (Vec<Inline>, Option<String>) {
    let n = content.len();
    let anchor = match &content[n.saturating_sub(2)..] {
        [Inline::Html(open), Inline::Html(close)] if html::end_tag(close).as_deref() == Some("a") => {
            html::start_tag(open)
                .filter(|(name, _)| name == "a")
                .and_then(|(_, attrs)| attrs.into_iter().find(|(k, _)| k == "id").map(|(_, v)| v))
        }
        _ => None,
    };
    if anchor.is_some() {
        content.truncate(n - 2);
        if let Some(Inline::Text { text, .. }) = content.last_mut() {
            let kept = text.trim_end().len();
            text.truncate(kept);
        }
        content = normalize_inlines(content);
    }
    (content, anchor)
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

fn is_blank(inline: &Inline) -> bool {
    matches!(inline, Inline::Text { text, .. } if text.trim().is_empty())
}

/// A paragraph of images only (whitespace aside) is an images block.
fn images_block(content: &[Inline]) -> Option<Block> {
    let is_image = |inline: &Inline| matches!(inline, Inline::Image(_));
    if !content.iter().any(is_image) || !content.iter().all(|i| is_image(i) || is_blank(i)) {
        return None;
    }
    let images = content
        .iter()
        .filter_map(|inline| match inline {
            Inline::Image(image) => Some(image.clone()),
            _ => None,
        })
        .collect();
    Some(Block::Images(images))
}

/// A paragraph of one `$$` formula only (whitespace aside) is a display
/// formula, as it is at the top level.
fn formula_block(content: &[Inline]) -> Option<Block> {
    let mut formulas = content.iter().filter(|inline| !is_blank(inline));
    match (formulas.next(), formulas.next()) {
        (Some(Inline::Math { formula }), None) => Some(Block::Math {
            formula: display_formula(formula),
        }),
        _ => None,
    }
}

/// A display formula as the `$$` lines give it: after a line break at the
/// start, the lines up to the closing `$$` (trailing space dropped);
/// otherwise the text between the delimiters, trimmed.
pub(super) fn display_formula(raw: &str) -> String {
    match raw.strip_prefix('\n') {
        Some(lines) => lines.trim_end().to_owned(),
        None => raw.trim().to_owned(),
    }
}

fn list_block(start: Option<u64>, items: Vec<(Vec<Block>, Option<bool>)>) -> Block {
    let tasks = items.iter().any(|(_, checked)| checked.is_some());
    let kind = match start {
        _ if tasks => ListKind::Tasks,
        Some(start) => ListKind::Numbered { start },
        None => ListKind::Bulleted,
    };
    let items = items
        .into_iter()
        .map(|(blocks, checked)| ListItem {
            checked: tasks && checked.unwrap_or(false),
            blocks,
        })
        .collect();
    Block::List(List { kind, items })
}

fn code_block(syntax: String, text: &str) -> Block {
    let body = text.strip_suffix('\n').unwrap_or(text);
    Block::Code(CodeBlock {
        syntax: (!syntax.is_empty()).then_some(syntax),
        lines: body.split('\n').map(str::to_owned).collect(),
        ..CodeBlock::default()
    })
}

/// A GFM table: the header cells' text are the column titles.
fn table_block(aligns: &[Alignment], rows: Vec<Vec<Vec<Inline>>>) -> Block {
    let mut rows = rows.into_iter();
    let header = rows.next().unwrap_or_default();
    let columns: Vec<Column> = header
        .iter()
        .enumerate()
        .map(|(c, cell)| Column {
            title: plain_text(cell),
            align: match aligns.get(c) {
                Some(Alignment::Center) => ColumnAlign::Center,
                Some(Alignment::Right) => ColumnAlign::Right,
                _ => ColumnAlign::Left,
            },
        })
        .collect();
    let rows = rows
        .map(|mut row| {
            row.resize_with(columns.len(), Vec::new);
            row
        })
        .collect();
    Block::Table(Table { columns, rows })
}
