//! Background jobs: one [`Job`] type per kind of work, registered by the area
//! that owns it, run from the durable queue in the database
//! (`quire_store::jobs`).
//!
//! Jobs survive restarts and any node may run them. A claim is a lease that
//! the worker renews while the job runs (every third of [`Workers::lease`]);
//! a job whose worker died is claimed again once its lease runs out, within
//! half a minute by default, and a job that outlives its lease because its
//! worker stalled is never recorded twice (only the lease holder records an
//! outcome). Each node runs several jobs at once ([`Workers::slots`]), at
//! most [`Workers::per_organization`] of one organization, so no
//! organization's jobs can hold every slot. Short sends to other servers
//! (webhook deliveries, [`Lane::Sends`]) have slots of their own, so a burst
//! of events neither waits behind an import nor holds up one; each job has a time limit
//! ([`Job::TIME_LIMIT`]) past which it is stopped and counted as failed. A
//! failing job is retried by its type's [`RetryPolicy`], then left in the
//! queue as failed with its last error. A job is enqueued inside the
//! transaction of the change that needs it, so it exists exactly when that
//! change commits.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use quire_core::Timestamp;
use quire_store::audit;
use quire_store::jobs::JobRow;
use quire_store::{Conn, jobs};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::task::JoinSet;

use crate::App;
use crate::error::AppResult;

/// One kind of background work. The value is the job's payload, stored as
/// JSON with the job.
pub trait Job: Serialize + DeserializeOwned + Send + 'static {
    /// The stable name stored with each queued job of this type.
    const KIND: &'static str;
    /// How failures of this type are retried.
    const RETRY: RetryPolicy = RetryPolicy::STANDARD;
    /// How long one attempt may run before it is stopped as failed.
    const TIME_LIMIT: Duration = Duration::from_secs(10 * 60);
    /// Whether what an attempt commits is a change: audited, and announced
    /// to the caches of API reads when it ends. Not for bookkeeping
    /// (indexing, webhook deliveries), which neither the audit log nor
    /// those reads show.
    const AUDITED: bool = true;
    /// The audit log's source of this type's changes.
    const SOURCE: audit::Source = audit::Source::Workflow;
    /// Which of a node's slots run this type.
    const LANE: Lane = Lane::Work;

    /// What the job concerns, for the audit log.
    fn audit_target(&self) -> Option<audit::Target> {
        None
    }

    /// Does the work; what it returns (if anything) is kept with the job as
    /// its result.
    fn run(self, app: &App) -> impl Future<Output = anyhow::Result<Option<serde_json::Value>>> + Send;
}

/// The two sets of slots a node runs jobs in, each with its own share per
/// organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    /// Work that takes a while (imports, syncs, exports, indexing):
    /// [`Workers::slots`], at most [`Workers::per_organization`] of one
    /// organization.
    Work,
    /// Short sends to other servers that spend their time waiting on the
    /// network (webhook deliveries): [`Workers::send_slots`], at most
    /// [`Workers::sends_per_organization`] of one organization.
    Sends,
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

/// Queues `job` for the organization `organization_id` to run at `run_at`,
/// in the caller's transaction.
pub async fn enqueue<J: Job>(
    conn: &mut Conn,
    organization_id: &str,
    job: &J,
    run_at: Timestamp,
    now: Timestamp,
) -> AppResult<()> {
    let payload = serde_json::to_string(job).context("encoding a job payload")?;
    jobs::enqueue(conn, J::KIND, organization_id, &payload, run_at, now).await?;
    Ok(())
}

type Outcome = Pin<Box<dyn Future<Output = anyhow::Result<Option<serde_json::Value>>> + Send>>;
type Runner = Box<dyn Fn(App, String) -> Outcome + Send + Sync>;

/// How a job type runs: its runner, retries, time limit and audit source
/// (none for bookkeeping).
struct Kind {
    run: Runner,
    retry: RetryPolicy,
    time_limit: Duration,
    audit: Option<audit::Source>,
    lane: Lane,
}

/// The job types this server can run, by kind.
#[derive(Default)]
pub struct Registry {
    kinds: HashMap<&'static str, Kind>,
}

impl Registry {
    /// The platform's job types; each feature crate adds its own (the
    /// server composes them all: `quire_server::features::job_registry`).
    pub fn platform() -> Registry {
        let mut registry = Registry::default();
        crate::spaces::register_jobs(&mut registry);
        crate::search::register_jobs(&mut registry);
        registry
    }

    pub fn register<J: Job>(&mut self) {
        let run: Runner = Box::new(|app: App, payload: String| {
            Box::pin(async move {
                let job: J = serde_json::from_str(&payload).context("unreadable job payload")?;
                if let Some(target) = job.audit_target() {
                    audit::concerning(target);
                }
                job.run(&app).await
            })
        });
        self.kinds.insert(
            J::KIND,
            Kind {
                run,
                retry: J::RETRY,
                time_limit: J::TIME_LIMIT,
                audit: J::AUDITED.then_some(J::SOURCE),
                lane: J::LANE,
            },
        );
    }

