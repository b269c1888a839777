//! The typed document: what a page says, apart from how it is written.
//!
//! A [`Document`] is front matter and a list of [`Block`]s; blocks hold
//! other blocks or [`Inline`] content (marked text, links, images, formulas).
//! Markdown and the official JSON form are both read into this model and
//! written from it (see the sibling modules), so the two always agree.
//!
//! The model only holds what Quire's canonical markdown can say: JSON fields
//! markdown cannot carry (colours, image sizes, tab icons…) are accepted on
//! input and left out here.

/// A page: its front matter (the raw text between the `---` fences, when the
/// markdown had one) and its blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    pub front_matter: Option<String>,
    pub blocks: Vec<Block>,
}

/// A block of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Paragraph(Vec<Inline>),
    Heading(Heading),
    List(List),
    Quote(Vec<Block>),
    Code(CodeBlock),
    Hint(Hint),
    /// Tabbed content (`{% tabs %}`), one [`Tab`] per `{% tab %}`.
    Tabs(Vec<Tab>),
    /// A section the reader opens and closes (`<details>` with a
    /// `<summary>` in markdown).
    Expandable(Expandable),
    /// A card pointing at a page, anchor, file or URL (`{% content-ref %}`).
    ContentRef {
        target: LinkTarget,
    },
    /// Reusable content included by path (`{% include "…" %}`).
    Include {
        path: String,
    },
    /// Images shown as blocks (a paragraph of images only, or `<figure>`s).
    Images(Vec<Image>),
    Table(Table),
    Divider,
    /// An embedded page or media (`{% embed url="…" %}`).
    Embed {
        url: String,
    },
    /// An operation of an OpenAPI spec of the organization, shown in full
    /// (`{% openapi-operation spec="slug" path="/pets" method="get" %}`;
    /// the legacy `{% openapi %}` and `{% swagger %}` blocks read as one).
    OpenApiOperation(OpenApiOperation),
    /// Schemas of an OpenAPI spec of the organization, by name
    /// (`{% openapi-schemas spec="petstore" schemas="Pet,Tag" %}`).
    OpenApiSchemas(OpenApiSchemas),
    /// A display formula (`$$` lines), in LaTeX.
    Math {
        formula: String,
    },
    /// HTML written where no block of ours says the same (GitBook's tables
    /// with widths or shown as cards, `<picture>`, `<div>`s…), kept as
    /// written. Sites show it through their sanitizer; elsewhere it is text.
    Html(String),
    /// A GitBook block holding others (`{% stepper %}`, `{% step %}`,
    /// `{% columns %}`, `{% updates %}`, `{% if %}`, `{% file %}`…).
    Container(Container),
}

/// A GitBook block tag and what it holds: its attributes as written
/// (`{% update date="2025-12-25" tags="beta" %}`; an `if`'s condition is
/// its `condition`) and its blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub kind: ContainerKind,
    pub attrs: Vec<(String, String)>,
    pub blocks: Vec<Block>,
}

impl Container {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// Which GitBook container block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerKind {
    /// Numbered steps, each a [`ContainerKind::Step`].
    Stepper,
    Step,
    /// Side-by-side columns, each a [`ContainerKind::Column`] (`width`).
    Columns,
    Column,
    /// A changelog, each entry an [`ContainerKind::Update`] (`date`, `tags`).
    Updates,
    Update,
    /// Content shown when a visitor condition holds (`condition`).
    If,
    /// A file to download (`src`), its blocks the caption.
    File,
    /// A prompt to copy into an AI assistant (`description`).
    Prompt,
}

impl ContainerKind {
    pub const ALL: [ContainerKind; 9] = [
        ContainerKind::Stepper,
        ContainerKind::Step,
        ContainerKind::Columns,
        ContainerKind::Column,
        ContainerKind::Updates,
        ContainerKind::Update,
        ContainerKind::If,
        ContainerKind::File,
        ContainerKind::Prompt,
    ];

    /// The tag's name.
    pub fn tag(self) -> &'static str {
        match self {
            ContainerKind::Stepper => "stepper",
            ContainerKind::Step => "step",
            ContainerKind::Columns => "columns",
            ContainerKind::Column => "column",
            ContainerKind::Updates => "updates",
            ContainerKind::Update => "update",
            ContainerKind::If => "if",
            ContainerKind::File => "file",
            ContainerKind::Prompt => "prompt",
        }
    }

    pub fn parse(tag: &str) -> Option<ContainerKind> {
        ContainerKind::ALL.into_iter().find(|kind| kind.tag() == tag)
    }
}

