//! Page documents: a typed model ([`Document`]) and its two written forms,
//! GitBook-flavoured markdown (Quire's canonical page form) and the official
//! API's JSON document (`JSONDocument`).
//!
//! Every conversion goes through the model:
//!
//! | from | to | where |
//! |---|---|---|
//! | markdown | model | [`Document::from_markdown`] (`markdown_reader`) |
//! | model | markdown | [`Document::to_markdown`] (`markdown_writer`) |
//! | JSON | model | [`Document::from_json`] (`json_reader`, strict) |
//! | model | JSON | [`Document::to_json`] (`json_writer`) |
//! | model over old markdown | markdown | [`Document::to_markdown_over`] (`keep`: unchanged blocks as written) |
//!
//! [`markdown_to_document`] and [`document_to_markdown`] chain them, for
//! callers that hold JSON values. The schema limits what each container
//! holds; [`Document::fit`] rewrites what markdown put where the schema
//! forbids it (`fit`). `text` reads plain text and headings for indexing and
//! layout ([`plain_text`], [`Block::plain_text`], [`Document::headings`]).

mod fit;
pub mod html;
mod json_reader;
mod json_writer;
mod keep;
mod markdown_reader;
mod markdown_writer;
mod model;
mod prose;
mod text;

#[cfg(test)]
mod keep_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod spec;
#[cfg(test)]
mod tests;

use std::fmt;

use serde_json::Value;

pub use model::{
    Block, CodeBlock, Column, ColumnAlign, Container, ContainerKind, Document, Expandable, Heading, HeadingLevel, Hint,
    HintStyle, Image, ImageSource, Inline, LinkTarget, List, ListItem, ListKind, Mark, Marks, OpenApiOperation,
    OpenApiSchemas, Overflow, Tab, Table, TableCell, anchor_id, normalize_inlines,
};
pub use text::{Section, Walk, plain_text};

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

/// The JSON document for a page's markdown (front matter aside).
pub fn markdown_to_document(markdown: &str) -> Value {
    Document::from_markdown(markdown).to_json()
}

/// Canonical markdown for a JSON document, or what makes it unacceptable.
pub fn document_to_markdown(doc: &Value) -> Result<String, DocumentError> {
    Ok(Document::from_json(doc)?.to_markdown())
}

/// The markdown of a page whose markdown was `old`, now holding the JSON
/// document `doc`: `old`'s front matter and the blocks `doc` did not change
/// as they were written ([`Document::to_markdown_over`]).
pub fn document_to_markdown_over(doc: &Value, old: &str) -> Result<String, DocumentError> {
    Ok(Document::from_json(doc)?.to_markdown_over(old))
}

/// A page's JSON document as the API shows it: the page's content without
/// its title heading ([`Document::without_title`]).
pub fn page_document(markdown: &str, title: &str) -> Value {
    Document::from_markdown(markdown).without_title(title).to_json()
}

/// The markdown of a page whose markdown was `old` (titled `old_title`),
/// now titled `title` and holding the JSON document `doc` as the API shows
/// it: the title heading given back ([`Document::with_title_of`]), then
/// written over `old` ([`Document::to_markdown_over`]).
pub fn page_markdown_over(doc: &Value, old: &str, old_title: &str, title: &str) -> Result<String, DocumentError> {
    Ok(Document::from_json(doc)?
        .with_title_of(old, old_title, title)
        .to_markdown_over(old))
}
