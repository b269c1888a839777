//! Fitting a document to the schema's containers, a pass over the model.
//!
//! The official schema limits what each container holds: a hint holds no
//! code, a quote no image, a list item no tabs, a link no formula… Markdown
//! can put any block anywhere, so a block where the schema forbids it is
//! rewritten into allowed blocks that keep its content ([`degrade`]):
//! containers give up their children, code becomes code-marked text, images
//! inline images, tables a paragraph per row (cells joined with ` | `),
//! embeds and content references links, formulas inline formulas. Code
//! titles are lost.

use super::model::{Block, CodeBlock, Document, Inline, LinkTarget, Marks, Table, normalize_inlines};

/// Where a block sits; each place admits its own block types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Top,
    ListItem,
    Quote,
    Hint,
    Tab,
    /// The body of an expandable block.
    Expandable,
    /// Inside a GitBook container block (a step, a column…): what the top
    /// level holds.
    Container,
}

impl Document {
    /// Rewrites blocks the schema forbids where they sit (see the module
    /// docs). Documents read from markdown or JSON already fit.
    pub fn fit(&mut self) {
        self.blocks = fit_blocks(std::mem::take(&mut self.blocks), Place::Top);
    }

    /// Whether every block is allowed where it sits.
    pub fn fits(&self) -> bool {
        blocks_fit(&self.blocks, Place::Top)
    }
}

/// Whether the schema lets `block` sit in `place`. Paragraphs, headings,
/// lists and dividers go everywhere.
pub(crate) fn allows(place: Place, block: &Block) -> bool {
    use Place::*;
    match block {
        Block::Paragraph(_) | Block::Heading(_) | Block::List(_) | Block::Divider | Block::Html(_) => true,
        _ if matches!(place, Top | Container) => true,
        Block::Container(_) => false,
        Block::Code(_) | Block::Hint(_) => matches!(place, ListItem | Tab | Expandable),
        Block::Math { .. } => matches!(place, ListItem | Tab),
        Block::Quote(_) => matches!(place, ListItem | Quote | Tab | Expandable),
        Block::Table(_) => matches!(place, ListItem | Hint | Expandable),
        Block::Embed { .. } => matches!(place, Hint | Tab),
        Block::ContentRef { .. } => place == Tab,
        Block::Images(_) => matches!(place, Tab | Expandable),
        Block::Include { .. } => place == Expandable,
        Block::Tabs(_) | Block::Expandable(_) | Block::OpenApiOperation(_) | Block::OpenApiSchemas(_) => false,
    }
}

/// `blocks` (and everything inside them) made valid where they sit.
pub(crate) fn fit_blocks(blocks: Vec<Block>, place: Place) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len());
    fit_into(blocks, place, &mut out);
    out
}

fn fit_into(blocks: Vec<Block>, place: Place, out: &mut Vec<Block>) {
    for mut block in blocks {
        fit_children(&mut block);
        if allows(place, &block) {
            out.push(block);
        } else {
            fit_into(degrade(block), place, out);
        }
    }
}

fn fit_children(block: &mut Block) {
    let refit = |blocks: &mut Vec<Block>, place| *blocks = fit_blocks(std::mem::take(blocks), place);
    match block {
        Block::Paragraph(content) => fit_inlines(content),
        Block::Heading(heading) => fit_inlines(&mut heading.content),
        Block::Table(table) => table.rows.iter_mut().flatten().for_each(|cell| fit_inlines(cell)),
        Block::Quote(blocks) => refit(blocks, Place::Quote),
        Block::Hint(hint) => refit(&mut hint.blocks, Place::Hint),
        Block::List(list) => {
            for item in &mut list.items {
                refit(&mut item.blocks, Place::ListItem);
            }
        }
        Block::Tabs(tabs) => {
            for tab in tabs {
                refit(&mut tab.blocks, Place::Tab);
            }
        }
        Block::Container(container) => refit(&mut container.blocks, Place::Container),
        Block::Expandable(expandable) => {
            fit_inlines(&mut expandable.title);
            refit(&mut expandable.blocks, Place::Expandable);
            // The schema wants a block in the body.
            if expandable.blocks.is_empty() {
                expandable.blocks.push(Block::Paragraph(Vec::new()));
            }
        }
        Block::Code(_)
        | Block::ContentRef { .. }
        | Block::Include { .. }
        | Block::Images(_)
        | Block::Divider
        | Block::Embed { .. }
        | Block::OpenApiOperation(_)
        | Block::OpenApiSchemas(_)
        | Block::Html(_)
        | Block::Math { .. } => {}
    }
}

