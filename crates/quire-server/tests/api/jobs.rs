//! The job queue as operators rely on it: a job whose worker died runs again
//! within its short lease, a job running longer than its lease keeps it, a
//! job past its time limit is stopped, and one organization's jobs cannot
//! hold every slot while another's wait; sends (webhook deliveries) run in
//! slots of their own, beside an organization's busy ones.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use quire_app::jobs::{self, Job, Lane, Registry, Workers};
use quire_core::Clock as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::Row as _;
use tokio::sync::Semaphore;

use crate::support::{TestApp, both_backends};

/// Gates jobs wait at, by name: a job runs once its gate lets it through.
static GATES: LazyLock<Mutex<HashMap<String, Arc<Semaphore>>>> = LazyLock::new(Mutex::default);

fn gate(name: &str) -> Arc<Semaphore> {
    GATES
        .lock()
        .unwrap()
        .entry(name.to_owned())
        .or_insert_with(|| Arc::new(Semaphore::new(0)))
        .clone()
}

/// A job that finishes once its gate opens.
#[derive(Serialize, Deserialize)]
struct Gated {
    gate: String,
}

impl Job for Gated {
    const KIND: &'static str = "test-gated";

    async fn run(self, _app: &quire_app::App) -> anyhow::Result<Option<Value>> {
        gate(&self.gate).acquire().await?.forget();
        Ok(Some(json!({ "gate": self.gate })))
    }
}

/// A send: a job of the sends lane that finishes once its gate opens.
#[derive(Serialize, Deserialize)]
struct GatedSend {
    gate: String,
}

impl Job for GatedSend {
    const KIND: &'static str = "test-send";
    const LANE: Lane = Lane::Sends;

    async fn run(self, _app: &quire_app::App) -> anyhow::Result<Option<Value>> {
        gate(&self.gate).acquire().await?.forget();
        Ok(Some(json!({ "gate": self.gate })))
    }
}

/// A job that never finishes, with a short time limit.
#[derive(Serialize, Deserialize)]
struct Stuck;

impl Job for Stuck {
    const KIND: &'static str = "test-stuck";
    const TIME_LIMIT: Duration = Duration::from_millis(300);

    async fn run(self, _app: &quire_app::App) -> anyhow::Result<Option<Value>> {
        std::future::pending::<()>().await;
        Ok(None)
    }
}

fn registry() -> Arc<Registry> {
    let mut registry = Registry::default();
    registry.register::<Gated>();
    registry.register::<Stuck>();
    registry.register::<GatedSend>();
    Arc::new(registry)
}

async fn enqueue<J: Job>(app: &TestApp, organization: &str, job: &J) {
    let mut tx = app.db.write().await.expect("a transaction");
    let now = app.clock.now();
    jobs::enqueue(&mut tx, organization, job, now, now)
        .await
        .expect("enqueue");
    tx.commit().await.expect("commit");
}

/// Each test job: its organization, gate, state, lease end, attempts and last error.
async fn test_jobs(app: &TestApp) -> Vec<(String, String, String, Option<i64>, i64, Option<String>)> {
    let mut conn = app.db.read().await.expect("a connection");
    sqlx::query(
        "SELECT tenant, payload, state, locked_until, attempts, last_error FROM jobs WHERE kind LIKE 'test-%' ORDER BY created_at, id",
    )
    .fetch_all(&mut *conn)
    .await
    .expect("read jobs")
    .into_iter()
    .map(|row| {
        let payload: String = row.get("payload");
        let gate = serde_json::from_str::<Value>(&payload).unwrap()["gate"].as_str().unwrap_or("").to_owned();
        (row.get("tenant"), gate, row.get("state"), row.get("locked_until"), row.get("attempts"), row.get("last_error"))
    })
    .collect()
}

