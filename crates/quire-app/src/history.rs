//! A space's history: the revisions of its main line (first parents from
//! the current revision back to the first), newest first, optionally only
//! those that changed one page. Restoring a page or the whole space is a
//! change request of `revert_page` changes, made by the client.

use quire_core::Role;
use quire_store::content::{self, RevisionRow};
use quire_store::users::{self, UserRow};

use crate::access;
use crate::error::{AppError, AppResult};
use crate::{App, Caller};

/// Revisions a page of history holds at most.
pub const MAX_LIMIT: usize = 100;
/// Revisions looked at at most for one page of a page's history (a page
/// changed rarely in a long history ends its page early, with a cursor).
const MAX_SCANNED: usize = 1000;

/// One revision of the history.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    pub revision: RevisionRow,
    pub author: Option<UserRow>,
}

/// A page of history and where the next one starts.
#[derive(Debug, Clone)]
pub struct History {
    pub entries: Vec<HistoryEntry>,
    pub next: Option<String>,
}

/// The space's history from `from` (a revision of its main line; the
/// current revision when absent), at most `limit` entries; with `page`,
/// only the revisions that changed that page (its content, title or place).
pub async fn history(
    app: &App,
    caller: &Caller,
    space_id: &str,
    page: Option<&str>,
    from: Option<&str>,
    limit: usize,
) -> AppResult<History> {
    let limit = limit.clamp(1, MAX_LIMIT);
    let space = {
        let mut conn = app.db.read().await?;
        access::space_with_role(&mut conn, caller, space_id, Role::Read, "read its history")
            .await?
            .0
    };
    let mut next = Some(from.unwrap_or(&space.revision_id).to_owned());
    let mut rows = Vec::new();
    let mut scanned = 0;
    while let Some(id) = next.take() {
        if rows.len() == limit || scanned == MAX_SCANNED {
            next = Some(id);
            break;
        }
        scanned += 1;
        // A connection per step: none is held while the engine reads.
        let row = {
            let mut conn = app.db.read().await?;
            content::get_revision(&mut conn, &space.id, &id)
                .await
                .map_err(|e| match e {
                    quire_store::StoreError::NotFound => AppError::not_found("revision", &id),
                    other => other.into(),
                })?
        };
        next = row.parents.first().cloned();
        let keep = match page {
            None => true,
            Some(page) => {
                let now = app.engine.revisions.snapshot(&space.id, &row.id).await?;
                let before = match &next {
                    Some(parent) => Some(app.engine.revisions.snapshot(&space.id, parent).await?),
                    None => None,
                };
                now.tree.pages.get(page) != before.as_ref().and_then(|b| b.tree.pages.get(page))
            }
        };
        if keep {
            rows.push(row);
        }
    }
    let authors: Vec<String> = rows.iter().filter_map(|r| r.author_id.clone()).collect();
    let users = {
        let mut conn = app.db.read().await?;
        users::get_many(&mut conn, &authors).await?
    };
    Ok(History {
        entries: rows
            .into_iter()
            .map(|revision| HistoryEntry {
                author: revision.author_id.as_ref().and_then(|a| users.get(a).cloned()),
                revision,
            })
            .collect(),
        next,
    })
}
