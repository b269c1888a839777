//! Co-editing: the shared document of a page of a change request, as the
//! ordered updates editors sent (`collab_updates`, numbered per page from
//! 1 without gaps, so "everything after n" is a complete catch-up), and the
//! room's agreement with the revisions and its saver's lease
//! (`collab_rooms`). Update bodies are opaque text to the store.

use quire_core::Timestamp;
use sqlx::{AnyConnection, Row};

use crate::db::Db;
use crate::error::{StoreError, StoreResult};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomRow {
    pub change_request_id: String,
    pub page_id: String,
    pub base_revision: Option<String>,
    /// The last update the saved revision holds.
    pub saved_seq: i64,
    /// The last update stored.
    pub last_seq: i64,
    pub saver_node: Option<String>,
    pub saver_until: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateRow {
    pub seq: i64,
    pub body: String,
    pub user_id: Option<String>,
}

/// The room of a page, created (without a base) when it does not exist yet.
pub async fn ensure_room(conn: &mut AnyConnection, cr: &str, page: &str, now: Timestamp) -> StoreResult<RoomRow> {
    sqlx::query(
        "INSERT INTO collab_rooms (change_request_id, page_id, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (change_request_id, page_id) DO NOTHING",
    )
    .bind(cr)
    .bind(page)
    .bind(now.0)
    .execute(&mut *conn)
    .await?;
    room(conn, cr, page).await
}

pub async fn room(conn: &mut AnyConnection, cr: &str, page: &str) -> StoreResult<RoomRow> {
    let row = sqlx::query(
        "SELECT base_revision, saved_seq, saver_node, saver_until, \
         (SELECT COALESCE(MAX(seq), 0) FROM collab_updates u WHERE u.change_request_id = r.change_request_id \
          AND u.page_id = r.page_id) AS last_seq \
         FROM collab_rooms r WHERE change_request_id = $1 AND page_id = $2",
    )
    .bind(cr)
    .bind(page)
    .fetch_one(conn)
    .await?;
    Ok(RoomRow {
        change_request_id: cr.to_owned(),
        page_id: page.to_owned(),
        base_revision: row.try_get("base_revision")?,
        saved_seq: row.try_get("saved_seq")?,
        last_seq: row.try_get("last_seq")?,
        saver_node: row.try_get("saver_node")?,
        saver_until: Timestamp(row.try_get("saver_until")?),
    })
}

/// Appends an update; answers its number. Two nodes appending at once
/// both compute the same number; the second insert breaks the key and is
/// tried again with the next.
pub async fn append_update(
    db: &Db,
    cr: &str,
    page: &str,
    body: &str,
    user_id: Option<&str>,
    now: Timestamp,
) -> StoreResult<i64> {
    let mut attempts = 0;
    loop {
        let mut tx = db.write().await?;
        let next: i64 = sqlx::query(
            "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM collab_updates WHERE change_request_id = $1 AND page_id = $2",
        )
        .bind(cr)
        .bind(page)
        .fetch_one(&mut *tx)
        .await?
        .try_get("next")?;
        let inserted = sqlx::query(
            "INSERT INTO collab_updates (change_request_id, page_id, seq, body, user_id, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(cr)
        .bind(page)
        .bind(next)
        .bind(body)
        .bind(user_id)
        .bind(now.0)
        .execute(&mut *tx)
        .await;
        match inserted.map_err(StoreError::from) {
            Ok(_) => {
                tx.commit().await?;
                return Ok(next);
            }
            Err(StoreError::Unique { .. }) if attempts < 20 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The updates numbered after `after`, in order.
pub async fn updates_after(conn: &mut AnyConnection, cr: &str, page: &str, after: i64) -> StoreResult<Vec<UpdateRow>> {
    let rows = sqlx::query(
        "SELECT seq, body, user_id FROM collab_updates WHERE change_request_id = $1 AND page_id = $2 AND seq > $3 \
         ORDER BY seq",
    )
    .bind(cr)
    .bind(page)
    .bind(after)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(UpdateRow {
                seq: row.try_get("seq")?,
                body: row.try_get("body")?,
                user_id: row.try_get("user_id")?,
            })
        })
        .collect()
}

/// Replaces the updates up to `upto` with one (`body`, which holds them
/// all) numbered `upto`, so a reader that has seen fewer still catches up.
pub async fn fold_updates(conn: &mut AnyConnection, cr: &str, page: &str, upto: i64, body: &str) -> StoreResult<()> {
    sqlx::query("UPDATE collab_updates SET body = $4 WHERE change_request_id = $1 AND page_id = $2 AND seq = $3")
        .bind(cr)
        .bind(page)
        .bind(upto)
        .bind(body)
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM collab_updates WHERE change_request_id = $1 AND page_id = $2 AND seq < $3")
        .bind(cr)
        .bind(page)
        .bind(upto)
        .execute(conn)
        .await?;
    Ok(())
}

/// Records the revision the shared document now agrees with and, when it
/// was saved into it, the last update it holds.
pub async fn set_base(
    conn: &mut AnyConnection,
    cr: &str,
    page: &str,
    revision: &str,
    saved_seq: Option<i64>,
) -> StoreResult<()> {
    sqlx::query(
        "UPDATE collab_rooms SET base_revision = $3, saved_seq = COALESCE($4, saved_seq) \
         WHERE change_request_id = $1 AND page_id = $2",
    )
    .bind(cr)
    .bind(page)
    .bind(revision)
    .bind(saved_seq)
    .execute(conn)
    .await?;
    Ok(())
}

/// Takes or renews the saver's lease for `node` until `until`; false when
/// another node holds a lease that has not run out.
pub async fn take_lease(
    conn: &mut AnyConnection,
    cr: &str,
    page: &str,
    node: &str,
    now: Timestamp,
    until: Timestamp,
) -> StoreResult<bool> {
    let done = sqlx::query(
        "UPDATE collab_rooms SET saver_node = $3, saver_until = $5 WHERE change_request_id = $1 AND page_id = $2 \
         AND (saver_node IS NULL OR saver_node = $3 OR saver_until < $4)",
    )
    .bind(cr)
    .bind(page)
    .bind(node)
    .bind(now.0)
    .bind(until.0)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Gives the lease up (the node has no editor of the page left).
pub async fn release_lease(conn: &mut AnyConnection, cr: &str, page: &str, node: &str) -> StoreResult<()> {
    sqlx::query(
        "UPDATE collab_rooms SET saver_node = NULL, saver_until = 0 WHERE change_request_id = $1 AND page_id = $2 \
         AND saver_node = $3",
    )
    .bind(cr)
    .bind(page)
    .bind(node)
    .execute(conn)
    .await?;
    Ok(())
}
