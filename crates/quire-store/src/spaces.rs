//! Spaces: the containers of pages and files, and their soft deletion.

use std::collections::HashMap;

use quire_core::{DefaultLevel, EditMode, Timestamp, Visibility};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::collections::{default_level_column, push_granted};
use crate::error::{FoundExt, StoreError, StoreResult};
use crate::git_syncs::{self, GitSyncRow};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpaceRow {
    pub id: String,
    pub organization_id: String,
    pub parent_id: Option<String>,
    pub title: String,
    pub emoji: String,
    pub visibility: Visibility,
    pub edit_mode: EditMode,
    pub default_level: DefaultLevel,
    /// The space's current revision.
    pub revision_id: String,
    /// Secret that opens a `share-link` space.
    pub share_key: String,
    pub position: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub deleted_at: Option<Timestamp>,
}

macro_rules! space_select {
    () => {
        "SELECT s.id, s.organization_id, s.parent_id, s.title, s.emoji, s.visibility, s.edit_mode, s.default_level, \
         s.revision_id, s.share_key, s.position, s.created_at, s.updated_at, s.deleted_at FROM spaces s"
    };
}

fn from_row(row: &AnyRow) -> StoreResult<SpaceRow> {
    let visibility: String = row.try_get("visibility")?;
    let edit_mode: String = row.try_get("edit_mode")?;
    Ok(SpaceRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        parent_id: row.try_get("parent_id")?,
        title: row.try_get("title")?,
        emoji: row.try_get("emoji")?,
        visibility: Visibility::parse(&visibility).ok_or_else(|| StoreError::Corrupt(visibility.clone()))?,
        edit_mode: EditMode::parse(&edit_mode).ok_or_else(|| StoreError::Corrupt(edit_mode.clone()))?,
        default_level: default_level_column(row, "default_level")?,
        revision_id: row.try_get("revision_id")?,
        share_key: row.try_get("share_key")?,
        position: row.try_get("position")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
        deleted_at: row.try_get::<Option<i64>, _>("deleted_at")?.map(Timestamp),
    })
}

pub async fn insert(conn: &mut AnyConnection, s: &SpaceRow) -> StoreResult<()> {
    crate::audit::created("space", &s.id);
    sqlx::query(
        "INSERT INTO spaces (id, organization_id, parent_id, title, emoji, visibility, edit_mode, default_level, \
         revision_id, share_key, position, created_at, updated_at, deleted_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
    )
    .bind(&s.id)
    .bind(&s.organization_id)
    .bind(&s.parent_id)
    .bind(&s.title)
    .bind(&s.emoji)
    .bind(s.visibility.as_str())
    .bind(s.edit_mode.as_str())
    .bind(s.default_level.to_column())
    .bind(&s.revision_id)
    .bind(&s.share_key)
    .bind(s.position)
    .bind(s.created_at.0)
    .bind(s.updated_at.0)
    .bind(s.deleted_at.map(|t| t.0))
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes every mutable field.
pub async fn update(conn: &mut AnyConnection, s: &SpaceRow) -> StoreResult<()> {
    sqlx::query(
        "UPDATE spaces SET organization_id = $2, parent_id = $3, title = $4, emoji = $5, visibility = $6, \
         edit_mode = $7, default_level = $8, position = $9, updated_at = $10, deleted_at = $11 WHERE id = $1",
    )
    .bind(&s.id)
    .bind(&s.organization_id)
    .bind(&s.parent_id)
    .bind(&s.title)
    .bind(&s.emoji)
    .bind(s.visibility.as_str())
    .bind(s.edit_mode.as_str())
    .bind(s.default_level.to_column())
    .bind(s.position)
    .bind(s.updated_at.0)
    .bind(s.deleted_at.map(|t| t.0))
    .execute(conn)
    .await?;
    Ok(())
}

/// The space, deleted or not.
pub async fn get_any(conn: &mut AnyConnection, id: &str) -> StoreResult<SpaceRow> {
    let row = sqlx::query(concat!(space_select!(), " WHERE s.id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(from_row).transpose().found()
}

/// These spaces (deleted or not), in no particular order; ids without a
/// space are skipped.
pub async fn get_many(conn: &mut AnyConnection, ids: &[String]) -> StoreResult<Vec<SpaceRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = Sql::new(concat!(space_select!(), " WHERE s.id IN "));
    sql.bind_list(ids);
    let rows = sql.fetch_all(conn).await?;
    rows.iter().map(from_row).collect()
}

/// What a space's view shows beside its row.
#[derive(Debug, Clone, Default)]
pub struct SpaceExtras {
    /// Change requests `(total, open, draft)`. The total is the space's
    /// counter of numbers given (a change request is never deleted on its
    /// own); open and draft ones are counted on the index of (space,
    /// status). So a space with 50,000 merged change requests answers as
    /// fast as a new one.
    pub change_requests: (i64, i64, i64),
    /// Open comments on the space itself (change request comments aside),
    /// as counted by the comment writes.
    pub open_comments: i64,
    /// The space's Git Sync, when it has one.
    pub git_sync: Option<GitSyncRow>,
}

/// The extras of each of these spaces, in one query (one per 500 spaces):
/// they were four round trips, and under load each one waited its turn.
/// Ids without a space are absent.
pub async fn extras_of(conn: &mut AnyConnection, ids: &[String]) -> StoreResult<HashMap<String, SpaceExtras>> {
    let mut out = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql = Sql::new(&format!(
            "SELECT s.id AS space, s.change_request_counter AS requests, \
             (SELECT COUNT(*) FROM change_requests c WHERE c.space_id = s.id AND c.status = 'open') AS open_requests, \
             (SELECT COUNT(*) FROM change_requests c WHERE c.space_id = s.id AND c.status = 'draft') AS draft_requests, \
             COALESCE(o.comments, 0) AS open_comments, g.* FROM spaces s \
             LEFT JOIN space_open_comments o ON o.space_id = s.id \
             LEFT JOIN (SELECT {} FROM git_syncs) g ON g.space_id = s.id \
             WHERE s.id IN ",
            git_syncs::COLUMNS
        ));
        sql.bind_list(chunk);
        for row in sql.fetch_all(&mut *conn).await? {
            let git_sync = match row.try_get::<Option<String>, _>("space_id")? {
                Some(_) => Some(git_syncs::from_row(&row)?),
                None => None,
            };
            let extras = SpaceExtras {
                change_requests: (
                    row.try_get("requests")?,
                    row.try_get("open_requests")?,
                    row.try_get("draft_requests")?,
                ),
                open_comments: row.try_get("open_comments")?,
                git_sync,
            };
            out.insert(row.try_get("space")?, extras);
        }
    }
    Ok(out)
}

/// Locks the space's row until the transaction ends if it is still at
/// `revision`; false otherwise. Writers that must see the content stay put
/// while they work (a full re-index) take it.
pub async fn lock_at_revision(conn: &mut AnyConnection, id: &str, revision: &str) -> StoreResult<bool> {
    let done = sqlx::query("UPDATE spaces SET revision_id = revision_id WHERE id = $1 AND revision_id = $2")
        .bind(id)
        .bind(revision)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Ids of every live space, of every organization.
pub async fn live_ids(conn: &mut AnyConnection) -> StoreResult<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT id FROM spaces WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(conn)
            .await?,
    )
}