/// Whether `blocks` fit in `place` and everything inside them fits too.
pub(crate) fn blocks_fit(blocks: &[Block], place: Place) -> bool {
    blocks.iter().all(|block| {
        allows(place, block)
            && match block {
                Block::Paragraph(content) => inlines_fit(content),
                Block::Heading(heading) => inlines_fit(&heading.content),
                Block::Table(table) => table.rows.iter().flatten().all(|cell| inlines_fit(cell)),
                Block::Quote(blocks) => blocks_fit(blocks, Place::Quote),
                Block::Hint(hint) => blocks_fit(&hint.blocks, Place::Hint),
                Block::List(list) => list.items.iter().all(|i| blocks_fit(&i.blocks, Place::ListItem)),
                Block::Tabs(tabs) => tabs.iter().all(|t| blocks_fit(&t.blocks, Place::Tab)),
                Block::Expandable(e) => {
                    inlines_fit(&e.title) && !e.blocks.is_empty() && blocks_fit(&e.blocks, Place::Expandable)
                }
                _ => true,
            }
    })
}

/// A link holds text and images only: formulas in it become their `$$`
/// source as text, links in it their content.
fn fit_inlines(content: &mut [Inline]) {
    for inline in content.iter_mut() {
        if let Inline::Link { content, .. } = inline
            && !link_content_fits(content)
        {
            let mut flat = Vec::with_capacity(content.len());
            flatten_link_content(std::mem::take(content), &mut flat);
            *content = normalize_inlines(flat);
        }
    }
}

fn inlines_fit(content: &[Inline]) -> bool {
    content.iter().all(|inline| match inline {
        Inline::Link { content, .. } => link_content_fits(content),
        _ => true,
    })
}

fn link_content_fits(content: &[Inline]) -> bool {
    content
        .iter()
        .all(|inline| matches!(inline, Inline::Text { .. } | Inline::Image(_) | Inline::Html(_)))
}

fn flatten_link_content(content: Vec<Inline>, out: &mut Vec<Inline>) {
    for inline in content {
        match inline {
            Inline::Link { content, .. } => flatten_link_content(content, out),
            Inline::Math { formula } => out.push(Inline::plain(format!("$${formula}$$"))),
            // A link holds no icon or expression.
            Inline::Icon { .. } | Inline::Expression { .. } => {}
            other => out.push(other),
        }
    }
}

/// Blocks carrying the content of a block that cannot stay where it is.
pub(crate) fn degrade(block: Block) -> Vec<Block> {
    match block {
        Block::Hint(hint) => hint.blocks,
        Block::Quote(blocks) => blocks,
        Block::Container(container) => container_blocks(container),
        Block::Tabs(tabs) => tabs
            .into_iter()
            .flat_map(|tab| {
                let title = (!tab.title.is_empty()).then(|| {
                    let bold = Marks {
                        bold: true,
                        ..Marks::NONE
                    };
                    Block::Paragraph(normalize_inlines(vec![Inline::marked(tab.title, bold)]))
                });
                title.into_iter().chain(tab.blocks)
            })
            .collect(),
        Block::Expandable(expandable) => {
            let title = (!expandable.title.is_empty()).then(|| Block::Paragraph(bold(expandable.title)));
            title.into_iter().chain(expandable.blocks).collect()
        }
        Block::Code(code) => vec![code_paragraph(&code)],
        Block::Images(images) => vec![Block::Paragraph(images.into_iter().map(Inline::Image).collect())],
        Block::Embed { url } => {
            let label = link_label(&url);
            vec![Block::Paragraph(vec![Inline::Link {
                target: LinkTarget::Url { url },
                content: label,
            }])]
        }
        Block::ContentRef { target } => {
            let label = link_label(&target.to_url());
            vec![Block::Paragraph(vec![Inline::Link { target, content: label }])]
        }
        Block::Math { formula } => vec![Block::Paragraph(vec![Inline::Math { formula }])],
        Block::OpenApiOperation(op) => {
            let code = Marks {
                code: true,
                ..Marks::NONE
            };
            let text = format!("{} {}", op.method.to_ascii_uppercase(), op.path);
            vec![Block::Paragraph(vec![Inline::marked(text, code)])]
        }
        Block::OpenApiSchemas(pointer) => {
            let code = Marks {
                code: true,
                ..Marks::NONE
            };
            vec![Block::Paragraph(vec![Inline::marked(pointer.schemas.join(", "), code)])]
        }
        Block::Table(table) => table_paragraphs(table),
        Block::Include { path } => vec![Block::Paragraph(vec![Inline::plain(format!(
            "{{% include {} %}}",
            super::markdown_reader::quote_attr(&path)
        ))])],
        // Always allowed; never degraded.
        block @ (Block::Paragraph(_) | Block::Heading(_) | Block::List(_) | Block::Divider | Block::Html(_)) => {
            vec![block]
        }
    }
}

