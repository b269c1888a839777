//! Background jobs: one [`Job`] type per kind of work, registered by the area
//! that owns it, run from the durable queue in the database
//! (`quire_store::jobs`).
//!
//! Jobs survive restarts and any node may run them. A claim is a lease: one
//! worker at a time works on a job, and a job whose worker died is claimed
//! again once its lease runs out. A failing job is retried by its type's
//! [`RetryPolicy`], then left in the queue as failed with its last error.
//! A job is enqueued inside the transaction of the change that needs it, so
//! it exists exactly when that change commits.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use quire_core::Timestamp;
use quire_store::{Conn, jobs};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::App;
use crate::error::AppResult;

/// One kind of background work. The value is the job's payload, stored as
/// JSON with the job.
pub trait Job: Serialize + DeserializeOwned + Send + 'static {
    /// The stable name stored with each queued job of this type.
    const KIND: &'static str;
    /// How failures of this type are retried.
    const RETRY: RetryPolicy = RetryPolicy::STANDARD;

    /// Does the work; what it returns (if anything) is kept with the job as
    /// its result.
    fn run(self, app: &App) -> impl Future<Output = anyhow::Result<Option<serde_json::Value>>> + Send;
}

/// How often and how soon a failed job is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: i64,
    /// The wait before attempt `n + 1` is `n` times this.
    pub backoff: Duration,
}

impl RetryPolicy {
    pub const STANDARD: RetryPolicy = RetryPolicy {
        max_attempts: 5,
        backoff: Duration::from_secs(60),
    };

    /// When to try again after `attempts` failed attempts, if at all.
    fn retry_at(self, attempts: i64, now: Timestamp) -> Option<Timestamp> {
        (attempts < self.max_attempts).then(|| Timestamp(now.0 + self.backoff.as_millis() as i64 * attempts))
    }
}

/// Queues `job` to run at `run_at`, in the caller's transaction.
pub async fn enqueue<J: Job>(conn: &mut Conn, job: &J, run_at: Timestamp, now: Timestamp) -> AppResult<()> {
    let payload = serde_json::to_string(job).context("encoding a job payload")?;
    jobs::enqueue(conn, J::KIND, &payload, run_at, now).await?;
    Ok(())
}

type Outcome = Pin<Box<dyn Future<Output = anyhow::Result<Option<serde_json::Value>>> + Send>>;
type Runner = Box<dyn Fn(App, String) -> Outcome + Send + Sync>;

/// The job types this server can run, by kind.
#[derive(Default)]
pub struct Registry {
    runners: HashMap<&'static str, (Runner, RetryPolicy)>,
}

impl Registry {
    /// Every job type of every area.
    pub fn standard() -> Registry {
        let mut registry = Registry::default();
        crate::spaces::register_jobs(&mut registry);
        crate::search::register_jobs(&mut registry);
        crate::git_sync::register_jobs(&mut registry);
        crate::openapi::register_jobs(&mut registry);
        crate::translations::register_jobs(&mut registry);
        registry
    }

    pub fn register<J: Job>(&mut self) {
        let runner: Runner = Box::new(|app: App, payload: String| {
            Box::pin(async move {
                let job: J = serde_json::from_str(&payload).context("unreadable job payload")?;
                job.run(&app).await
            })
        });
        self.runners.insert(J::KIND, (runner, J::RETRY));
    }
}

/// How long a worker owns a claimed job before another may take it over.
const LEASE: Duration = Duration::from_secs(300);

/// How often an idle worker looks for due jobs.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Runs every job that is due now, one after the other; returns how many ran.
pub async fn run_due(app: &App, registry: &Registry, worker: &str) -> anyhow::Result<usize> {
    let mut ran = 0;
    loop {
        let now = app.now();
        let lease_until = Timestamp(now.0 + LEASE.as_millis() as i64);
        let Some(row) = jobs::claim(&app.db, worker, now, lease_until).await? else {
            return Ok(ran);
        };
        ran += 1;
        let (outcome, retry) = match registry.runners.get(row.kind.as_str()) {
            Some((run, retry)) => (run(app.clone(), row.payload.clone()).await, *retry),
            None => (
                Err(anyhow::anyhow!("no job type {:?} is registered on this node", row.kind)),
                RetryPolicy::STANDARD,
            ),
        };
        let mut tx = app.db.write().await?;
        match outcome {
            Ok(result) => {
                let result = result.map(|r| r.to_string());
                jobs::complete(&mut tx, &row.id, result.as_deref(), app.now()).await?
            }
            Err(err) => {
                let error = format!("{err:#}");
                tracing::warn!(
                    job = row.id,
                    kind = row.kind,
                    attempt = row.attempts,
                    error,
                    "job failed"
                );
                let retry_at = retry.retry_at(row.attempts, app.now());
                jobs::fail(&mut tx, &row.id, &error, retry_at, app.now()).await?;
            }
        }
        tx.commit().await?;
    }
}

/// Runs due jobs until `shutdown` completes.
pub async fn work(app: App, shutdown: impl Future<Output = ()>) {
    let registry = Arc::new(Registry::standard());
    let worker = format!("worker-{}", quire_core::id::new_id());
    tokio::pin!(shutdown);
    loop {
        if let Err(err) = run_due(&app, &registry, &worker).await {
            tracing::error!(error = %format!("{err:#}"), "job worker error");
        }
        tokio::select! {
            () = &mut shutdown => return,
            () = tokio::time::sleep(POLL_INTERVAL) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_and_stop() {
        let policy = RetryPolicy {
            max_attempts: 3,
            backoff: Duration::from_secs(10),
        };
        let now = Timestamp(1_000);
        assert_eq!(policy.retry_at(1, now), Some(Timestamp(11_000)));
        assert_eq!(policy.retry_at(2, now), Some(Timestamp(21_000)));
        assert_eq!(policy.retry_at(3, now), None);
    }
}