/// A heading, level 1 to 3, and its anchor id (`^[-a-z0-9.+_]+$`, unique
/// within the page when read from markdown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    pub level: HeadingLevel,
    pub id: String,
    pub content: Vec<Inline>,
}

/// Markdown's deeper headings (`####`…) are read as level 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeadingLevel {
    One,
    Two,
    Three,
}

impl HeadingLevel {
    /// The level for a markdown heading depth (1 to 6).
    pub fn from_depth(depth: u8) -> HeadingLevel {
        match depth {
            0 | 1 => HeadingLevel::One,
            2 => HeadingLevel::Two,
            _ => HeadingLevel::Three,
        }
    }

    pub fn depth(self) -> u8 {
        match self {
            HeadingLevel::One => 1,
            HeadingLevel::Two => 2,
            HeadingLevel::Three => 3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    pub kind: ListKind,
    pub items: Vec<ListItem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListKind {
    Bulleted,
    Numbered {
        start: u64,
    },
    /// A task list: every item has a check box.
    Tasks,
}

/// A list item; `checked` only means something in a task list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListItem {
    pub checked: bool,
    pub blocks: Vec<Block>,
}

/// Fenced code and the `{% code %}` options around it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeBlock {
    /// The language (the fence's info word), if any.
    pub syntax: Option<String>,
    pub title: Option<String>,
    pub line_numbers: Option<bool>,
    pub overflow: Option<Overflow>,
    /// Whether a long block shows its first lines until the reader
    /// expands it (`expandable="true"`); `None` when it does not (the
    /// default, never written).
    pub expandable: Option<bool>,
    /// The code, one string per line.
    pub lines: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Overflow {
    Scroll,
    Wrap,
}

impl Overflow {
    pub fn as_str(self) -> &'static str {
        match self {
            Overflow::Scroll => "scroll",
            Overflow::Wrap => "wrap",
        }
    }

    pub fn parse(s: &str) -> Option<Overflow> {
        match s {
            "scroll" => Some(Overflow::Scroll),
            "wrap" => Some(Overflow::Wrap),
            _ => None,
        }
    }
}

/// A call-out (`{% hint style="…" %}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub style: HintStyle,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HintStyle {
    Info,
    Warning,
    Danger,
    Success,
}

impl HintStyle {
    pub const ALL: [HintStyle; 4] = [
        HintStyle::Info,
        HintStyle::Warning,
        HintStyle::Danger,
        HintStyle::Success,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HintStyle::Info => "info",
            HintStyle::Warning => "warning",
            HintStyle::Danger => "danger",
            HintStyle::Success => "success",
        }
    }

    pub fn parse(s: &str) -> Option<HintStyle> {
        HintStyle::ALL.into_iter().find(|style| style.as_str() == s)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tab {
    pub title: String,
    pub blocks: Vec<Block>,
}

/// Which operation: the spec's slug (or, from legacy blocks, its URL),
/// the path as the spec writes it, the HTTP method in lower case.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct OpenApiOperation {
    pub spec: String,
    pub path: String,
    pub method: String,
}

/// Which schemas of which spec (as [`OpenApiOperation::spec`]): their
/// names, and whether they are shown as one group (GitBook's default).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OpenApiSchemas {
    pub spec: String,
    pub schemas: Vec<String>,
    pub grouped: bool,
}

/// A titled section shown closed unless `open` (GitBook's expandable
/// block; `defaultExpanded` in JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expandable {
    pub title: Vec<Inline>,
    pub open: bool,
    pub blocks: Vec<Block>,
}

/// An image: its source, alternative text and caption (both plain text,
/// empty when absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub source: ImageSource,
    pub alt: String,
    pub caption: String,
}

/// Where an image's bytes are: a file of the space or a URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ImageSource {
    File(String),
    Url(String),
}

impl ImageSource {
    /// `/files/<id>` is a file of the space; anything else a URL.
    pub fn from_url(url: &str) -> ImageSource {
        match url.strip_prefix("/files/").filter(|id| is_id(id)) {
            Some(id) => ImageSource::File(id.to_owned()),
            None => ImageSource::Url(url.to_owned()),
        }
    }

