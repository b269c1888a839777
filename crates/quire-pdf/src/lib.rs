//! PDFs of spaces. A [`Book`] (pages in reading order with their depth and
//! typed documents, the images they show, the OpenAPI operations and
//! reusable content they embed) is written as Typst markup ([`markup`])
//! and typeset by the Typst compiler into a PDF ([`world`]): a title page,
//! a table of contents with page numbers, every page and heading as a PDF
//! bookmark, links between pages as internal links, external links
//! clickable, code in a monospace font, and CJK text in any CJK font found
//! (fonts are embedded as subsets).
//!
//! No I/O besides reading font files once ([`Fonts::load`]); the caller
//! gathers the content and stores the result.

mod markup;
mod world;

use std::collections::HashMap;

use quire_content::document::{Document, OpenApiOperation};

pub use world::Fonts;

/// What a PDF is made of.
#[derive(Debug, Clone, Default)]
pub struct Book {
    /// The document's title (the space's), on the title page and in the
    /// PDF's metadata.
    pub title: String,
    /// A line under the title (where the content comes from).
    pub subtitle: Option<String>,
    /// Pages in reading order; a single page gets neither title page nor
    /// table of contents.
    pub pages: Vec<BookPage>,
    /// Files of the space by id: their names (for links to them) and, for
    /// images shown, their bytes.
    pub files: HashMap<String, BookFile>,
    /// The OpenAPI operations the pages embed.
    pub operations: HashMap<OpenApiOperation, quire_openapi::Operation>,
    /// Reusable content included by pages: `(page id, include path)`.
    pub includes: HashMap<(String, String), Document>,
}

/// One page of the book.
#[derive(Debug, Clone)]
pub struct BookPage {
    pub id: String,
    pub title: String,
    pub description: Option<String>,
    /// 0 for a top-level page.
    pub depth: usize,
    pub body: PageBody,
}

/// What a page holds.
#[derive(Debug, Clone)]
pub enum PageBody {
    Document(Document),
    /// A group of pages: a title only.
    Group,
    /// A link page in the tree, pointing somewhere else.
    Link(String),
}

/// A file of the space.
#[derive(Debug, Clone, Default)]
pub struct BookFile {
    pub name: String,
    /// The bytes of an image the book shows (PNG, JPEG, GIF, WebP or SVG);
    /// anything else, or nothing, shows the image's alternative text.
    pub bytes: Option<Vec<u8>>,
}

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the PDF could not be typeset: {0}")]
    Typeset(String),
    #[error("the PDF could not be written: {0}")]
    Export(String),
}

/// Typesets `book` into PDF bytes.
pub fn render(book: &Book, fonts: &Fonts) -> Result<Vec<u8>, PdfError> {
    let source = markup::write(book);
    world::compile(&source, fonts, &book.title)
}

/// The Typst source [`render`] typesets (for tests and debugging).
pub fn source(book: &Book) -> markup::Source {
    markup::write(book)
}
