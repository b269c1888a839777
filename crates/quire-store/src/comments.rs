//! Discussions: comments on a space or on one of its change requests, the
//! replies under each comment, and emoji reactions on either.
//!
//! A discussion is addressed by its space and, for a change request's
//! discussion, the change request's id (`None`: the space's own comments).
//! Reactions are one row per (comment or reply, emoji, user), so adding the
//! same emoji twice counts once. Lists are keyset pages ordered by
//! `(posted_at, id)`. A space's open comments are a counter the three
//! comment writes below keep (migration 0025); a change request's are one
//! grouped query per list.

use std::collections::HashMap;

use quire_core::Timestamp;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

/// The table cell a comment is attached to (an opaque pair the client names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCell {
    pub record: String,
    pub definition: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentRow {
    pub id: String,
    pub space_id: String,
    /// `None` for a comment on the space itself.
    pub change_request_id: Option<String>,
    pub posted_by: String,
    pub posted_at: Timestamp,
    pub edited_at: Option<Timestamp>,
    /// Markdown.
    pub body: String,
    /// The revision the comment was posted on.
    pub revision_id: String,
    pub page_id: Option<String>,
    /// Hash of the page's document when the comment was posted.
    pub page_document: Option<String>,
    pub node_id: Option<String>,
    pub table_cell: Option<TableCell>,
    pub resolved_at: Option<Timestamp>,
    pub resolved_by: Option<String>,
}

impl CommentRow {
    pub fn is_resolved(&self) -> bool {
        self.resolved_at.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyRow {
    pub id: String,
    pub comment_id: String,
    pub posted_by: String,
    pub posted_at: Timestamp,
    pub edited_at: Option<Timestamp>,
    /// Markdown.
    pub body: String,
}

/// One user's reaction with one emoji on a comment or a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactionRow {
    /// The comment or reply reacted to.
    pub target_id: String,
    pub emoji: String,
    pub user_id: String,
    pub reacted_at: Timestamp,
}

/// How many replies one user wrote under one comment, and when the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplierRow {
    pub comment_id: String,
    pub user_id: String,
    pub count: i64,
    pub last_posted_at: Timestamp,
}

/// Which comments a list keeps.
#[derive(Debug, Clone, Default)]
pub struct CommentFilter {
    /// `Some(true)`: resolved only; `Some(false)`: open only.
    pub resolved: Option<bool>,
    pub page_id: Option<String>,
    /// Posted by one of these users (empty: anyone).
    pub authors: Vec<String>,
}

const COMMENT_COLUMNS: &str = "SELECT c.id, c.space_id, c.change_request_id, c.posted_by, c.posted_at, c.edited_at, \
     c.body, c.revision_id, c.page_id, c.page_document, c.node_id, c.table_record, c.table_definition, \
     c.resolved_at, c.resolved_by FROM comments c";

const REPLY_COLUMNS: &str =
    "SELECT r.id, r.comment_id, r.posted_by, r.posted_at, r.edited_at, r.body FROM comment_replies r";

fn time(row: &AnyRow, column: &str) -> StoreResult<Option<Timestamp>> {
    Ok(row.try_get::<Option<i64>, _>(column)?.map(Timestamp))
}

fn comment_from_row(row: &AnyRow) -> StoreResult<CommentRow> {
    let record: Option<String> = row.try_get("table_record")?;
    let definition: Option<String> = row.try_get("table_definition")?;
    Ok(CommentRow {
        id: row.try_get("id")?,
        space_id: row.try_get("space_id")?,
        change_request_id: row.try_get("change_request_id")?,
        posted_by: row.try_get("posted_by")?,
        posted_at: Timestamp(row.try_get("posted_at")?),
        edited_at: time(row, "edited_at")?,
        body: row.try_get("body")?,
        revision_id: row.try_get("revision_id")?,
        page_id: row.try_get("page_id")?,
        page_document: row.try_get("page_document")?,
        node_id: row.try_get("node_id")?,
        table_cell: record
            .zip(definition)
            .map(|(record, definition)| TableCell { record, definition }),
        resolved_at: time(row, "resolved_at")?,
        resolved_by: row.try_get("resolved_by")?,
    })
}

