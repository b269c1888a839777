//! Keeping the search index in step with each space's current content.
//!
//! The index holds the pages of a space's current revision
//! (`quire_store::search`): title, headings and text of each. [`Revisions::commit`] calls
//! [`follow`] in the same transaction whenever a space's head moves, so the
//! index never lags or leads the content: only pages whose title,
//! description or document changed are re-indexed, and removed pages leave
//! it. [`reindex`] rebuilds one space from a snapshot (jobs and the
//! `quire search reindex` command).

use std::sync::Arc;

use quire_content::document::{Document, Section};
use quire_store::Conn;
use quire_store::search::{self, PageText};

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
        self.cache.sections.insert(hash.to_owned(), sections.clone());
        sections
    }
}

/// What the index holds of a page: its title, headings and text.
struct Indexed {
    page_id: String,
    title: String,
    headings: String,
    body: String,
}

/// Writes the index rows of these pages of `snapshot` (and removes those
/// the snapshot no longer has), in a few statements.
async fn index_pages(
    revisions: &Revisions,
    conn: &mut Conn,
    snapshot: &Snapshot,
    page_ids: &[String],
) -> EngineResult<()> {
    let mut gone = Vec::new();
    let mut rows = Vec::with_capacity(page_ids.len());
    for page_id in page_ids {
        let Some(page) = snapshot.tree.pages.get(page_id) else {
            gone.push(page_id.clone());
            continue;
        };
        let meta = &page.meta;
        let sections = match &meta.document {
            Some(hash) => revisions.sections_on(conn, hash).await?,
            None => Arc::new(Vec::new()),
        };
        let headings: Vec<&str> = sections
            .iter()
            .map(|s| s.heading.as_str())
            .filter(|h| !h.is_empty())
            .collect();
        let mut body = meta.description.clone().unwrap_or_default();
        for section in sections.iter() {
            if !body.is_empty() {
                body.push('\n');
            }
            body.push_str(&section.text);
        }
        rows.push(Indexed {
            page_id: page_id.clone(),
            title: meta.title.clone(),
            headings: headings.join("\n"),
            body,
        });
    }
    let space_id = &snapshot.revision.space_id;
    search::remove_pages(conn, space_id, &gone).await?;
    let texts: Vec<(&str, PageText<'_>)> = rows
        .iter()
        .map(|r| {
            (
                r.page_id.as_str(),
                PageText {
                    title: &r.title,
                    headings: &r.headings,
                    body: &r.body,
                },
            )
        })
        .collect();
    search::put_pages(conn, space_id, &texts).await?;
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
    let mut changed = Vec::new();
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
            changed.push(id);
        }
    }
    for chunk in changed.chunks(1_000) {
        index_pages(revisions, conn, after, chunk).await?;
    }
    Ok(changed.len())
}

/// Brings the index of a space that lags (a commit with
/// [`Indexing::Later`](crate::revisions::Indexing)) to the space's current
/// revision, in one transaction holding the space's row at that revision;
/// returns the pages indexed (none when it did not lag). If the space moves
/// meanwhile, it reads again and goes on.
pub async fn catch_up(revisions: &Revisions, space_id: &str) -> EngineResult<usize> {
    loop {
        let (from, head) = {
            let mut conn = revisions.db.read().await?;
            let from = search::lagging(&mut conn, space_id).await?;
            let head = quire_store::spaces::get_any(&mut conn, space_id).await?.revision_id;
            (from, head)
        };
        let Some(from) = from else {
            return Ok(0);
        };
        let before = revisions.snapshot(space_id, &from).await?;
        let after = revisions.snapshot(space_id, &head).await?;
        let mut tx = revisions.db.write().await?;
        if !quire_store::spaces::lock_at_revision(&mut tx, space_id, &head).await?
            || search::lagging(&mut tx, space_id).await?.as_deref() != Some(from.as_str())
        {
            continue;
        }
        let indexed = follow(revisions, &mut tx, &before, &after).await?;
        search::clear_lagging(&mut tx, space_id).await?;
        tx.commit().await?;
        return Ok(indexed);
    }
}

/// Rebuilds the index of a space from `snapshot`; returns the pages indexed.
pub async fn reindex(revisions: &Revisions, conn: &mut Conn, snapshot: &Snapshot) -> EngineResult<usize> {
    search::remove_space(conn, &snapshot.revision.space_id).await?;
    search::clear_lagging(conn, &snapshot.revision.space_id).await?;
    let pages: Vec<String> = snapshot.tree.pages.keys().cloned().collect();
    for chunk in pages.chunks(1_000) {
        index_pages(revisions, conn, snapshot, chunk).await?;
    }
    Ok(pages.len())
}
