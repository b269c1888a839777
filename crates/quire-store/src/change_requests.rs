//! Change requests: proposed edits with their own head revision.

use quire_core::{ChangeRequestStatus, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRequestRow {
    pub id: String,
    pub space_id: String,
    pub number: i64,
    pub subject: String,
    pub status: ChangeRequestStatus,
    pub created_by: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Head revision.
    pub revision_id: String,
    /// The space revision it started from.
    pub revision_initial: String,
    /// The space revision it was last brought up to date with.
    pub revision_merged_ancestor: String,
    pub revision_merged: Option<String>,
    pub merged_by: Option<String>,
    pub merged_at: Option<Timestamp>,
}

impl ChangeRequestRow {
    /// Draft and open change requests still take edits, updates and merges;
    /// archived and merged ones do not.
    pub fn is_active(&self) -> bool {
        self.status.is_active()
    }
}

macro_rules! cr_select {
    () => {
        "SELECT id, space_id, number, subject, status, created_by, created_at, updated_at, revision_id, \
         revision_initial, revision_merged_ancestor, revision_merged, merged_by, merged_at FROM change_requests"
    };
}

fn from_row(row: &AnyRow) -> StoreResult<ChangeRequestRow> {
    Ok(ChangeRequestRow {
        id: row.try_get("id")?,
        space_id: row.try_get("space_id")?,
        number: row.try_get("number")?,
        subject: row.try_get("subject")?,
        status: {
            let text: String = row.try_get("status")?;
            ChangeRequestStatus::parse(&text).ok_or(crate::StoreError::Corrupt(text))?
        },
        created_by: row.try_get("created_by")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
        revision_id: row.try_get("revision_id")?,
        revision_initial: row.try_get("revision_initial")?,
        revision_merged_ancestor: row.try_get("revision_merged_ancestor")?,
        revision_merged: row.try_get("revision_merged")?,
        merged_by: row.try_get("merged_by")?,
        merged_at: row.try_get::<Option<i64>, _>("merged_at")?.map(Timestamp),
    })
}

/// The next change request number of the space. The counter row is updated
/// in the caller's transaction, so concurrent creations get distinct numbers
/// (PostgreSQL locks the row; SQLite has one writer).
pub async fn allocate_number(conn: &mut AnyConnection, space_id: &str) -> StoreResult<i64> {
    let number: Option<i64> = sqlx::query_scalar(
        "UPDATE spaces SET change_request_counter = change_request_counter + 1 WHERE id = $1 \
         RETURNING change_request_counter",
    )
    .bind(space_id)
    .fetch_optional(conn)
    .await?;
    number.ok_or(crate::StoreError::NotFound)
}

/// A change request's fields in its webhook events, with who caused the
/// event.
pub fn event_data(cr: &ChangeRequestRow, by: &[serde_json::Value]) -> serde_json::Value {
    serde_json::json!({
        "spaceId": cr.space_id,
        "changeRequestId": cr.id,
        "number": cr.number,
        "subject": cr.subject,
        "status": cr.status.as_str(),
        "revisionId": cr.revision_id,
        "updatedBy": by,
    })
}

/// Inserts a new change request, with its `change_request_opened` event.
pub async fn insert(conn: &mut AnyConnection, cr: &ChangeRequestRow) -> StoreResult<()> {
    crate::audit::created("change-request", &cr.id);
    let by = [serde_json::json!({ "object": "user", "id": cr.created_by })];
    crate::webhooks::emit(
        &mut *conn,
        crate::webhooks::Origin::Space(&cr.space_id),
        quire_core::events::EventType::ChangeRequestOpened,
        event_data(cr, &by),
        cr.created_at,
    )
    .await?;
    sqlx::query(
        "INSERT INTO change_requests (id, space_id, number, subject, status, created_by, created_at, updated_at, \
         revision_id, revision_initial, revision_merged_ancestor, revision_merged, merged_by, merged_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
    )
    .bind(&cr.id)
    .bind(&cr.space_id)
    .bind(cr.number)
    .bind(&cr.subject)
    .bind(cr.status.as_str())
    .bind(&cr.created_by)
    .bind(cr.created_at.0)
    .bind(cr.updated_at.0)
    .bind(&cr.revision_id)
    .bind(&cr.revision_initial)
    .bind(&cr.revision_merged_ancestor)
    .bind(&cr.revision_merged)
    .bind(&cr.merged_by)
    .bind(cr.merged_at.map(|t| t.0))
    .execute(conn)
    .await?;
    Ok(())
}

/// By id, or by number when `id_or_number` is all digits.
pub async fn get(conn: &mut AnyConnection, space_id: &str, id_or_number: &str) -> StoreResult<ChangeRequestRow> {
    let row = match id_or_number.parse::<i64>() {
        Ok(number) if !id_or_number.starts_with('0') || id_or_number == "0" => {
            sqlx::query(concat!(
                cr_select!(),
                " WHERE space_id = $1 AND (number = $2 OR id = $3)"
            ))
            .bind(space_id)
            .bind(number)
            .bind(id_or_number)
            .fetch_optional(conn)
            .await?
        }
        _ => {
            sqlx::query(concat!(cr_select!(), " WHERE space_id = $1 AND id = $2"))
                .bind(space_id)
                .bind(id_or_number)
                .fetch_optional(conn)
                .await?
        }
    };
    row.as_ref().map(from_row).transpose().found()
}

/// Writes every mutable field, only if the head is still `expected_head`
/// (compare-and-set); false when another writer moved it first.
pub async fn update_if_head(conn: &mut AnyConnection, cr: &ChangeRequestRow, expected_head: &str) -> StoreResult<bool> {
    let done = sqlx::query(
        "UPDATE change_requests SET subject = $3, status = $4, updated_at = $5, revision_id = $6, \
         revision_merged_ancestor = $7, revision_merged = $8, merged_by = $9, merged_at = $10 \
         WHERE id = $1 AND revision_id = $2",
    )
    .bind(&cr.id)
    .bind(expected_head)
    .bind(&cr.subject)
    .bind(cr.status.as_str())
    .bind(cr.updated_at.0)
    .bind(&cr.revision_id)
    .bind(&cr.revision_merged_ancestor)
    .bind(&cr.revision_merged)
    .bind(&cr.merged_by)
    .bind(cr.merged_at.map(|t| t.0))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

#[derive(Debug, Clone, Default)]
pub struct ChangeRequestFilter {
    pub status: Option<ChangeRequestStatus>,
    pub creator: Option<String>,
}

/// Change requests of a space, by `updated_at` or `created_at`.
pub async fn list(
    conn: &mut AnyConnection,
    space_id: &str,
    filter: &ChangeRequestFilter,
    by_created: bool,
    page: &PageRequest,
) -> StoreResult<Page<ChangeRequestRow>> {
    let push_filter = |sql: &mut Sql| {
        sql.push(" WHERE space_id = ").bind(space_id.to_owned());
        if let Some(status) = &filter.status {
            sql.push(" AND status = ").bind(status.as_str().to_owned());
        }
        if let Some(creator) = &filter.creator {
            sql.push(" AND created_by = ").bind(creator.clone());
        }
    };
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM change_requests");
    push_filter(&mut count);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let column = if by_created { "created_at" } else { "updated_at" };
    let mut sql = Sql::new(cr_select!());
    push_filter(&mut sql);
    page.push_after(&mut sql, column, "id");
    page.push_order_and_limit(&mut sql, column, "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |c| Keyset {
        key: SortKey::Int(if by_created { c.created_at.0 } else { c.updated_at.0 }),
        id: c.id.clone(),
    }))
}

/// Renames a change request's subject.
pub async fn set_subject(
    conn: &mut AnyConnection,
    change_request_id: &str,
    subject: &str,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query("UPDATE change_requests SET subject = $2, updated_at = $3 WHERE id = $1")
        .bind(change_request_id)
        .bind(subject)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(())
}
