//! The durable job queue. A job is claimed by one worker at a time through a
//! lease (`locked_until`); a worker that dies loses its lease and the job is
//! claimed again. On PostgreSQL claims use `FOR UPDATE SKIP LOCKED` so many
//! nodes poll without blocking each other; on SQLite the single-writer gate
//! makes the claim atomic.

use quire_core::Timestamp;
use sqlx::{AnyConnection, AssertSqlSafe, Row};

use crate::db::{Backend, Db};
use crate::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRow {
    pub id: String,
    pub kind: String,
    pub payload: String,
    pub attempts: i64,
}

pub async fn enqueue(
    conn: &mut AnyConnection,
    kind: &str,
    payload: &str,
    run_at: Timestamp,
    now: Timestamp,
) -> StoreResult<String> {
    let id = quire_core::id::new_id();
    sqlx::query(
        "INSERT INTO jobs (id, kind, payload, run_at, state, attempts, created_at) VALUES ($1, $2, $3, $4, 'queued', 0, $5)",
    )
    .bind(&id)
    .bind(kind)
    .bind(payload)
    .bind(run_at.0)
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(id)
}

/// Claims the oldest due job (queued and due, or running with an expired
/// lease) for `worker` until `lease_until`.
pub async fn claim(db: &Db, worker: &str, now: Timestamp, lease_until: Timestamp) -> StoreResult<Option<JobRow>> {
    let lock = match db.backend() {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let pick = format!(
        "SELECT id FROM jobs WHERE (state = 'queued' AND run_at <= $1) OR (state = 'running' AND locked_until < $1) \
         ORDER BY run_at, id LIMIT 1{lock}"
    );
    let mut tx = db.write().await?;
    let id: Option<String> = sqlx::query_scalar(AssertSqlSafe(pick))
        .bind(now.0)
        .fetch_optional(&mut *tx)
        .await?;
    let Some(id) = id else { return Ok(None) };
    let row = sqlx::query(
        "UPDATE jobs SET state = 'running', locked_by = $2, locked_until = $3, attempts = attempts + 1 \
         WHERE id = $1 RETURNING id, kind, payload, attempts",
    )
    .bind(&id)
    .bind(worker)
    .bind(lease_until.0)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(JobRow {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        payload: row.try_get("payload")?,
        attempts: row.try_get("attempts")?,
    }))
}

/// Marks a job done, with what it reports (JSON), if anything.
pub async fn complete(conn: &mut AnyConnection, id: &str, result: Option<&str>, now: Timestamp) -> StoreResult<()> {
    sqlx::query(
        "UPDATE jobs SET state = 'done', finished_at = $2, result = $3, locked_by = NULL, locked_until = NULL \
         WHERE id = $1",
    )
    .bind(id)
    .bind(now.0)
    .bind(result)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records a failure; the job runs again at `retry_at`, or never when `None`.
pub async fn fail(
    conn: &mut AnyConnection,
    id: &str,
    error: &str,
    retry_at: Option<Timestamp>,
    now: Timestamp,
) -> StoreResult<()> {
    let (state, run_at, finished) = match retry_at {
        Some(at) => ("queued", Some(at.0), None),
        None => ("failed", None, Some(now.0)),
    };
    sqlx::query(
        "UPDATE jobs SET state = $2, run_at = COALESCE($3, run_at), finished_at = $4, last_error = $5, \
         locked_by = NULL, locked_until = NULL WHERE id = $1",
    )
    .bind(id)
    .bind(state)
    .bind(run_at)
    .bind(finished)
    .bind(error)
    .execute(conn)
    .await?;
    Ok(())
}

/// The most recent job of `kind`: its state, result and last error (for
/// operators and tests).
pub async fn latest(
    conn: &mut AnyConnection,
    kind: &str,
) -> StoreResult<Option<(String, Option<String>, Option<String>)>> {
    let row = sqlx::query(
        "SELECT state, result, last_error FROM jobs WHERE kind = $1 ORDER BY created_at DESC, id DESC LIMIT 1",
    )
    .bind(kind)
    .fetch_optional(conn)
    .await?;
    row.map(|r| Ok((r.try_get("state")?, r.try_get("result")?, r.try_get("last_error")?)))
        .transpose()
}
