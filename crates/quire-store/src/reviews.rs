//! Reviews of change requests and the reviews requested of people.

use quire_core::Timestamp;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRow {
    pub id: String,
    pub change_request_id: String,
    pub reviewer_id: String,
    pub requested_by: Option<String>,
    /// `approved` or `changes-requested`.
    pub status: String,
    pub revision_id: String,
    pub comment_id: Option<String>,
    pub created_at: Timestamp,
}

fn review(row: &AnyRow) -> StoreResult<ReviewRow> {
    Ok(ReviewRow {
        id: row.try_get("id")?,
        change_request_id: row.try_get("change_request_id")?,
        reviewer_id: row.try_get("reviewer_id")?,
        requested_by: row.try_get("requested_by")?,
        status: row.try_get("status")?,
        revision_id: row.try_get("revision_id")?,
        comment_id: row.try_get("comment_id")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

pub async fn insert_review(conn: &mut AnyConnection, r: &ReviewRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO change_request_reviews (id, change_request_id, reviewer_id, requested_by, status, revision_id, \
         comment_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&r.id)
    .bind(&r.change_request_id)
    .bind(&r.reviewer_id)
    .bind(&r.requested_by)
    .bind(&r.status)
    .bind(&r.revision_id)
    .bind(&r.comment_id)
    .bind(r.created_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// A change request's reviews, oldest first.
pub async fn reviews_of(conn: &mut AnyConnection, change_request_id: &str) -> StoreResult<Vec<ReviewRow>> {
    let rows = sqlx::query(
        "SELECT id, change_request_id, reviewer_id, requested_by, status, revision_id, comment_id, created_at \
         FROM change_request_reviews WHERE change_request_id = $1 ORDER BY created_at, id",
    )
    .bind(change_request_id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(review).collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRow {
    pub change_request_id: String,
    pub user_id: String,
    pub requested_by: String,
    pub revision_id: String,
    pub created_at: Timestamp,
}

fn request(row: &AnyRow) -> StoreResult<RequestRow> {
    Ok(RequestRow {
        change_request_id: row.try_get("change_request_id")?,
        user_id: row.try_get("user_id")?,
        requested_by: row.try_get("requested_by")?,
        revision_id: row.try_get("revision_id")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

/// Requests a review (again: the request is renewed).
pub async fn upsert_request(conn: &mut AnyConnection, r: &RequestRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO change_request_reviewers (change_request_id, user_id, requested_by, revision_id, created_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (change_request_id, user_id) DO UPDATE SET \
         requested_by = excluded.requested_by, revision_id = excluded.revision_id, created_at = excluded.created_at",
    )
    .bind(&r.change_request_id)
    .bind(&r.user_id)
    .bind(&r.requested_by)
    .bind(&r.revision_id)
    .bind(r.created_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// A change request's pending review requests, oldest first.
pub async fn requests_of(conn: &mut AnyConnection, change_request_id: &str) -> StoreResult<Vec<RequestRow>> {
    let rows = sqlx::query(
        "SELECT change_request_id, user_id, requested_by, revision_id, created_at FROM change_request_reviewers \
         WHERE change_request_id = $1 ORDER BY created_at, user_id",
    )
    .bind(change_request_id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(request).collect()
}

/// Removes a pending request, returning it.
pub async fn take_request(
    conn: &mut AnyConnection,
    change_request_id: &str,
    user_id: &str,
) -> StoreResult<Option<RequestRow>> {
    let row = sqlx::query(
        "DELETE FROM change_request_reviewers WHERE change_request_id = $1 AND user_id = $2 \
         RETURNING change_request_id, user_id, requested_by, revision_id, created_at",
    )
    .bind(change_request_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(request).transpose()
}
