//! The durable job queue. A job is claimed by one worker at a time through a
//! lease (`locked_until`) that its worker renews while it runs; a worker
//! that dies stops renewing, and the job is claimed again once the lease
//! runs out. Only the worker holding a job's lease records its outcome. A
//! claim takes the oldest due job of an organization (`tenant`) not
//! already running its share of jobs. On PostgreSQL claims use
//! `FOR UPDATE SKIP LOCKED` so many nodes poll without blocking each other
//! (two nodes claiming at once may let an organization exceed its share by
//! one); on SQLite the single-writer gate makes the claim atomic.

use quire_core::Timestamp;
use sqlx::{AnyConnection, AssertSqlSafe, Row};

use crate::db::{Backend, Db};
use crate::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRow {
    pub id: String,
    pub kind: String,
    /// The organization the job works for.
    pub tenant: String,
    pub payload: String,
    pub attempts: i64,
}

/// Queues a job of `kind` for the organization `tenant`.
pub async fn enqueue(
    conn: &mut AnyConnection,
    kind: &str,
    tenant: &str,
    payload: &str,
    run_at: Timestamp,
    now: Timestamp,
) -> StoreResult<String> {
    let id = quire_core::id::new_id();
    sqlx::query(
        "INSERT INTO jobs (id, kind, tenant, payload, run_at, state, attempts, created_at) \
         VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6)",
    )
    .bind(&id)
    .bind(kind)
    .bind(tenant)
    .bind(payload)
    .bind(run_at.0)
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(id)
}

/// Which kinds of job a claim considers, both to take one and to count an
/// organization's running jobs against its share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds<'a> {
    /// Only these kinds (none: nothing is claimed).
    Only(&'a [&'a str]),
    /// Every kind but these.
    Except(&'a [&'a str]),
}

impl Kinds<'_> {
    pub const ALL: Kinds<'static> = Kinds::Except(&[]);

    /// The SQL condition on `{alias}.kind`, its placeholders numbered from
    /// `$first`, with the values to bind in order.
    fn condition(&self, alias: &str, first: usize) -> (String, &[&str]) {
        let (listed, negated) = match self {
            Kinds::Only(listed) => (*listed, false),
            Kinds::Except(listed) => (*listed, true),
        };
        if listed.is_empty() {
            return (if negated { "1 = 1" } else { "1 = 0" }.to_owned(), listed);
        }
        let placeholders: Vec<String> = (first..first + listed.len()).map(|n| format!("${n}")).collect();
        let not = if negated { "NOT " } else { "" };
        (format!("{alias}.kind {not}IN ({})", placeholders.join(", ")), listed)
    }
}

/// Claims a due job of `kinds` (queued and due, or running with an expired
/// lease) for `worker` until `lease_until`: the oldest of an organization
/// running fewer than `per_tenant` jobs of those kinds.
pub async fn claim(
    db: &Db,
    worker: &str,
    now: Timestamp,
    lease_until: Timestamp,
    per_tenant: i64,
    kinds: Kinds<'_>,
) -> StoreResult<Option<JobRow>> {
    let lock = match db.backend() {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let (picked_kind, listed) = kinds.condition("j", 3);
    let (running_kind, _) = kinds.condition("r", 3);
    // The organizations at their share are found once (few rows: the jobs
    // running), so a claim costs the same with ten jobs queued or fifty
    // thousand; a count per queued row made every claim slower as the
    // queue grew, and a long queue never drained.
    let pick = format!(
        "SELECT j.id FROM jobs j \
         WHERE ((j.state = 'queued' AND j.run_at <= $1) OR (j.state = 'running' AND j.locked_until < $1)) \
         AND {picked_kind} \
         AND j.tenant NOT IN (SELECT r.tenant FROM jobs r WHERE r.state = 'running' AND r.locked_until >= $1 \
                              AND {running_kind} GROUP BY r.tenant HAVING COUNT(*) >= $2) \
         ORDER BY j.run_at, j.id LIMIT 1{lock}"
    );
    let mut tx = db.write().await?;
    let mut query = sqlx::query_scalar::<_, String>(AssertSqlSafe(pick))
        .bind(now.0)
        .bind(per_tenant);
    for kind in listed {
        query = query.bind(*kind);
    }
    let id = query.fetch_optional(&mut *tx).await?;
    let Some(id) = id else { return Ok(None) };
    let row = sqlx::query(
        "UPDATE jobs SET state = 'running', locked_by = $2, locked_until = $3, attempts = attempts + 1 \
         WHERE id = $1 RETURNING id, kind, tenant, payload, attempts",
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
        tenant: row.try_get("tenant")?,
        payload: row.try_get("payload")?,
        attempts: row.try_get("attempts")?,
    }))
}

/// Extends `worker`'s lease on a running job; false when the worker no
/// longer holds it (it ran out and another worker claimed the job).
pub async fn renew(db: &Db, id: &str, worker: &str, lease_until: Timestamp) -> StoreResult<bool> {
    let mut tx = db.write().await?;
    let renewed =
        sqlx::query("UPDATE jobs SET locked_until = $3 WHERE id = $1 AND locked_by = $2 AND state = 'running'")
            .bind(id)
            .bind(worker)
            .bind(lease_until.0)
            .execute(&mut *tx)
            .await?
            .rows_affected();
    tx.commit().await?;
    Ok(renewed == 1)
}

/// Marks a job done, with what it reports (JSON), if anything, when
/// `worker` still holds it.
pub async fn complete(
    conn: &mut AnyConnection,
    id: &str,
    worker: &str,
    result: Option<&str>,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "UPDATE jobs SET state = 'done', finished_at = $3, result = $4, locked_by = NULL, locked_until = NULL \
         WHERE id = $1 AND locked_by = $2",
    )
    .bind(id)
    .bind(worker)
    .bind(now.0)
    .bind(result)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records a failure, when `worker` still holds the job; it runs again at
/// `retry_at`, or never when `None`.
pub async fn fail(
    conn: &mut AnyConnection,
    id: &str,
    worker: &str,
    error: &str,
    retry_at: Option<Timestamp>,
    now: Timestamp,
) -> StoreResult<()> {
    let (state, run_at, finished) = match retry_at {
        Some(at) => ("queued", Some(at.0), None),
        None => ("failed", None, Some(now.0)),
    };
    sqlx::query(
        "UPDATE jobs SET state = $3, run_at = COALESCE($4, run_at), finished_at = $5, last_error = $6, \
         locked_by = NULL, locked_until = NULL WHERE id = $1 AND locked_by = $2",
    )
    .bind(id)
    .bind(worker)
    .bind(state)
    .bind(run_at)
    .bind(finished)
    .bind(error)
    .execute(conn)
    .await?;
    Ok(())
}

/// How many jobs are in each state of the queue that is not final
/// (`queued`, `running`).
pub async fn waiting_by_state(conn: &mut AnyConnection) -> StoreResult<Vec<(String, i64)>> {
    let rows = sqlx::query(
        "SELECT state, CAST(COUNT(*) AS BIGINT) AS jobs FROM jobs WHERE state IN ('queued', 'running') GROUP BY state",
    )
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("state")?, row.try_get("jobs")?)))
        .collect()
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