/// Removes the space for good, with its grants.
pub async fn purge(conn: &mut AnyConnection, id: &str) -> StoreResult<()> {
    crate::search::remove_space(conn, id).await?;
    sqlx::query("DELETE FROM content_grants WHERE resource_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM spaces WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Which spaces a list shows (deleted spaces never).
#[derive(Debug, Clone, Default)]
pub struct SpaceFilter {
    /// Only the spaces directly in this collection.
    pub parent: Option<String>,
    /// Only spaces visible through this user's grants (for guests).
    pub granted_to: Option<String>,
}

pub async fn list(
    conn: &mut AnyConnection,
    org_id: &str,
    filter: &SpaceFilter,
    page: &PageRequest,
) -> StoreResult<Page<SpaceRow>> {
    let push_filter = |sql: &mut Sql| {
        sql.push(" WHERE s.organization_id = ")
            .bind(org_id.to_owned())
            .push(" AND s.deleted_at IS NULL");
        if let Some(parent) = &filter.parent {
            sql.push(" AND s.parent_id = ").bind(parent.clone());
        }
        if let Some(user) = &filter.granted_to {
            sql.push(" AND (s.id IN (SELECT g.resource_id FROM content_grants g WHERE g.organization_id = ")
                .bind(org_id.to_owned())
                .push(" AND ((g.principal_kind = 'user' AND g.principal_id = ")
                .bind(user.clone())
                .push(") OR (g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ")
                .bind(user.clone())
                .push(")))) OR s.parent_id IS NOT NULL");
            push_granted(sql, org_id, user, "s.parent_id");
            sql.push(")");
        }
    };
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM spaces s");
    push_filter(&mut count);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(space_select!());
    push_filter(&mut sql);
    page.push_after(&mut sql, "s.position", "s.id");
    page.push_order_and_limit(&mut sql, "s.position", "s.id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |s| Keyset {
        key: SortKey::Int(s.position),
        id: s.id.clone(),
    }))
}

/// Every space of the organization in a collection subtree moves to `org_id`.
pub async fn move_to_org(conn: &mut AnyConnection, collection_ids: &[String], org_id: &str) -> StoreResult<()> {
    for id in collection_ids {
        sqlx::query("UPDATE spaces SET organization_id = $2 WHERE parent_id = $1")
            .bind(id)
            .bind(org_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Ids of the spaces (deleted ones included) directly in any of the collections.
pub async fn ids_under(conn: &mut AnyConnection, collection_ids: &[String]) -> StoreResult<Vec<String>> {
    let mut ids = Vec::new();
    for id in collection_ids {
        let mut found: Vec<String> = sqlx::query_scalar("SELECT id FROM spaces WHERE parent_id = $1")
            .bind(id)
            .fetch_all(&mut *conn)
            .await?;
        ids.append(&mut found);
    }
    Ok(ids)
}

/// How many live spaces a list with `filter` holds.
pub async fn count(conn: &mut AnyConnection, org_id: &str, filter: &SpaceFilter) -> StoreResult<i64> {
    if filter.parent.is_none() && filter.granted_to.is_none() {
        return Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM spaces WHERE organization_id = $1 AND deleted_at IS NULL")
                .bind(org_id)
                .fetch_one(conn)
                .await?,
        );
    }
    let page = PageRequest {
        after: None,
        limit: 0,
        descending: false,
    };
    Ok(list(conn, org_id, filter, &page).await?.total.unwrap_or_default())
}