/// Waits (10 s at most) until `done` holds for the test jobs.
async fn until(
    app: &TestApp,
    what: &str,
    done: impl Fn(&[(String, String, String, Option<i64>, i64, Option<String>)]) -> bool,
) {
    for _ in 0..1000 {
        if done(&test_jobs(app).await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what}: never happened; jobs: {:?}", test_jobs(app).await);
}

both_backends! {
    async fn a_job_whose_worker_died_runs_again_within_half_a_minute(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let name = format!("died-{org}");
        enqueue(&app, &org, &Gated { gate: name.clone() }).await;
        // A worker claims the job and is killed: it never renews its lease.
        let now = app.clock.now();
        let lease_until = quire_core::Timestamp(now.0 + Workers::default().lease.as_millis() as i64);
        let claimed = quire_store::jobs::claim(&app.db, "killed-worker", now, lease_until, 2, quire_store::jobs::Kinds::ALL).await.unwrap();
        assert!(claimed.is_some());
        let registry = registry();
        assert_eq!(jobs::run_due(&app.state.app, &registry, "worker-b").await.unwrap(), 0, "the lease still holds");
        app.clock.advance_millis(31_000);
        gate(&name).add_permits(1);
        assert_eq!(jobs::run_due(&app.state.app, &registry, "worker-b").await.unwrap(), 1);
        let jobs = test_jobs(&app).await;
        assert_eq!((jobs[0].2.as_str(), jobs[0].4), ("done", 2), "{jobs:?}");
        assert_eq!(jobs[0].0, org, "the job names its organization");
    }

    async fn a_running_job_keeps_its_lease_and_a_stuck_one_is_stopped(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let name = format!("long-{org}");
        enqueue(&app, &org, &Gated { gate: name.clone() }).await;
        let short = Workers { lease: Duration::from_millis(300), ..Workers::default() };
        let registry = registry();
        let worker_a = {
            let (app, registry) = (app.state.app.clone(), registry.clone());
            tokio::spawn(async move { jobs::run_due_with(&app, &registry, "worker-a", short).await })
        };
        until(&app, "the job runs", |jobs| jobs[0].2 == "running").await;
        // Far past the first lease: worker A renews it, so worker B finds
        // nothing to take over.
        app.clock.advance_millis(60_000);
        let after = app.clock.now().0;
        until(&app, "the lease is renewed", |jobs| jobs[0].3.is_some_and(|until| until > after)).await;
        assert_eq!(jobs::run_due_with(&app.state.app, &registry, "worker-b", short).await.unwrap(), 0);
        gate(&name).add_permits(1);
        assert_eq!(worker_a.await.unwrap().unwrap(), 1);
        let jobs = test_jobs(&app).await;
        assert_eq!((jobs[0].2.as_str(), jobs[0].4), ("done", 1), "run once: {jobs:?}");

        // A job past its time limit is stopped and recorded as failed.
        enqueue(&app, &org, &Stuck).await;
        assert_eq!(jobs::run_due(&app.state.app, &registry, "worker-a").await.unwrap(), 1);
        let jobs = test_jobs(&app).await;
        assert_eq!(jobs[1].2, "queued", "retried later: {jobs:?}");
        assert!(jobs[1].5.as_deref().unwrap_or("").contains("longer than"), "{jobs:?}");
    }

    /// A node told to stop claims nothing more and lets the job it runs
    /// finish before it returns.
    async fn a_stopping_node_finishes_its_running_jobs(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let name = format!("stopping-{org}");
        enqueue(&app, &org, &Gated { gate: name.clone() }).await;
        let config = Workers { poll_interval: Duration::from_millis(20), ..Workers::default() };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (seen, stop_seen) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(jobs::work(app.state.app.clone(), registry(), config, async move {
            let _ = stopped.await;
            let _ = seen.send(());
        }));
        until(&app, "the job runs", |jobs| jobs.iter().any(|j| j.2 == "running")).await;
        let _ = stop.send(());
        stop_seen.await.unwrap();
        // Queued once the node was told to stop (before, a poll could
        // rightly claim it first).
        enqueue(&app, &org, &Gated { gate: format!("{name}-later") }).await;
        gate(&name).add_permits(1);
        worker.await.unwrap();
        let jobs = test_jobs(&app).await;
        let state = |gate: &str| jobs.iter().find(|j| j.1 == gate).map(|j| j.2.clone());
        assert_eq!(state(&name).as_deref(), Some("done"), "the running job finished: {jobs:?}");
        assert_eq!(state(&format!("{name}-later")).as_deref(), Some("queued"), "nothing new was claimed: {jobs:?}");
    }

    async fn one_organization_cannot_hold_every_slot(app: TestApp) {
        let ada = app.user("Ada").await;
        let busy = app.org(&ada, "Busy").await;
        let other = app.org(&ada, "Other").await;
        let slow = format!("slow-{busy}");
        let quick = format!("quick-{other}");
        for _ in 0..3 {
            enqueue(&app, &busy, &Gated { gate: slow.clone() }).await;
        }
        enqueue(&app, &other, &Gated { gate: quick.clone() }).await;
        gate(&quick).add_permits(1);
        let config = Workers { slots: 2, per_organization: 1, poll_interval: Duration::from_millis(20), ..Workers::default() };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(jobs::work(app.state.app.clone(), registry(), config, async move {
            let _ = stopped.await;
        }));
        until(&app, "the other organization's job is done", |jobs| {
            jobs.iter().any(|j| j.1 == quick && j.2 == "done")
        })
        .await;
        let jobs = test_jobs(&app).await;
        let running = jobs.iter().filter(|j| j.1 == slow && j.2 == "running").count();
        assert_eq!(running, 1, "one slot for the busy organization: {jobs:?}");
        gate(&slow).add_permits(3);
        until(&app, "every job is done", |jobs| jobs.iter().all(|j| j.2 == "done")).await;
        let _ = stop.send(());
        worker.await.unwrap();
    }

    async fn sends_run_beside_an_organizations_busy_slots(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Busy").await;
        let slow = format!("slow-{org}");
        let send = format!("send-{org}");
        for _ in 0..3 {
            enqueue(&app, &org, &Gated { gate: slow.clone() }).await;
        }
        for _ in 0..3 {
            enqueue(&app, &org, &GatedSend { gate: send.clone() }).await;
        }
        let config = Workers {
            slots: 2,
            per_organization: 2,
            send_slots: 4,
            sends_per_organization: 2,
            poll_interval: Duration::from_millis(20),
            ..Workers::default()
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(jobs::work(app.state.app.clone(), registry(), config, async move {
            let _ = stopped.await;
        }));
        until(&app, "the organization's slots and its share of sends are taken", |jobs| {
            let running = |gate: &str| jobs.iter().filter(|j| j.1 == gate && j.2 == "running").count();
            running(&slow) == 2 && running(&send) == 2
        })
        .await;
        gate(&send).add_permits(3);
        until(&app, "every send is done while the work slots stay taken", |jobs| {
            jobs.iter().filter(|j| j.1 == send).all(|j| j.2 == "done")
        })
        .await;
        let jobs = test_jobs(&app).await;
        let running = jobs.iter().filter(|j| j.1 == slow && j.2 == "running").count();
        assert_eq!(running, 2, "the slow jobs still hold the work slots: {jobs:?}");
        let queued = jobs.iter().filter(|j| j.1 == slow && j.2 == "queued").count();
        assert_eq!(queued, 1, "the third slow job waits for the organization's share: {jobs:?}");
        gate(&slow).add_permits(3);
        until(&app, "every job is done", |jobs| jobs.iter().all(|j| j.2 == "done")).await;
        let _ = stop.send(());
        worker.await.unwrap();
    }
}
