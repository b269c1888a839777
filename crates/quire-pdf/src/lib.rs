//! PDFs of spaces. A [`Book`] (pages in reading order with their depth and
//! typed documents, the images they show, the OpenAPI operations and
//! reusable content they embed) is written as Typst markup ([`markup`])
//! and typeset by the Typst compiler into a PDF ([`world`]): a title page,
//! a table of contents with page numbers, every page and heading as a PDF
//! bookmark, links between pages as internal links, external links
//! clickable, code in a monospace font, and CJK text in any CJK font found
//! (fonts are embedded as subsets). Which images are shown is decided first
//! ([`images`]): by the pixels they decode to, not their bytes, and SVGs
//! without the files they link.
//!
//! No I/O besides reading font files once ([`Fonts::load`]); the caller
//! gathers the content and stores the result.

mod images;
mod markup;
mod world;

use std::collections::HashMap;

use quire_content::document::{Document, OpenApiOperation};

pub use images::{MAX_BOOK_IMAGE_MEMORY, MAX_IMAGE_PIXELS, MAX_SVG_BYTES, MAX_SVG_NODES};
pub use markup::Target;
pub use world::Fonts;

use typst::ecow::EcoVec;
use typst::layout::Point;
use typst_layout::Page;

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
    /// anything else, or nothing, or an image over the limits
    /// ([`MAX_IMAGE_PIXELS`], [`MAX_BOOK_IMAGE_MEMORY`]), shows the image's
    /// alternative text.
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
///
/// Part by part ([`markup::parts`]), so the typesetter's memory is bounded
/// by a part rather than the book, then joined into one document. A part
/// linking to another is typeset twice: first to learn where every label
/// is, then with links pointing there. The front matter (title page and
/// table of contents, for books of several pages) is typeset last, once
/// the page numbers are known, and placed first. Which images are shown is
/// decided first, for the whole book (`images::select`).
pub fn render(book: &Book, fonts: &Fonts) -> Result<Vec<u8>, PdfError> {
    let parts = markup::parts(book);
    let shown = images::select(book, &parts, &images::LIMITS);
    // Each part's pages (when final), page count and label positions.
    let mut finished: Vec<Option<EcoVec<Page>>> = Vec::with_capacity(parts.len());
    let mut counts = Vec::with_capacity(parts.len());
    let mut found: Vec<(usize, String, usize, Point)> = Vec::new();
    let mut info = None;
    let mut number = 1;
    for (index, range) in parts.iter().enumerate() {
        let chunk = markup::chunk(book, range.clone(), number, &shown[index], None);
        let document = world::typeset(&chunk.text, &chunk.images, fonts, index)?;
        for (label, page, point) in world::positions(&document, &chunk.labels) {
            found.push((index, label, page, point));
        }
        if info.is_none() {
            info = Some(typst::model::Document::info(&document).clone());
        }
        let count = document.pages().len();
        counts.push(count);
        number += count;
        finished.push((!chunk.needs_targets).then(|| document.pages().iter().cloned().collect()));
    }
    let first_numbers: Vec<usize> = counts
        .iter()
        .scan(0, |before, count| {
            let first = *before;
            *before += count;
            Some(first)
        })
        .collect();
    let target = |front: usize, (part, label, page, point): &(usize, String, usize, Point)| {
        (
            label.clone(),
            Target {
                page: front + first_numbers[*part] + page,
                x: point.x.to_pt(),
                y: point.y.to_pt(),
            },
        )
    };
    let mut front_pages = EcoVec::new();
    let mut targets: HashMap<String, Target> = found.iter().map(|f| target(0, f)).collect();
    if book.pages.len() > 1 {
        let mut entries = markup::toc(book);
        for entry in &mut entries {
            entry.number = targets.get(&entry.label).map_or(0, |t| t.page);
        }
        let index = parts.len();
        let draft = world::typeset(&markup::front(book, &entries, None), &[], fonts, index)?;
        let front = draft.pages().len();
        drop(draft);
        targets = found.iter().map(|f| target(front, f)).collect();
        let document = world::typeset(&markup::front(book, &entries, Some(&targets)), &[], fonts, index)?;
        front_pages = document.pages().iter().cloned().collect();
    }
    let mut pages = front_pages;
    for (index, range) in parts.iter().enumerate() {
        let part = match finished[index].take() {
            Some(part) => part,
            None => {
                let chunk = markup::chunk(
                    book,
                    range.clone(),
                    first_numbers[index] + 1,
                    &shown[index],
                    Some(&targets),
                );
                let document = world::typeset(&chunk.text, &chunk.images, fonts, index)?;
                document.pages().iter().cloned().collect()
            }
        };
        pages.extend(part);
    }
    world::export(pages, info.unwrap_or_default(), &book.title)
}

/// The Typst source of the whole book as one part, as [`render`] writes
/// its parts (for tests and debugging).
pub fn source(book: &Book) -> markup::Chunk {
    let whole = 0..book.pages.len();
    let shown = images::select(book, std::slice::from_ref(&whole), &images::LIMITS);
    let none = images::Shown::new();
    markup::chunk(book, whole, 1, shown.first().unwrap_or(&none), None)
}