impl super::model::Container {
    /// What the container says in blocks the official schema knows (see
    /// [`container_blocks`]), for forms without containers (JSON, PDF).
    pub fn schema_blocks(&self) -> Vec<Block> {
        container_blocks(self.clone())
    }
}

/// What a container says in blocks the official schema knows: a file its
/// link and caption, an update its date, the others their blocks.
pub(crate) fn container_blocks(container: super::model::Container) -> Vec<Block> {
    use super::model::ContainerKind;
    let mut out = Vec::new();
    match container.kind {
        ContainerKind::File => {
            if let Some(src) = container.attr("src").filter(|s| !s.is_empty()) {
                let name = src.rsplit('/').next().unwrap_or(src).to_owned();
                out.push(Block::Paragraph(vec![Inline::Link {
                    target: LinkTarget::from_url(src),
                    content: vec![Inline::plain(name)],
                }]));
            }
        }
        ContainerKind::Update => {
            if let Some(date) = container.attr("date").filter(|d| !d.is_empty()) {
                let bold = Marks {
                    bold: true,
                    ..Marks::NONE
                };
                out.push(Block::Paragraph(vec![Inline::marked(date.to_owned(), bold)]));
            }
        }
        _ => {}
    }
    out.extend(container.blocks.into_iter().flat_map(|block| match block {
        Block::Container(inner) => container_blocks(inner),
        other => vec![other],
    }));
    out
}

/// Inline content with its text made bold (a title kept as a paragraph).
fn bold(content: Vec<Inline>) -> Vec<Inline> {
    let content = content
        .into_iter()
        .map(|inline| match inline {
            Inline::Text { text, marks } => Inline::Text {
                text,
                marks: Marks { bold: true, ..marks },
            },
            Inline::Link { target, content } => Inline::Link {
                target,
                content: bold(content),
            },
            other => other,
        })
        .collect();
    normalize_inlines(content)
}

/// A link showing its own target.
fn link_label(url: &str) -> Vec<Inline> {
    if url.is_empty() {
        Vec::new()
    } else {
        vec![Inline::plain(url)]
    }
}

/// A code block as one paragraph: each line code-marked, lines separated by
/// line breaks, blank lines at the start and end left out.
fn code_paragraph(code: &CodeBlock) -> Block {
    let lines = &code.lines;
    let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
    let start = lines[..end].iter().position(|l| !l.is_empty()).unwrap_or(end);
    let code_mark = Marks {
        code: true,
        ..Marks::NONE
    };
    let mut content = Vec::new();
    for (i, line) in lines[start..end].iter().enumerate() {
        if i > 0 {
            content.push(Inline::plain("\n"));
        }
        content.push(Inline::marked(line.clone(), code_mark));
    }
    Block::Paragraph(normalize_inlines(content))
}

/// A table as a paragraph per row, the column titles first, cells joined
/// with ` | `.
fn table_paragraphs(table: Table) -> Vec<Block> {
    let header = table
        .columns
        .into_iter()
        .map(|c| vec![Inline::plain(c.title)])
        .collect();
    std::iter::once(header)
        .chain(table.rows)
        .map(|cells: Vec<Vec<Inline>>| {
            let mut content = Vec::new();
            for (i, cell) in cells.into_iter().enumerate() {
                if i > 0 {
                    content.push(Inline::plain(" | "));
                }
                content.extend(cell);
            }
            Block::Paragraph(normalize_inlines(content))
        })
        .collect()
}
