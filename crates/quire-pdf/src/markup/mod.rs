//! A [`Book`] written as Typst markup, in parts ([`parts`]: runs of whole
//! chapters, each typeset on its own so memory stays bounded by the part)
//! and a front matter (title page and table of contents, [`front`]).
//!
//! Every text of the content goes in as a Typst string literal (`#"…"`),
//! never as markup, so nothing a page says is read as Typst; the structure
//! around it is ours. Pages and headings carry labels (`<page-{id}>`,
//! `<h-{page}-{anchor}>`). A link to a label of the same part points at
//! the label; a link to another part (or from the table of contents) points
//! at a [`Target`], the label's place in the finished PDF, which is only
//! known once every part was typeset: until then it points at the first
//! page and the part says it [`Chunk::needs_targets`].

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;

use quire_content::document::{Block, CodeBlock, ColumnAlign, HintStyle, Image, ImageSource, List, ListKind, Table};
use typst::foundations::Bytes;

use crate::images::Shown;
use crate::{Book, PageBody};

mod inline;
mod openapi;

/// Typst source of one part and the images it refers to (`/img/{n}`).
#[derive(Debug, Clone, Default)]
pub struct Chunk {
    pub text: String,
    pub images: Vec<Bytes>,
    /// The labels it places (their positions are looked up after).
    pub labels: Vec<String>,
    /// Whether it links to another part: typeset again once the
    /// [`Target`]s are known.
    pub needs_targets: bool,
}

/// Where a label ended up in the finished PDF: its page (from 1, counting
/// the front matter) and point, in typographic points from the top left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub page: usize,
    pub x: f64,
    pub y: f64,
}

/// A line of the table of contents.
#[derive(Debug, Clone)]
pub struct TocEntry {
    pub label: String,
    pub title: String,
    pub depth: usize,
    /// The page number printed on the page.
    pub number: usize,
}

/// Pages per part, about: a part is whole top-level pages (with their
/// subpages), cut once it holds this many.
const PART_PAGES: usize = 40;

/// The book's pages cut into parts at top-level pages.
pub fn parts(book: &Book) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (index, page) in book.pages.iter().enumerate() {
        if page.depth == 0 && index > start && index - start >= PART_PAGES {
            parts.push(start..index);
            start = index;
        }
    }
    if start < book.pages.len() || parts.is_empty() {
        parts.push(start..book.pages.len());
    }
    parts
}

/// The lines of the table of contents (pages four levels deep), their
/// numbers still 0.
pub fn toc(book: &Book) -> Vec<TocEntry> {
    book.pages
        .iter()
        .filter(|p| p.depth < 4)
        .map(|p| TocEntry {
            label: page_label(&p.id),
            title: p.title.clone(),
            depth: p.depth,
            number: 0,
        })
        .collect()
}

/// Labels the pages of `range` place.
fn labels_of(book: &Book, range: Range<usize>) -> HashSet<String> {
    let mut labels = HashSet::new();
    for page in &book.pages[range] {
        labels.insert(page_label(&page.id));
        if let PageBody::Document(document) = &page.body {
            for block in document.walk() {
                if let Block::Heading(heading) = block
                    && !heading.id.is_empty()
                {
                    labels.insert(heading_label(&page.id, &heading.id));
                }
            }
        }
    }
    labels
}

/// The pages of `range`, numbered from `first_number`, showing the images
/// of `shown` (the others as their alternative text).
pub fn chunk(
    book: &Book,
    range: Range<usize>,
    first_number: usize,
    shown: &Shown,
    targets: Option<&HashMap<String, Target>>,
) -> Chunk {
    let mut writer = Writer::new(book, range.clone(), shown, targets);
    writer.preamble();
    let _ = writeln!(
        writer.out,
        "#set page(numbering: \"1\")\n#counter(page).update({first_number})"
    );
    writer.pages(range);
    Chunk {
        text: writer.out,
        images: writer.images,
        labels: writer.placed.into_iter().collect(),
        needs_targets: writer.needs_targets,
    }
}