fn reply_from_row(row: &AnyRow) -> StoreResult<ReplyRow> {
    Ok(ReplyRow {
        id: row.try_get("id")?,
        comment_id: row.try_get("comment_id")?,
        posted_by: row.try_get("posted_by")?,
        posted_at: Timestamp(row.try_get("posted_at")?),
        edited_at: time(row, "edited_at")?,
        body: row.try_get("body")?,
    })
}

/// ` c.space_id = <space> AND c.change_request_id <IS NULL | = cr>`.
fn push_discussion(sql: &mut Sql, space_id: &str, change_request: Option<&str>) {
    sql.push(" c.space_id = ").bind(space_id.to_owned());
    match change_request {
        Some(cr) => sql.push(" AND c.change_request_id = ").bind(cr.to_owned()),
        None => sql.push(" AND c.change_request_id IS NULL"),
    };
}

/// Inserts a new comment, with its `comment_created` event.
pub async fn insert_comment(conn: &mut AnyConnection, c: &CommentRow) -> StoreResult<()> {
    crate::audit::created("comment", &c.id);
    crate::webhooks::emit(
        &mut *conn,
        crate::webhooks::Origin::Space(&c.space_id),
        quire_core::events::EventType::CommentCreated,
        serde_json::json!({
            "spaceId": c.space_id,
            "changeRequestId": c.change_request_id,
            "pageId": c.page_id,
            "commentId": c.id,
            "postedBy": { "object": "user", "id": c.posted_by },
            "body": c.body,
        }),
        c.posted_at,
    )
    .await?;
    sqlx::query(
        "INSERT INTO comments (id, space_id, change_request_id, posted_by, posted_at, edited_at, body, revision_id, \
         page_id, page_document, node_id, table_record, table_definition, resolved_at, resolved_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(&c.id)
    .bind(&c.space_id)
    .bind(&c.change_request_id)
    .bind(&c.posted_by)
    .bind(c.posted_at.0)
    .bind(c.edited_at.map(|t| t.0))
    .bind(&c.body)
    .bind(&c.revision_id)
    .bind(&c.page_id)
    .bind(&c.page_document)
    .bind(&c.node_id)
    .bind(c.table_cell.as_ref().map(|t| t.record.clone()))
    .bind(c.table_cell.as_ref().map(|t| t.definition.clone()))
    .bind(c.resolved_at.map(|t| t.0))
    .bind(&c.resolved_by)
    .execute(&mut *conn)
    .await?;
    if c.resolved_at.is_none() {
        count_open(conn, &c.space_id, c.change_request_id.as_deref(), 1).await?;
    }
    Ok(())
}

/// Adds `delta` to the space's open comments, for a comment on the space
/// itself (not on one of its change requests). Each write calls it after its
/// own statement, only when the comment opened or closed in that statement.
async fn count_open(
    conn: &mut AnyConnection,
    space_id: &str,
    change_request_id: Option<&str>,
    delta: i64,
) -> StoreResult<()> {
    if change_request_id.is_some() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO space_open_comments (space_id, comments) VALUES ($1, $2) \
         ON CONFLICT (space_id) DO UPDATE SET comments = space_open_comments.comments + excluded.comments",
    )
    .bind(space_id)
    .bind(delta)
    .execute(conn)
    .await?;
    Ok(())
}

/// A comment of the discussion (`NotFound` when it belongs to another).
pub async fn get_comment(
    conn: &mut AnyConnection,
    space_id: &str,
    change_request: Option<&str>,
    id: &str,
) -> StoreResult<CommentRow> {
    let mut sql = Sql::new(COMMENT_COLUMNS);
    sql.push(" WHERE c.id = ").bind(id.to_owned()).push(" AND");
    push_discussion(&mut sql, space_id, change_request);
    let rows = sql.fetch_all(conn).await?;
    rows.first().map(comment_from_row).transpose().found()
}

