//! Background jobs: the typed job list, the worker loop and each job's work.
//!
//! Jobs live in the database (`quire_store::jobs`), so they survive restarts
//! and any node may run them; a claim is a lease, so a job is worked on by
//! one worker at a time and picked up again if its worker dies. Later
//! features (imports, exports, OpenAPI processing, translations, PDFs) add
//! a variant here and a branch in [`Job::run`].

use std::future::Future;
use std::time::Duration;

use anyhow::Context;
use quire_core::Timestamp;
use quire_store::{Conn, jobs, spaces};
use serde::{Deserialize, Serialize};

use crate::state::AppState;

/// How long a deleted space can be restored before it is removed for good.
pub const SPACE_RETENTION_DAYS: i64 = 7;

/// How long a worker owns a claimed job before another may take it over.
const LEASE: Duration = Duration::from_secs(300);

/// How often an idle worker looks for due jobs.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Attempts before a failing job is given up.
const MAX_ATTEMPTS: i64 = 5;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Job {
    /// Remove a deleted space once its restore window has passed.
    PurgeSpace { space_id: String },
}

impl Job {
    fn kind(&self) -> &'static str {
        match self {
            Job::PurgeSpace { .. } => "purge_space",
        }
    }

    /// Queues the job to run at `run_at`, inside the caller's transaction so
    /// the job exists exactly when the change that needs it commits.
    pub async fn enqueue(&self, conn: &mut Conn, run_at: Timestamp, now: Timestamp) -> anyhow::Result<()> {
        let payload = serde_json::to_string(self)?;
        jobs::enqueue(conn, self.kind(), &payload, run_at, now).await?;
        Ok(())
    }

    async fn run(self, state: &AppState) -> anyhow::Result<()> {
        match self {
            Job::PurgeSpace { space_id } => purge_space(state, &space_id).await,
        }
    }
}

/// Removes the space if it is still deleted and its window has passed; a
/// space restored (or deleted again later) in the meantime is left alone.
async fn purge_space(state: &AppState, space_id: &str) -> anyhow::Result<()> {
    let now = state.now();
    let mut tx = state.db.write().await?;
    let space = match spaces::get_any(&mut tx, space_id).await {
        Ok(space) => space,
        Err(quire_store::StoreError::NotFound) => return Ok(()),
        Err(err) => return Err(err.into()),
    };
    if space
        .deleted_at
        .is_some_and(|at| at.plus_days(SPACE_RETENTION_DAYS) <= now)
    {
        spaces::purge(&mut tx, space_id).await?;
        tx.commit().await?;
        tracing::info!(space_id, "deleted space purged");
    }
    Ok(())
}

/// Runs every job that is due now, one after the other; returns how many ran.
pub async fn run_due(state: &AppState, worker: &str) -> anyhow::Result<usize> {
    let mut ran = 0;
    loop {
        let now = state.now();
        let lease_until = Timestamp(now.0 + LEASE.as_millis() as i64);
        let Some(row) = jobs::claim(&state.db, worker, now, lease_until).await? else {
            return Ok(ran);
        };
        ran += 1;
        let outcome = match serde_json::from_str::<Job>(&row.payload).context("unreadable job payload") {
            Ok(job) => job.run(state).await,
            Err(err) => Err(err),
        };
        let mut conn = state.db.write().await?;
        match outcome {
            Ok(()) => jobs::complete(&mut conn, &row.id, state.now()).await?,
            Err(err) => {
                tracing::warn!(job = row.id, kind = row.kind, attempt = row.attempts, error = %format!("{err:#}"), "job failed");
                let retry_at = (row.attempts < MAX_ATTEMPTS).then(|| Timestamp(state.now().0 + 60_000 * row.attempts));
                jobs::fail(&mut conn, &row.id, &format!("{err:#}"), retry_at, state.now()).await?;
            }
        }
        conn.commit().await?;
    }
}

/// Runs due jobs until `shutdown` completes.
pub async fn work(state: AppState, shutdown: impl Future<Output = ()>) {
    let worker = format!("worker-{}", quire_core::id::new_id());
    tokio::pin!(shutdown);
    loop {
        if let Err(err) = run_due(&state, &worker).await {
            tracing::error!(error = %format!("{err:#}"), "job worker error");
        }
        tokio::select! {
            () = &mut shutdown => return,
            () = tokio::time::sleep(POLL_INTERVAL) => {}
        }
    }
}