    /// The markdown form (`/files/<id>` or the URL).
    pub fn to_url(&self) -> String {
        match self {
            ImageSource::File(id) => format!("/files/{id}"),
            ImageSource::Url(url) => url.clone(),
        }
    }
}

/// A table: column titles and alignments, then rows of cells. Every row has
/// one cell per column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<TableCell>>,
}

/// A table cell's content.
pub type TableCell = Vec<Inline>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub title: String,
    pub align: ColumnAlign,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ColumnAlign {
    #[default]
    Left,
    Center,
    Right,
}

impl ColumnAlign {
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnAlign::Left => "left",
            ColumnAlign::Center => "center",
            ColumnAlign::Right => "right",
        }
    }
}

/// Inline content: text with marks, links, images and formulas. A hard line
/// break is a `\n` in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    Text {
        text: String,
        marks: Marks,
    },
    Link {
        target: LinkTarget,
        content: Vec<Inline>,
    },
    Image(Image),
    Math {
        formula: String,
    },
    /// An inline HTML tag as written (`<mark style="color:red;">`,
    /// `</mark>`, `<kbd>`, `<sup>`, `<br>`…). Sites show the paragraph
    /// through their sanitizer; it has no text of its own.
    Html(String),
    /// An icon by name (GitBook writes `<i class="fa-github">:github:</i>`).
    Icon {
        icon: String,
    },
    /// A value computed where the page is shown, such as a variable
    /// (GitBook writes `<code class="expression">space.vars.version</code>`).
    Expression {
        expression: String,
    },
}

impl Inline {
    /// Unmarked text.
    pub fn plain(text: impl Into<String>) -> Inline {
        Inline::Text {
            text: text.into(),
            marks: Marks::NONE,
        }
    }

    pub fn marked(text: impl Into<String>, marks: Marks) -> Inline {
        Inline::Text {
            text: text.into(),
            marks,
        }
    }
}

/// One of the marks text may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Bold,
    Italic,
    Strikethrough,
    Code,
}

impl Mark {
    pub const ALL: [Mark; 4] = [Mark::Bold, Mark::Italic, Mark::Strikethrough, Mark::Code];

    /// The official JSON name (`"type"` of a mark).
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Bold => "bold",
            Mark::Italic => "italic",
            Mark::Strikethrough => "strikethrough",
            Mark::Code => "code",
        }
    }
}

/// The set of marks on a piece of text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Marks {
    pub bold: bool,
    pub italic: bool,
    pub strikethrough: bool,
    pub code: bool,
}

impl Marks {
    pub const NONE: Marks = Marks {
        bold: false,
        italic: false,
        strikethrough: false,
        code: false,
    };

    pub fn has(self, mark: Mark) -> bool {
        match mark {
            Mark::Bold => self.bold,
            Mark::Italic => self.italic,
            Mark::Strikethrough => self.strikethrough,
            Mark::Code => self.code,
        }
    }

    pub fn with(mut self, mark: Mark) -> Marks {
        match mark {
            Mark::Bold => self.bold = true,
            Mark::Italic => self.italic = true,
            Mark::Strikethrough => self.strikethrough = true,
            Mark::Code => self.code = true,
        }
        self
    }

    pub fn is_empty(self) -> bool {
        self == Marks::NONE
    }
}

/// What a link (or a content reference) points at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LinkTarget {
    /// A page of the space.
    Page {
        page: String,
    },
    /// A heading anchor, on a page of the space or (no page) this page.
    Anchor {
        page: Option<String>,
        anchor: String,
    },
    /// A file of the space.
    File {
        file: String,
    },
    Url {
        url: String,
    },
}