/// Writes what a comment update may change: body, edit time, resolution.
/// The resolution is written first, only if the stored one differs, so
/// that of two concurrent resolves one alone moves the open counter.
pub async fn update_comment(conn: &mut AnyConnection, c: &CommentRow) -> StoreResult<()> {
    let transition = match c.resolved_at {
        Some(_) => "UPDATE comments SET resolved_at = $2, resolved_by = $3 WHERE id = $1 AND resolved_at IS NULL",
        None => "UPDATE comments SET resolved_at = $2, resolved_by = $3 WHERE id = $1 AND resolved_at IS NOT NULL",
    };
    let moved = sqlx::query(transition)
        .bind(&c.id)
        .bind(c.resolved_at.map(|t| t.0))
        .bind(&c.resolved_by)
        .execute(&mut *conn)
        .await?;
    if moved.rows_affected() == 1 {
        let delta = if c.resolved_at.is_some() { -1 } else { 1 };
        count_open(&mut *conn, &c.space_id, c.change_request_id.as_deref(), delta).await?;
    }
    sqlx::query("UPDATE comments SET body = $2, edited_at = $3, resolved_at = $4, resolved_by = $5 WHERE id = $1")
        .bind(&c.id)
        .bind(&c.body)
        .bind(c.edited_at.map(|t| t.0))
        .bind(c.resolved_at.map(|t| t.0))
        .bind(&c.resolved_by)
        .execute(conn)
        .await?;
    Ok(())
}

/// Removes a comment with its replies and every reaction of its thread;
/// false when there was no such comment.
pub async fn delete_comment(conn: &mut AnyConnection, id: &str) -> StoreResult<bool> {
    sqlx::query("DELETE FROM comment_reactions WHERE comment_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM comment_replies WHERE comment_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    let removed = sqlx::query("DELETE FROM comments WHERE id = $1 RETURNING space_id, change_request_id, resolved_at")
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = removed else {
        return Ok(false);
    };
    if row.try_get::<Option<i64>, _>("resolved_at")?.is_none() {
        let space_id: String = row.try_get("space_id")?;
        let change_request_id: Option<String> = row.try_get("change_request_id")?;
        count_open(conn, &space_id, change_request_id.as_deref(), -1).await?;
    }
    Ok(true)
}

fn push_filter(sql: &mut Sql, space_id: &str, change_request: Option<&str>, filter: &CommentFilter) {
    sql.push(" WHERE");
    push_discussion(sql, space_id, change_request);
    match filter.resolved {
        Some(true) => sql.push(" AND c.resolved_at IS NOT NULL"),
        Some(false) => sql.push(" AND c.resolved_at IS NULL"),
        None => sql,
    };
    if let Some(page) = &filter.page_id {
        sql.push(" AND c.page_id = ").bind(page.clone());
    }
    if !filter.authors.is_empty() {
        sql.push(" AND c.posted_by IN ").bind_list(&filter.authors);
    }
}

/// The comments of a discussion, by `(posted_at, id)` in the page's direction.
pub async fn list_comments(
    conn: &mut AnyConnection,
    space_id: &str,
    change_request: Option<&str>,
    filter: &CommentFilter,
    page: &PageRequest,
) -> StoreResult<Page<CommentRow>> {
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM comments c");
    push_filter(&mut count, space_id, change_request, filter);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(COMMENT_COLUMNS);
    push_filter(&mut sql, space_id, change_request, filter);
    page.push_after(&mut sql, "c.posted_at", "c.id");
    page.push_order_and_limit(&mut sql, "c.posted_at", "c.id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(comment_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |c| Keyset {
        key: SortKey::Int(c.posted_at.0),
        id: c.id.clone(),
    }))
}