    /// The kinds that run in `lane`'s slots.
    fn kinds_in(&self, lane: Lane) -> Vec<&'static str> {
        let mut kinds: Vec<&'static str> = self
            .kinds
            .iter()
            .filter(|(_, kind)| kind.lane == lane)
            .map(|(name, _)| *name)
            .collect();
        kinds.sort_unstable();
        kinds
    }
}

/// How a node runs jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workers {
    /// Jobs run at once on this node.
    pub slots: usize,
    /// Jobs of one organization run at once (on this node; across nodes,
    /// approximately).
    pub per_organization: usize,
    /// Sends ([`Lane::Sends`]) run at once on this node, besides `slots`.
    pub send_slots: usize,
    /// Sends of one organization run at once.
    pub sends_per_organization: usize,
    /// How long a claim holds without renewal: a dead worker's job waits
    /// this long to be claimed again.
    pub lease: Duration,
    /// How often an idle node looks for due jobs.
    pub poll_interval: Duration,
    /// How long a stopping node waits for its running jobs to finish; a
    /// job still running then is dropped and claimed again by another
    /// node (or this one, restarted) once its lease runs out.
    pub shutdown_grace: Duration,
}

impl Default for Workers {
    fn default() -> Self {
        Workers {
            slots: 4,
            per_organization: 2,
            send_slots: 16,
            sends_per_organization: 8,
            lease: Duration::from_secs(30),
            poll_interval: Duration::from_millis(500),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Claims one due job of `kinds` for `worker`, if there is one, while the
/// organization runs fewer than `share` of those kinds.
async fn claim(
    app: &App,
    worker: &str,
    config: &Workers,
    share: usize,
    kinds: jobs::Kinds<'_>,
) -> anyhow::Result<Option<JobRow>> {
    let now = app.now();
    let lease_until = Timestamp(now.0 + config.lease.as_millis() as i64);
    Ok(jobs::claim(&app.db, worker, now, lease_until, share as i64, kinds).await?)
}

/// Runs a claimed job to its end (or its time limit) while renewing its
/// lease, then records the outcome, unless the lease was lost meanwhile.
async fn run_claimed(
    app: &App,
    registry: &Registry,
    worker: &str,
    config: &Workers,
    row: JobRow,
) -> anyhow::Result<()> {
    let Some(kind) = registry.kinds.get(row.kind.as_str()) else {
        let error = format!("no job type {:?} is registered on this node", row.kind);
        return record(
            app,
            worker,
            &row,
            Err(anyhow::anyhow!(error)),
            RetryPolicy::STANDARD,
            true,
        )
        .await;
    };
    let started = std::time::Instant::now();
    let work = (kind.run)(app.clone(), row.payload.clone());
    let mut attempt = AbortOnDrop(match kind.audit {
        Some(source) => {
            let scope = audit::Scope::new(audit::Entry {
                organization_id: Some(row.tenant.clone()),
                occurred_at: app.now(),
                action: format!("job {}", row.kind),
                actor: audit::Actor::system(&format!("job:{}", row.kind)),
                source,
                target: None,
                execution_id: format!("{}:{}", row.id, row.attempts),
                payload: serde_json::Map::from_iter([
                    ("job".to_owned(), serde_json::Value::from(row.id.clone())),
                    ("attempt".to_owned(), serde_json::Value::from(row.attempts)),
                ]),
                subject: None,
            });
            tokio::spawn(async move { scope.run(work).await })
        }
        None => tokio::spawn(work),
    });
    let time_limit = tokio::time::sleep(kind.time_limit);
    tokio::pin!(time_limit);
    let mut renewals = tokio::time::interval(config.lease / 3);
    renewals.tick().await;
    let outcome = loop {
        tokio::select! {
            joined = &mut attempt.0 => {
                break joined.unwrap_or_else(|e| Err(anyhow::anyhow!("the job stopped: {e}")));
            }
            () = &mut time_limit => {
                break Err(anyhow::anyhow!("the job took longer than {} s and was stopped", kind.time_limit.as_secs()));
            }
            _ = renewals.tick() => {
                let lease_until = Timestamp(app.now().0 + config.lease.as_millis() as i64);
                match jobs::renew(&app.db, &row.id, worker, lease_until).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(job = row.id, kind = row.kind, "job lease lost to another worker; stopped here");
                        return Ok(());
                    }
                    // The next renewal may succeed; the lease lasts three of them.
                    Err(err) => tracing::warn!(job = row.id, error = %err, "job lease not renewed"),
                }
            }
        }
    };
    quire_metrics::metrics()
        .job_seconds
        .get_or_create(&quire_metrics::KindLabels { kind: row.kind.clone() })
        .observe(started.elapsed().as_secs_f64());
    record(app, worker, &row, outcome, kind.retry, kind.audit.is_some()).await
}

/// A running attempt, stopped when dropped: when its time is up, its lease
/// is lost, or the worker stops.
struct AbortOnDrop(tokio::task::JoinHandle<anyhow::Result<Option<serde_json::Value>>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Records how an attempt ended: done with its result, or failed (retried
/// by `retry`); with `changed`, tells the caches of API reads.
async fn record(
    app: &App,
    worker: &str,
    row: &JobRow,
    outcome: anyhow::Result<Option<serde_json::Value>>,
    retry: RetryPolicy,
    changed: bool,
) -> anyhow::Result<()> {
    let mut tx = app.db.write().await?;
    let ended = match outcome {
        Ok(result) => {
            let result = result.map(|r| r.to_string());
            jobs::complete(&mut tx, &row.id, worker, result.as_deref(), app.now()).await?;
            "done"
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
            jobs::fail(&mut tx, &row.id, worker, &error, retry_at, app.now()).await?;
            if retry_at.is_some() { "retry" } else { "failed" }
        }
    };
    tx.commit().await?;
    quire_metrics::metrics()
        .jobs
        .get_or_create(&quire_metrics::JobLabels {
            kind: row.kind.clone(),
            outcome: ended,
        })
        .inc();
    // What the job wrote (a sync's state, a spec's versions, a translated
    // space) is committed: reads kept in memory go.
    if changed {
        crate::changes::announce(app, crate::changes::STATE_CHANGED).await;
    }
    Ok(())
}

/// Runs every job that is due now, one after the other, with the standard
/// leases and time limits; returns how many ran.
pub async fn run_due(app: &App, registry: &Registry, worker: &str) -> anyhow::Result<usize> {
    run_due_with(app, registry, worker, Workers::default()).await
}

/// [`run_due`] with other leases and shares.
pub async fn run_due_with(app: &App, registry: &Registry, worker: &str, config: Workers) -> anyhow::Result<usize> {
    let mut ran = 0;
    while let Some(row) = claim(app, worker, &config, config.per_organization, jobs::Kinds::ALL).await? {
        ran += 1;
        run_claimed(app, registry, worker, &config, row).await?;
    }
    Ok(ran)
}

/// Runs due jobs until `shutdown` completes, up to `config.slots` at once
/// and besides them up to `config.send_slots` sends; then waits up to
/// `config.shutdown_grace` for the jobs running. Jobs still running after
/// that are stopped; their leases run out and another node (or this one,
/// restarted) runs them again.
pub async fn work(app: App, registry: Arc<Registry>, config: Workers, shutdown: impl Future<Output = ()>) {
    let worker = format!("worker-{}", quire_core::id::new_id());
    let sends = registry.kinds_in(Lane::Sends);
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let work_lane = Slots {
        at_once: config.slots,
        per_organization: config.per_organization,
        kinds: jobs::Kinds::Except(&sends),
    };
    let sends_lane = Slots {
        at_once: config.send_slots,
        per_organization: config.sends_per_organization,
        kinds: jobs::Kinds::Only(&sends),
    };
    let lane = |slots| run_lane(&app, &registry, &worker, &config, slots, stopping.clone());
    let lanes = async { tokio::join!(lane(work_lane), lane(sends_lane)) };
    let _ = tokio::join!(lanes, async {
        shutdown.await;
        let _ = stop.send(true);
    });
}

/// One lane's slots: how many of its jobs run at once, how many of one
/// organization's, and which kinds it runs.
struct Slots<'a> {
    at_once: usize,
    per_organization: usize,
    kinds: jobs::Kinds<'a>,
}

/// Runs one lane's due jobs until `stopping` turns true, then waits for
/// its running jobs as [`work`] says.
async fn run_lane(
    app: &App,
    registry: &Arc<Registry>,
    worker: &str,
    config: &Workers,
    slots: Slots<'_>,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    let mut running: JoinSet<anyhow::Result<()>> = JoinSet::new();
    let idle = slots.at_once == 0 || matches!(slots.kinds, jobs::Kinds::Only([]));
    loop {
        if *stopping.borrow() {
            break;
        }
        let mut claimed = false;
        if !idle && running.len() < slots.at_once {
            match claim(app, worker, config, slots.per_organization, slots.kinds).await {
                Ok(Some(row)) => {
                    let (app, registry, worker, config) = (app.clone(), registry.clone(), worker.to_owned(), *config);
                    running.spawn(async move { run_claimed(&app, &registry, &worker, &config, row).await });
                    claimed = true;
                }
                Ok(None) => {}
                Err(err) => tracing::error!(error = %format!("{err:#}"), "job worker error"),
            }
        }
        if claimed {
            continue;
        }
        tokio::select! {
            _ = stopping.changed() => {}
            Some(done) = running.join_next(), if !running.is_empty() => {
                if let Ok(Err(err)) = done {
                    tracing::error!(error = %format!("{err:#}"), "job worker error");
                }
            }
            () = tokio::time::sleep(config.poll_interval) => {}
        }
    }
    // Stopping: nothing new is claimed, and the jobs running finish (their
    // leases renewed meanwhile) within the grace period.
    if running.is_empty() {
        return;
    }
    tracing::info!(running = running.len(), "waiting for running jobs to finish");
    let drained = tokio::time::timeout(config.shutdown_grace, async {
        while let Some(done) = running.join_next().await {
            if let Ok(Err(err)) = done {
                tracing::error!(error = %format!("{err:#}"), "job worker error");
            }
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            running = running.len(),
            "jobs still running at shutdown are left to be claimed again when their lease runs out"
        );
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