impl LinkTarget {
    /// The target a markdown link destination stands for: `/pages/<id>`,
    /// `/pages/<id>#anchor`, `#anchor`, `/files/<id>`, else a URL.
    pub fn from_url(url: &str) -> LinkTarget {
        if let Some(rest) = url.strip_prefix("/pages/") {
            let (page, anchor) = match rest.split_once('#') {
                Some((page, anchor)) => (page, Some(anchor)),
                None => (rest, None),
            };
            if is_id(page) {
                return match anchor {
                    Some(anchor) if !anchor.is_empty() => LinkTarget::Anchor {
                        page: Some(page.to_owned()),
                        anchor: anchor.to_owned(),
                    },
                    _ => LinkTarget::Page { page: page.to_owned() },
                };
            }
        }
        if let Some(anchor) = url.strip_prefix('#').filter(|a| !a.is_empty()) {
            return LinkTarget::Anchor {
                page: None,
                anchor: anchor.to_owned(),
            };
        }
        match ImageSource::from_url(url) {
            ImageSource::File(file) => LinkTarget::File { file },
            ImageSource::Url(url) => LinkTarget::Url { url },
        }
    }

    /// The markdown link destination.
    pub fn to_url(&self) -> String {
        match self {
            LinkTarget::Page { page } => format!("/pages/{page}"),
            LinkTarget::Anchor {
                page: Some(page),
                anchor,
            } => format!("/pages/{page}#{anchor}"),
            LinkTarget::Anchor { page: None, anchor } => format!("#{anchor}"),
            LinkTarget::File { file } => format!("/files/{file}"),
            LinkTarget::Url { url } => url.clone(),
        }
    }
}

impl From<ImageSource> for LinkTarget {
    fn from(source: ImageSource) -> LinkTarget {
        match source {
            ImageSource::File(file) => LinkTarget::File { file },
            ImageSource::Url(url) => LinkTarget::Url { url },
        }
    }
}

/// Whether a path segment can be an id (`/pages/<id>`, `/files/<id>`).
fn is_id(id: &str) -> bool {
    !id.is_empty() && !id.contains(['/', '?', '#', ' '])
}

/// Inline content as markdown can express it: whitespace at the edges of
/// marked (non-code) text moves outside the marks, neighbouring text with
/// the same marks merges and empty text goes (inside links too). Every
/// reader produces it, so markdown and JSON agree.
pub fn normalize_inlines(content: Vec<Inline>) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::with_capacity(content.len());
    for inline in content {
        match inline {
            Inline::Text { text, marks } => push_text(&mut out, text, marks),
            Inline::Link { target, content } => out.push(Inline::Link {
                target,
                content: normalize_inlines(content),
            }),
            other => out.push(other),
        }
    }
    out
}

/// Whether [`normalize_inlines`] would leave `content` as it is.
pub(crate) fn is_normalized(content: &[Inline]) -> bool {
    let mut previous: Option<Marks> = None;
    for inline in content {
        match inline {
            Inline::Text { text, marks } => {
                let edges_ok = marks.code || marks.is_empty() || (text.trim() == text && !text.is_empty());
                if text.is_empty() || !edges_ok || previous == Some(*marks) {
                    return false;
                }
                previous = Some(*marks);
            }
            Inline::Link { content, .. } => {
                if !is_normalized(content) {
                    return false;
                }
                previous = None;
            }
            _ => previous = None,
        }
    }
    true
}

/// Appends text, split at its whitespace edges when marked, merged with the
/// text before it when the marks agree.
fn push_text(out: &mut Vec<Inline>, text: String, marks: Marks) {
    if marks.code || marks.is_empty() {
        return push_piece(out, text, marks);
    }
    let core = text.trim();
    if core.is_empty() {
        return push_piece(out, text, Marks::NONE);
    }
    if core.len() == text.len() {
        return push_piece(out, text, marks);
    }
    let start = text.len() - text.trim_start().len();
    let end = start + core.len();
    push_piece(out, text[..start].to_owned(), Marks::NONE);
    push_piece(out, text[start..end].to_owned(), marks);
    push_piece(out, text[end..].to_owned(), Marks::NONE);
}

fn push_piece(out: &mut Vec<Inline>, text: String, marks: Marks) {
    if text.is_empty() {
        return;
    }
    if let Some(Inline::Text {
        text: last,
        marks: last_marks,
    }) = out.last_mut()
        && *last_marks == marks
    {
        last.push_str(&text);
        return;
    }
    out.push(Inline::Text { text, marks });
}

/// A heading id matching the schema's `^[-a-z0-9.+_]+$`: lower-case ASCII
/// letters and digits, words joined by `-` (`heading` when none are left).
pub fn anchor_id(text: &str) -> String {
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

/// Whether `id` matches the schema's heading id pattern `^[-a-z0-9.+_]+$`.
pub fn is_anchor_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'+' | b'_'))
}
