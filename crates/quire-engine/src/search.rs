//! Keeping the search index in step with each space's current content.
//!
//! The index holds the sections of the pages of a space's current
//! revision (`quire_store::search`). [`Revisions::commit`] calls
//! [`follow`] in the same transaction whenever a space's head moves, so the
//! index never lags or leads the content: only pages whose title,
//! description or document changed are re-indexed, and removed pages leave
//! it. [`reindex`] rebuilds one space from a snapshot (jobs and the
//! `quire search reindex` command).

use std::sync::Arc;

use quire_content::document::{Document, Section};
use quire_store::Conn;
use quire_store::search::{self, SectionText};

use crate::EngineResult;
use crate::revisions::Revisions;
use crate::snapshot::Snapshot;

impl Revisions {
    /// The sections of a page document (cached by its hash).
    pub async fn sections(&self, hash: &str) -> EngineResult<Arc<Vec<Section>>> {
        if let Some(found) = self.cache.sections.get(&hash.to_owned()) {
            return Ok(found);
        }
        let text = self.document(hash).await?;
        Ok(self.remember_sections(hash, &text))
    }

    /// [`Revisions::sections`] read on `conn`: the transaction that is
    /// writing the document, while it is being indexed.
    async fn sections_on(&self, conn: &mut Conn, hash: &str) -> EngineResult<Arc<Vec<Section>>> {
        if let Some(found) = self.cache.sections.get(&hash.to_owned()) {
            return Ok(found);
        }
        let text = self.document_on(conn, hash).await?;
        Ok(self.remember_sections(hash, &text))
    }

    fn remember_sections(&self, hash: &str, text: &str) -> Arc<Vec<Section>> {
        let sections = Arc::new(Document::from_markdown(text).sections());
        self.cache.sections.put(hash.to_owned(), sections.clone());
        sections
    }
}

/// Writes the index rows of one page of `snapshot`.
async fn index_page(revisions: &Revisions, conn: &mut Conn, snapshot: &Snapshot, page_id: &str) -> EngineResult<()> {
    let Some(page) = snapshot.tree.pages.get(page_id) else {
        return Ok(search::remove_pages(conn, &snapshot.revision.space_id, &[page_id.to_owned()]).await?);
    };
    let meta = &page.meta;
    let sections = match &meta.document {
        Some(hash) => revisions.sections_on(conn, hash).await?,
        None => Arc::new(Vec::new()),
    };
    let description = meta.description.as_deref().unwrap_or_default();
    let mut texts: Vec<SectionText<'_>> = Vec::with_capacity(sections.len() + 1);
    // The page itself (title, description and the text before the first
    // heading) is always a row, so a title match finds even an empty page.
    let intro = sections.first().filter(|s| s.anchor.is_none());
    let intro_body = match intro {
        Some(section) if description.is_empty() => section.text.clone(),
        Some(section) => format!("{description}\n{}", section.text),
        None => description.to_owned(),
    };
    texts.push(SectionText {
        ordinal: 0,
        anchor: None,
        title: &meta.title,
        heading: "",
        body: &intro_body,
    });
    for (ordinal, section) in sections.iter().filter(|s| s.anchor.is_some()).enumerate() {
        texts.push(SectionText {
            ordinal: ordinal as i64 + 1,
            anchor: section.anchor.as_deref(),
            title: &meta.title,
            heading: &section.heading,
            body: &section.text,
        });
    }
    search::replace_page(conn, &snapshot.revision.space_id, page_id, &texts).await?;
    Ok(())
}

/// Moves a space's index from the content of `before` to that of `after`;
/// returns how many pages were re-indexed or removed.
pub(crate) async fn follow(
    revisions: &Revisions,
    conn: &mut Conn,
    before: &Snapshot,
    after: &Snapshot,
) -> EngineResult<usize> {
    let mut touched = 0;
    for id in before.changed_pages(after) {
        let old = before.tree.pages.get(&id).map(|p| &p.meta);
        let new = after.tree.pages.get(&id).map(|p| &p.meta);
        let same = match (old, new) {
            (Some(old), Some(new)) => {
                old.title == new.title && old.description == new.description && old.document == new.document
            }
            _ => false,
        };
        if !same {
            index_page(revisions, conn, after, &id).await?;
            touched += 1;
        }
    }
    Ok(touched)
}

/// Rebuilds the index of a space from `snapshot`; returns the pages indexed.
pub async fn reindex(revisions: &Revisions, conn: &mut Conn, snapshot: &Snapshot) -> EngineResult<usize> {
    search::remove_space(conn, &snapshot.revision.space_id).await?;
    let pages: Vec<String> = snapshot.tree.pages.keys().cloned().collect();
    for page in &pages {
        index_page(revisions, conn, snapshot, page).await?;
    }
    Ok(pages.len())
}