pub async fn insert_reply(conn: &mut AnyConnection, r: &ReplyRow) -> StoreResult<()> {
    crate::audit::created("comment-reply", &r.id);
    sqlx::query(
        "INSERT INTO comment_replies (id, comment_id, posted_by, posted_at, edited_at, body) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&r.id)
    .bind(&r.comment_id)
    .bind(&r.posted_by)
    .bind(r.posted_at.0)
    .bind(r.edited_at.map(|t| t.0))
    .bind(&r.body)
    .execute(conn)
    .await?;
    Ok(())
}

/// A reply under the comment (`NotFound` when it is under another).
pub async fn get_reply(conn: &mut AnyConnection, comment_id: &str, id: &str) -> StoreResult<ReplyRow> {
    let mut sql = Sql::new(REPLY_COLUMNS);
    sql.push(" WHERE r.id = ")
        .bind(id.to_owned())
        .push(" AND r.comment_id = ")
        .bind(comment_id.to_owned());
    let rows = sql.fetch_all(conn).await?;
    rows.first().map(reply_from_row).transpose().found()
}

pub async fn update_reply(conn: &mut AnyConnection, r: &ReplyRow) -> StoreResult<()> {
    sqlx::query("UPDATE comment_replies SET body = $2, edited_at = $3 WHERE id = $1")
        .bind(&r.id)
        .bind(&r.body)
        .bind(r.edited_at.map(|t| t.0))
        .execute(conn)
        .await?;
    Ok(())
}

/// Removes a reply and its reactions; false when there was no such reply.
pub async fn delete_reply(conn: &mut AnyConnection, comment_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM comment_replies WHERE id = $1 AND comment_id = $2")
        .bind(id)
        .bind(comment_id)
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    sqlx::query("DELETE FROM comment_reactions WHERE target_id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(true)
}

/// The replies under a comment, by `(posted_at, id)`.
pub async fn list_replies(
    conn: &mut AnyConnection,
    comment_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<ReplyRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM comment_replies WHERE comment_id = $1")
        .bind(comment_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new(REPLY_COLUMNS);
    sql.push(" WHERE r.comment_id = ").bind(comment_id.to_owned());
    page.push_after(&mut sql, "r.posted_at", "r.id");
    page.push_order_and_limit(&mut sql, "r.posted_at", "r.id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(reply_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |r| Keyset {
        key: SortKey::Int(r.posted_at.0),
        id: r.id.clone(),
    }))
}

/// Who replied to each of the comments, how often and when last, in the
/// order of their first reply.
pub async fn repliers(conn: &mut AnyConnection, comment_ids: &[String]) -> StoreResult<Vec<ReplierRow>> {
    let mut out = Vec::new();
    for chunk in comment_ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql = Sql::new(
            "SELECT comment_id, posted_by, COUNT(*) AS n, MIN(posted_at) AS first_at, MAX(posted_at) AS last_at \
             FROM comment_replies WHERE comment_id IN ",
        );
        sql.bind_list(chunk)
            .push(" GROUP BY comment_id, posted_by ORDER BY comment_id, first_at, posted_by");
        for row in sql.fetch_all(&mut *conn).await? {
            out.push(ReplierRow {
                comment_id: row.try_get("comment_id")?,
                user_id: row.try_get("posted_by")?,
                count: row.try_get("n")?,
                last_posted_at: Timestamp(row.try_get("last_at")?),
            });
        }
    }
    Ok(out)
}

/// Adds the user's reactions to a comment or reply (`target_id`, in the
/// thread of `comment_id`); an emoji the user already added stays as it was.
pub async fn add_reactions(
    conn: &mut AnyConnection,
    comment_id: &str,
    target_id: &str,
    user_id: &str,
    emojis: &[String],
    now: Timestamp,
) -> StoreResult<()> {
    if emojis.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new("INSERT INTO comment_reactions (target_id, emoji, user_id, comment_id, reacted_at) VALUES ");
    sql.not_kept();
    for (i, emoji) in emojis.iter().enumerate() {
        if i > 0 {
            sql.push(", ");
        }
        sql.push("(")
            .bind(target_id.to_owned())
            .push(", ")
            .bind(emoji.clone())
            .push(", ")
            .bind(user_id.to_owned())
            .push(", ")
            .bind(comment_id.to_owned())
            .push(", ")
            .bind(now.0)
            .push(")");
    }
    sql.push(" ON CONFLICT (target_id, emoji, user_id) DO NOTHING");
    sql.execute(conn).await?;
    Ok(())
}