/// The title page and the table of contents of a book of several pages.
pub fn front(book: &Book, entries: &[TocEntry], targets: Option<&HashMap<String, Target>>) -> String {
    let none = Shown::new();
    let mut writer = Writer::new(book, 0..0, &none, targets);
    writer.preamble();
    writer.title_page();
    writer.out.push_str(
        "#pagebreak()\n#heading(level: 1, outlined: false, bookmarked: false)[Contents]\n#set par(spacing: 0.65em)\n",
    );
    for entry in entries {
        writer.link_to_target(&entry.label, |w| {
            let _ = write!(w.out, "#h({:.1}em)", entry.depth as f32 * 1.2);
            w.text(&entry.title);
            w.out.push_str("#box(width: 1fr, repeat[#h(3pt).])");
            let _ = write!(w.out, "#h(4pt){}", entry.number);
        });
        writer.out.push_str("\n\n");
    }
    writer.out
}

/// At most this many nested blocks are written; deeper content is cut
/// (hostile documents must not blow the stack of the typesetter).
const MAX_NESTING: usize = 12;

const PREAMBLE: &str = r##"#set page(paper: "a4", margin: (x: 2.2cm, top: 2.4cm, bottom: 2.6cm), numbering: none)
#set text(font: ("Libertinus Serif", "Noto Serif CJK SC", "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK KR", "DejaVu Sans"), size: 10.5pt)
#set par(leading: 0.62em, spacing: 1.1em)
#show raw: set text(font: ("DejaVu Sans Mono", "Noto Sans Mono CJK SC", "Noto Sans CJK SC"), size: 8.8pt)
#show raw.where(block: true): block.with(fill: luma(246), inset: 8pt, radius: 3pt, width: 100%, stroke: 0.4pt + luma(220))
#show link: set text(fill: rgb("#1d4ed8"))
#show heading: set block(above: 1.5em, below: 0.8em)
#show heading: set text(size: 11.5pt)
#show heading.where(level: 1): set text(size: 18pt)
#show heading.where(level: 2): set text(size: 15pt)
#show heading.where(level: 3): set text(size: 13pt)
#set table(stroke: 0.4pt + luma(200), inset: 6pt)
#show table.cell.where(y: 0): set text(weight: "bold")
#let hint(color, body) = block(width: 100%, inset: (left: 10pt, rest: 8pt), fill: color.lighten(88%), stroke: (left: 2.5pt + color), radius: 2pt, body)
#let checkbox(done) = box(width: 0.8em, height: 0.8em, stroke: 0.6pt, radius: 1.5pt, baseline: 0.1em, fill: if done { luma(80) } else { none })
#let method(name) = box(fill: luma(40), inset: (x: 4pt, y: 2pt), radius: 2pt, text(fill: white, weight: "bold", size: 8.5pt, name))
"##;

struct Writer<'b> {
    book: &'b Book,
    out: String,
    /// The images the part may show.
    shown: &'b Shown,
    /// Those it does, as `/img/{n}`, and their `n` by file id.
    images: Vec<Bytes>,
    image_paths: HashMap<String, usize>,
    /// Labels that exist in this book.
    labels: HashSet<String>,
    /// Labels of the part being written.
    local: HashSet<String>,
    /// Where the other parts' labels are, once known.
    targets: Option<&'b HashMap<String, Target>>,
    /// Whether a link pointed at another part.
    needs_targets: bool,
    /// Labels attached so far.
    placed: HashSet<String>,
    /// The page being written.
    page: &'b str,
    /// Its heading level (1 for a top-level page).
    page_level: usize,
    nesting: usize,
    /// Includes being written (one level deep).
    including: bool,
}

