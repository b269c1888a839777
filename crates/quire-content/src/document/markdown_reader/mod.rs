//! Markdown to model: GitBook-flavoured markdown (front matter, GitBook
//! block tags, CommonMark with GFM tables, strikethrough and task lists)
//! read into a [`Document`] that fits the schema.
//!
//! GitBook blocks (`{% hint %}`, `{% tabs %}`, `{% code %}`,
//! `{% content-ref %}`, `{% embed %}`, `{% include %}`, `$$` formulas and
//! `<details>` expandables)
//! are recognised when their tags start a line at the top level or inside
//! another GitBook block ([`tags`]); inside lists and quotes their text stays
//! text. What is between them is CommonMark ([`commonmark`]). Headings get
//! anchor ids unique within the page. Blocks the schema forbids where they
//! sit are then rewritten ([`super::fit`]).

mod commonmark;
mod figure;
mod tags;
mod units;

use std::collections::HashSet;

use super::fit::{Place, fit_blocks};
use super::model::{
    Block, Container, Document, Expandable, Hint, HintStyle, Inline, LinkTarget, OpenApiOperation, OpenApiSchemas,
    Overflow, Tab, anchor_id,
};
use crate::markdown::split_front_matter;
use tags::Segment;

pub(crate) use tags::quote_attr;
pub(super) use units::{Unit, source_units};

impl Document {
    /// Reads a page's markdown. Never fails: what is not markdown we know
    /// is text.
    pub fn from_markdown(markdown: &str) -> Document {
        let (front_matter, body) = split_front_matter(markdown);
        Document {
            front_matter: front_matter.map(str::to_owned),
            blocks: read_body(body, &mut Ids::default()),
        }
    }
}

/// The blocks of markdown without front matter, headings named after
/// those `ids` already holds.
fn read_body(body: &str, ids: &mut Ids) -> Vec<Block> {
    fit_blocks(segment_blocks(tags::segments(body, 0), ids), Place::Top)
}

/// Heading ids, unique within a document.
#[derive(Default, Clone)]
struct Ids {
    headings: HashSet<String>,
}

impl Ids {
    fn heading(&mut self, text: &str) -> String {
        let base = anchor_id(text);
        if self.headings.insert(base.clone()) {
            return base;
        }
        let mut n = 1;
        loop {
            let id = format!("{base}-{n}");
            if self.headings.insert(id.clone()) {
                return id;
            }
            n += 1;
        }
    }
}

fn segment_blocks(segments: Vec<Segment>, ids: &mut Ids) -> Vec<Block> {
    let mut blocks = Vec::new();
    for segment in segments {
        match segment {
            Segment::Markdown(src) => blocks.extend(commonmark::parse_markdown(&src, ids)),
            Segment::Hint { style, body } => blocks.push(Block::Hint(Hint {
                style: HintStyle::parse(&style).unwrap_or(HintStyle::Info),
                blocks: segment_blocks(body, ids),
            })),
            Segment::Tabs(tabs) => {
                let tabs = tabs
                    .into_iter()
                    .map(|(title, body)| Tab {
                        title,
                        blocks: segment_blocks(body, ids),
                    })
                    .collect();
                blocks.push(Block::Tabs(tabs));
            }
            Segment::Expandable { open, title, body } => blocks.push(Block::Expandable(Expandable {
                title: commonmark::parse_inline_line(&title),
                open,
                blocks: segment_blocks(body, ids),
            })),
            Segment::Code(attrs, body) => {
                let mut inner = commonmark::parse_markdown(&body, ids);
                for block in &mut inner {
                    if let Block::Code(code) = block {
                        for (key, value) in &attrs {
                            match (key.as_str(), value.as_str()) {
                                ("title", title) => code.title = Some(title.to_owned()),
                                ("overflow", overflow) => code.overflow = Overflow::parse(overflow).or(code.overflow),
                                ("lineNumbers", "true") => code.line_numbers = Some(true),
                                ("lineNumbers", "false") => code.line_numbers = Some(false),
                                ("expandable", "true") => code.expandable = Some(true),
                                _ => {}
                            }
                        }
                    }
                }
                blocks.extend(inner);
            }
            Segment::ContentRef(url) => blocks.push(Block::ContentRef {
                target: LinkTarget::from_url(&url),
            }),
            Segment::Include(path) => blocks.push(Block::Include { path }),
            Segment::Embed(url) => blocks.push(Block::Embed { url }),
            Segment::OpenApi(spec, path, method) => {
                blocks.push(Block::OpenApiOperation(OpenApiOperation { spec, path, method }))
            }
            Segment::Math(formula) => blocks.push(Block::Math { formula }),
            Segment::OpenApiSchemas(spec, schemas, grouped) => {
                blocks.push(Block::OpenApiSchemas(OpenApiSchemas { spec, schemas, grouped }))
            }
            Segment::Container { kind, attrs, body } => blocks.push(Block::Container(Container {
                kind,
                attrs,
                blocks: segment_blocks(body, ids),
            })),
            Segment::Raw(line) => blocks.push(Block::Paragraph(vec![Inline::plain(line)])),
        }
    }
    blocks
}