/// Removes the user's reactions with these emojis (absent ones are ignored).
pub async fn remove_reactions(
    conn: &mut AnyConnection,
    target_id: &str,
    user_id: &str,
    emojis: &[String],
) -> StoreResult<()> {
    if emojis.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new("DELETE FROM comment_reactions WHERE target_id = ");
    sql.bind(target_id.to_owned())
        .push(" AND user_id = ")
        .bind(user_id.to_owned())
        .push(" AND emoji IN ")
        .bind_list(emojis);
    sql.execute(conn).await?;
    Ok(())
}

/// Every reaction on the comments or replies, oldest first.
pub async fn reactions(conn: &mut AnyConnection, target_ids: &[String]) -> StoreResult<Vec<ReactionRow>> {
    let mut out = Vec::new();
    for chunk in target_ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql =
            Sql::new("SELECT target_id, emoji, user_id, reacted_at FROM comment_reactions WHERE target_id IN ");
        sql.bind_list(chunk).push(" ORDER BY reacted_at, emoji, user_id");
        for row in sql.fetch_all(&mut *conn).await? {
            out.push(ReactionRow {
                target_id: row.try_get("target_id")?,
                emoji: row.try_get("emoji")?,
                user_id: row.try_get("user_id")?,
                reacted_at: Timestamp(row.try_get("reacted_at")?),
            });
        }
    }
    Ok(out)
}

/// Open comments on each change request; absent: none.
pub async fn open_in_change_requests(
    conn: &mut AnyConnection,
    change_request_ids: &[String],
) -> StoreResult<HashMap<String, i64>> {
    let mut out = HashMap::new();
    for chunk in change_request_ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql = Sql::new(
            "SELECT change_request_id, COUNT(*) AS n FROM comments WHERE resolved_at IS NULL AND change_request_id IN ",
        );
        sql.bind_list(chunk).push(" GROUP BY change_request_id");
        for row in sql.fetch_all(&mut *conn).await? {
            out.insert(row.try_get("change_request_id")?, row.try_get("n")?);
        }
    }
    Ok(out)
}

/// The users (ids) who posted a comment or a reply in the discussion and are
/// members of `org_id`, by display name then id.
pub async fn commenters(
    conn: &mut AnyConnection,
    org_id: &str,
    space_id: &str,
    change_request: Option<&str>,
    page: &PageRequest,
) -> StoreResult<Page<(String, String)>> {
    let push_filter = |sql: &mut Sql| {
        sql.push(" FROM members m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ")
            .bind(org_id.to_owned())
            .push(" AND m.user_id IN (SELECT c.posted_by FROM comments c WHERE");
        push_discussion(sql, space_id, change_request);
        sql.push(" UNION SELECT r.posted_by FROM comment_replies r JOIN comments c ON c.id = r.comment_id WHERE");
        push_discussion(sql, space_id, change_request);
        sql.push(")");
    };
    let mut count = Sql::new("SELECT COUNT(*) AS n");
    push_filter(&mut count);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new("SELECT m.user_id AS user_id, u.display_name AS name");
    push_filter(&mut sql);
    page.push_after(&mut sql, "u.display_name", "m.user_id");
    page.push_order_and_limit(&mut sql, "u.display_name", "m.user_id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows
        .iter()
        .map(|row| Ok((row.try_get("user_id")?, row.try_get("name")?)))
        .collect::<StoreResult<Vec<(String, String)>>>()?;
    Ok(page.finish(items, total, |(id, name)| Keyset {
        key: SortKey::Text(name.clone()),
        id: id.clone(),
    }))
}