/// Appends `text` as a Typst string literal.
fn push_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A label name for `text`: what Typst's label syntax accepts (letters,
/// digits, `-`, `_`, `.`), anything else as `:` and its code point.
fn label_part(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
            out.push(c);
        } else {
            let _ = write!(out, ":{:x}", c as u32);
        }
    }
    out
}

fn page_label(page: &str) -> String {
    format!("page-{}", label_part(page))
}

fn heading_label(page: &str, anchor: &str) -> String {
    format!("h-{}-{}", label_part(page), label_part(anchor))
}

fn safe_url(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with("mailto:")
}

impl<'b> Writer<'b> {
    fn new(
        book: &'b Book,
        part: Range<usize>,
        shown: &'b Shown,
        targets: Option<&'b HashMap<String, Target>>,
    ) -> Writer<'b> {
        Writer {
            book,
            out: String::with_capacity(64 * 1024),
            shown,
            images: Vec::new(),
            image_paths: HashMap::new(),
            labels: labels_of(book, 0..book.pages.len()),
            local: labels_of(book, part),
            targets,
            needs_targets: false,
            placed: HashSet::new(),
            page: "",
            page_level: 1,
            nesting: 0,
            including: false,
        }
    }

    fn string(&mut self, text: &str) {
        push_string(&mut self.out, text);
    }

    /// `#"text"`: text as text.
    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.out.push('#');
        self.string(text);
    }

    fn preamble(&mut self) {
        self.out.push_str("#set document(title: ");
        let title = self.book.title.clone();
        self.string(&title);
        self.out.push_str(")\n");
        self.out.push_str(PREAMBLE);
    }

    fn title_page(&mut self) {
        self.out
            .push_str("#align(center + horizon)[#text(size: 28pt, weight: \"bold\")[");
        let title = self.book.title.clone();
        self.text(&title);
        self.out.push(']');
        if let Some(subtitle) = self.book.subtitle.clone() {
            self.out.push_str(" \\\n#v(0.8em)#text(size: 12pt, fill: luma(90))[");
            self.text(&subtitle);
            self.out.push(']');
        }
        self.out.push_str("]\n");
    }

    fn pages(&mut self, range: Range<usize>) {
        let book = self.book;
        let first = range.start;
        for (index, page) in book.pages[range].iter().enumerate() {
            self.page = &page.id;
            self.page_level = page.depth.min(5) + 1;
            if page.depth == 0 && index + first > first {
                self.out.push_str("#pagebreak(weak: true)\n");
            }
            let _ = write!(self.out, "#heading(level: {})[", self.page_level);
            self.text(&page.title);
            let label = page_label(&page.id);
            let _ = writeln!(self.out, "] <{label}>\n");
            self.placed.insert(label);
            if let Some(description) = page.description.as_deref().filter(|d| !d.trim().is_empty()) {
                self.out.push_str("#text(fill: luma(90), size: 11.5pt)[");
                self.text(description);
                self.out.push_str("]\n\n");
            }
            match &page.body {
                PageBody::Document(document) => self.blocks(&document.blocks),
                PageBody::Group => {}
                PageBody::Link(url) => {
                    let url = url.clone();
                    self.link_url(&url, |w| w.text(&url));
                    self.out.push_str("\n\n");
                }
            }
        }
    }

    fn blocks(&mut self, blocks: &[Block]) {
        if self.nesting >= MAX_NESTING {
            return;
        }
        self.nesting += 1;
        for block in blocks {
            self.block(block);
        }
        self.nesting -= 1;
    }

    /// Blocks as a content argument: `[…]`.
    fn content(&mut self, blocks: &[Block]) {
        self.out.push('[');
        self.blocks(blocks);
        self.out.push(']');
    }

    fn block(&mut self, block: &Block) {
        match block {
            Block::Paragraph(content) => {
                self.inlines(content);
                self.out.push_str("\n\n");
            }
            Block::Heading(heading) => {
                let level = self.page_level + heading.level.depth() as usize;
                let _ = write!(self.out, "#heading(level: {level}, outlined: false, bookmarked: true)[");
                self.inlines(&heading.content);
                self.out.push(']');
                let label = heading_label(self.page, &heading.id);
                // A label is attached once; a repeated anchor is left bare.
                if !heading.id.is_empty()
                    && !self.including
                    && self.labels.contains(&label)
                    && self.placed.insert(label.clone())
                {
                    let _ = write!(self.out, " <{label}>");
                }
                self.out.push_str("\n\n");
            }
            Block::List(list) => self.list(list),
            Block::Quote(blocks) => {
                self.out.push_str("#quote(block: true)");
                self.content(blocks);
                self.out.push_str("\n\n");
            }
            Block::Code(code) => self.code(code),
            Block::Hint(hint) => {
                let color = match hint.style {
                    HintStyle::Info => "rgb(\"#2563eb\")",
                    HintStyle::Warning => "rgb(\"#d97706\")",
                    HintStyle::Danger => "rgb(\"#dc2626\")",
                    HintStyle::Success => "rgb(\"#16a34a\")",
                };
                let _ = write!(self.out, "#hint({color}, ");
                self.content(&hint.blocks);
                self.out.push_str(")\n\n");
            }
            Block::Tabs(tabs) => {
                for tab in tabs {
                    self.out.push_str(
                        "#block(breakable: true, inset: (left: 8pt), stroke: (left: 0.6pt + luma(200)))[#strong[",
                    );
                    self.text(&tab.title);
                    self.out.push_str("]\n\n");
                    self.blocks(&tab.blocks);
                    self.out.push_str("]\n\n");
                }
            }
            Block::Expandable(expandable) => {
                self.out.push_str(
                    "#block(breakable: true, inset: (left: 8pt), stroke: (left: 0.6pt + luma(200)))[#strong[",
                );
                self.inlines(&expandable.title);
                self.out.push_str("]\n\n");
                self.blocks(&expandable.blocks);
                self.out.push_str("]\n\n");
            }
            Block::ContentRef { target } => {
                self.out
                    .push_str("#block(width: 100%, inset: 8pt, stroke: 0.5pt + luma(200), radius: 3pt)[");
                let title = self.target_title(target);
                self.link(target, |w| w.text(&title));
                self.out.push_str("]\n\n");
            }
            Block::Include { path } => {
                if self.including {
                    return;
                }
                let key = (self.page.to_owned(), path.clone());
                if let Some(document) = self.book.includes.get(&key) {
                    self.including = true;
                    self.blocks(&document.blocks);
                    self.including = false;
                }
            }
            Block::Images(images) => {
                for image in images {
                    self.figure(image);
                }
            }
            Block::Table(table) => self.table(table),
            Block::Divider => self.out.push_str("#line(length: 100%, stroke: 0.5pt + luma(180))\n\n"),
            Block::Embed { url } => {
                let url = url.clone();
                self.link_url(&url, |w| w.text(&url));
                self.out.push_str("\n\n");
            }
            Block::OpenApiOperation(pointer) => self.operation(pointer),
            // Schemas are named, not typeset, in PDFs yet.
            Block::OpenApiSchemas(pointer) => {
                self.out.push_str("#raw(");
                self.string(&pointer.schemas.join(", "));
                self.out.push_str(")\n\n");
            }
            Block::Math { formula } => {
                self.out.push_str("#align(center, raw(block: false, ");
                self.string(formula);
                self.out.push_str("))\n\n");
            }
            // GitBook's containers (steps, columns, updates…): what they
            // hold, one after another.
            Block::Container(container) => self.blocks(&container.schema_blocks()),
            // GitBook's HTML (tables with widths, cards…): its text, a
            // paragraph per line.
            Block::Html(html) => {
                for (src, alt) in quire_content::document::html::images(html) {
                    let image = Image {
                        source: ImageSource::from_url(&src),
                        alt,
                        caption: String::new(),
                    };
                    if matches!(image.source, ImageSource::File(_)) {
                        self.figure(&image);
                    }
                }
                for line in quire_content::document::html::text(html).lines() {
                    self.text(line);
                    self.out.push_str("\n\n");
                }
            }
        }
    }

    fn list(&mut self, list: &List) {
        match list.kind {
            ListKind::Bulleted => self.out.push_str("#list(tight: true"),
            ListKind::Numbered { start } => {
                let _ = write!(self.out, "#enum(tight: true, start: {}", start.min(1_000_000));
            }
            ListKind::Tasks => self.out.push_str("#list(tight: true, marker: none"),
        }
        for item in &list.items {
            self.out.push_str(", [");
            if list.kind == ListKind::Tasks {
                let _ = write!(self.out, "#checkbox({}) ", item.checked);
            }
            self.blocks(&item.blocks);
            self.out.push(']');
        }
        self.out.push_str(")\n\n");
    }

    fn code(&mut self, code: &CodeBlock) {
        if let Some(title) = code.title.as_deref().filter(|t| !t.is_empty()) {
            self.out.push_str("#text(size: 9pt, weight: \"bold\")[");
            self.text(title);
            self.out.push_str("]\n");
        }
        self.out.push_str("#raw(block: true");
        if let Some(lang) = code.syntax.as_deref().filter(|l| {
            !l.is_empty() && l.len() < 40 && l.chars().all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c))
        }) {
            self.out.push_str(", lang: ");
            self.string(lang);
        }
        self.out.push_str(", ");
        self.string(&code.lines.join("\n"));
        self.out.push_str(")\n\n");
    }

    fn table(&mut self, table: &Table) {
        if table.columns.is_empty() {
            return;
        }
        let _ = write!(self.out, "#table(columns: {}, align: (", table.columns.len());
        for column in &table.columns {
            self.out.push_str(match column.align {
                ColumnAlign::Left => "left, ",
                ColumnAlign::Center => "center, ",
                ColumnAlign::Right => "right, ",
            });
        }
        self.out.push_str("), table.header(");
        for column in &table.columns {
            self.out.push('[');
            self.text(&column.title);
            self.out.push_str("], ");
        }
        self.out.push(')');
        for row in &table.rows {
            for index in 0..table.columns.len() {
                self.out.push_str(", [");
                if let Some(cell) = row.get(index) {
                    self.inlines(cell);
                }
                self.out.push(']');
            }
        }
        self.out.push_str(")\n\n");
    }

    /// The bytes of an image of the book, as `/img/{n}`, if it is shown
    /// ([`crate::images`] decides).
    fn image_path(&mut self, image: &Image) -> Option<String> {
        let ImageSource::File(id) = &image.source else {
            return None;
        };
        let n = match self.image_paths.get(id) {
            Some(n) => *n,
            None => {
                self.images.push(self.shown.get(id)?.clone());
                self.image_paths.insert(id.clone(), self.images.len() - 1);
                self.images.len() - 1
            }
        };
        Some(format!("/img/{n}"))
    }

    fn figure(&mut self, image: &Image) {
        match self.image_path(image) {
            Some(path) => {
                self.out.push_str("#figure(image(");
                self.string(&path);
                if !image.alt.is_empty() {
                    self.out.push_str(", alt: ");
                    self.string(&image.alt);
                }
                self.out.push_str(", width: auto)");
                if !image.caption.is_empty() {
                    self.out.push_str(", caption: [");
                    self.text(&image.caption);
                    self.out.push(']');
                }
                self.out.push_str(")\n\n");
            }
            None => {
                self.out.push_str("#emph[");
                let shown = if image.alt.is_empty() {
                    &image.caption
                } else {
                    &image.alt
                };
                let shown = if shown.is_empty() {
                    "[image]".to_owned()
                } else {
                    format!("[image: {shown}]")
                };
                self.text(&shown);
                self.out.push_str("]\n\n");
            }
        }
    }
}
