//! `quire-bench`: a load benchmark for Quire's performance targets.
//!
//! Starts a real server in this process on 127.0.0.1 over a fresh database
//! (SQLite in a temporary directory, or a new PostgreSQL database created on
//! `--database-url` and dropped at the end), seeds one organization with many
//! members straight through the store, then hammers a few read endpoints with
//! keep-alive connections for a fixed time each and prints throughput and
//! latency percentiles, ending with a markdown table.
//!
//!     cargo run --release -p quire-bench -- --seconds 10 --connections 32

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use clap::Parser;
use quire_core::{Clock, Role, SystemClock, Timestamp};
use quire_server::{AppState, accounts};
use quire_store::users::UserRow;
use quire_store::{Backend, Db, members, users};
use serde_json::Value;
use tokio::sync::oneshot;

#[derive(Parser, Debug)]
#[command(name = "quire-bench", about = "Load benchmark for the Quire API")]
struct Args {
    /// How long each scenario runs, in seconds.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Concurrent keep-alive connections.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Members seeded into the organization (besides its admin).
    #[arg(long, default_value_t = 10_000)]
    members: usize,
    /// Page size of the member-list scenarios.
    #[arg(long, default_value_t = 100)]
    limit: usize,
    /// Which page the deep-page scenario asks for (1 is the first page).
    #[arg(long, default_value_t = 90)]
    deep_page: usize,
    /// A PostgreSQL server URL (postgres://...): a fresh database is created
    /// on it and dropped at the end. Without it, SQLite in a temporary directory.
    #[arg(long)]
    database_url: Option<String>,
}

/// Where the benchmark database lives, so it can be removed at the end.
enum Storage {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { admin_url: String, database: String },
}

/// What one scenario measured.
struct Outcome {
    name: String,
    requests: usize,
    errors: usize,
    elapsed: Duration,
    /// Latencies of the successful requests, in microseconds, sorted.
    latencies: Vec<u32>,
}

impl Outcome {
    fn rps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// The `q` quantile (0..=1) in milliseconds.
    fn quantile_ms(&self, q: f64) -> f64 {
        if self.latencies.is_empty() {
            return f64::NAN;
        }
        let rank = ((self.latencies.len() as f64 * q).ceil() as usize).clamp(1, self.latencies.len());
        f64::from(self.latencies[rank - 1]) / 1000.0
    }

    fn max_ms(&self) -> f64 {
        self.latencies.last().map_or(f64::NAN, |&us| f64::from(us) / 1000.0)
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    ensure!(args.connections > 0, "--connections must be at least 1");
    ensure!(args.seconds > 0, "--seconds must be at least 1");
    ensure!(args.limit > 0, "--limit must be at least 1");
    ensure!(args.deep_page > 0, "--deep-page must be at least 1");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the tokio runtime")?;
    runtime.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let (url, storage) = open_storage(args.database_url.as_deref()).await?;
    let db = Db::open(&url)
        .await
        .with_context(|| format!("open {}", quire_store::db::redact(&url)))?;
    let backend = format!("{:?}", db.backend());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("bind 127.0.0.1:0")?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let (shutdown, stop) = oneshot::channel::<()>();
    let server = tokio::spawn(quire_server::serve(
        listener,
        AppState::new(
            db.clone(),
            quire_store::blobs::BlobStore::Local(
                std::env::temp_dir().join(format!("quire-bench-blobs-{}", std::process::id())),
            ),
            quire_server::Fetcher::new(quire_server::FetchConfig::default()).context("fetch client")?,
            &base_url,
        ),
        async {
            let _ = stop.await;
        },
    ));

    let result = bench(&args, &db, &base_url, &backend).await;

    let _ = shutdown.send(());
    match tokio::time::timeout(Duration::from_secs(10), server).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => eprintln!("server stopped with an error: {e}"),
        Ok(Err(e)) => eprintln!("server task failed: {e}"),
        Err(_) => eprintln!("server did not stop within 10 s"),
    }
    db.close().await;
    drop_storage(storage).await;
    result
}

async fn open_storage(database_url: Option<&str>) -> anyhow::Result<(String, Storage)> {
    match database_url {
        None => {
            let dir = tempfile::tempdir().context("create a temporary directory")?;
            Ok((Db::sqlite_url_for_dir(dir.path()), Storage::Sqlite(dir)))
        }
        Some(admin_url) => {
            ensure!(
                admin_url.starts_with("postgres:") || admin_url.starts_with("postgresql:"),
                "--database-url must be a postgres:// URL"
            );
            let database = format!("quire_bench_{}", quire_core::id::random_alphanumeric(12).to_lowercase());
            let admin = Db::connect(admin_url)
                .await
                .with_context(|| format!("connect to {}", quire_store::db::redact(admin_url)))?;
            admin
                .execute_raw(&format!("CREATE DATABASE {database}"))
                .await
                .context("create the benchmark database")?;
            admin.close().await;
            let base = admin_url.split('?').next().unwrap_or(admin_url);
            let (server, _) = base.rsplit_once('/').context("the database URL has no path")?;
            Ok((
                format!("{server}/{database}"),
                Storage::Postgres {
                    admin_url: admin_url.to_owned(),
                    database,
                },
            ))
        }
    }
}

async fn drop_storage(storage: Storage) {
    if let Storage::Postgres { admin_url, database } = storage {
        let dropped = match Db::connect(&admin_url).await {
            Ok(admin) => {
                let done = admin
                    .execute_raw(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
                    .await;
                admin.close().await;
                done.map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = dropped {
            eprintln!("could not drop the benchmark database {database}: {e}");
        }
    }
}

async fn bench(args: &Args, db: &Db, base_url: &str, backend: &str) -> anyhow::Result<()> {
    let now = SystemClock.now();
    let admin = accounts::ensure_user(db, "bench-admin@example.com", "Bench Admin", now)
        .await
        .map_err(|e| anyhow::anyhow!("create the admin user: {e}"))?;
    let token = accounts::create_token(db, &admin.id, now)
        .await
        .map_err(|e| anyhow::anyhow!("create the admin token: {e}"))?;
    let client = http_client(&token)?;

    let org: Value = client
        .post(format!("{base_url}/v1/orgs"))
        .json(&serde_json::json!({ "title": "Bench Org" }))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let org_id = org["id"].as_str().context("the new organization has no id")?.to_owned();

    let started = Instant::now();
    seed_members(db, &org_id, args.members, now).await?;
    if db.backend() == Backend::Postgres {
        // Measure the steady state, with the statistics autovacuum would have
        // gathered by now, not the planner's guesses about fresh tables.
        db.execute_raw("ANALYZE").await.context("analyze the seeded tables")?;
    }
    println!(
        "seeded {} members into {org_id} on {backend} in {:.1} s",
        args.members,
        started.elapsed().as_secs_f64()
    );

    let members_url = format!("{base_url}/v1/orgs/{org_id}/members?limit={}", args.limit);
    let deep_url = deep_page_url(&client, &members_url, args.deep_page, args.limit).await?;

    let scenarios = [
        (
            format!("GET /v1/orgs/{{id}}/members?limit={} (page 1)", args.limit),
            members_url,
        ),
        (
            format!(
                "GET /v1/orgs/{{id}}/members?limit={} (page {})",
                args.limit, args.deep_page
            ),
            deep_url,
        ),
        ("GET /v1/orgs/{id}".to_owned(), format!("{base_url}/v1/orgs/{org_id}")),
    ];
    let mut outcomes = Vec::new();
    for (name, url) in scenarios {
        let outcome = measure(&name, &url, &token, args).await?;
        println!(
            "{name}: {} requests, {} errors, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            outcome.requests,
            outcome.errors,
            outcome.rps(),
            outcome.quantile_ms(0.50),
            outcome.quantile_ms(0.99),
            outcome.max_ms()
        );
        outcomes.push(outcome);
    }

    println!();
    println!(
        "{backend}, {} members, {} connections, {} s per scenario:",
        args.members + 1,
        args.connections,
        args.seconds
    );
    println!();
    println!("| scenario | req/s | p50 ms | p99 ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for o in &outcomes {
        println!(
            "| `{}` | {:.0} | {:.2} | {:.2} | {:.2} |",
            o.name,
            o.rps(),
            o.quantile_ms(0.50),
            o.quantile_ms(0.99),
            o.max_ms()
        );
    }

    let errors: usize = outcomes.iter().map(|o| o.errors).sum();
    if errors > 0 {
        bail!("{errors} requests failed (not 200): the numbers above are not valid");
    }
    Ok(())
}

fn http_client(token: &str) -> anyhow::Result<reqwest::Client> {
    let mut headers = reqwest::header::HeaderMap::new();
    let mut auth = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))?;
    auth.set_sensitive(true);
    headers.insert(reqwest::header::AUTHORIZATION, auth);
    Ok(reqwest::Client::builder()
        .default_headers(headers)
        .no_proxy()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(30))
        .build()?)
}

/// Inserts `count` users and their memberships, a transaction per batch.
/// Join times are one second apart and roles cycle, like a real directory.
async fn seed_members(db: &Db, org_id: &str, count: usize, now: Timestamp) -> anyhow::Result<()> {
    const BATCH: usize = 1000;
    const ROLES: [Option<Role>; 6] = [
        Some(Role::Read),
        Some(Role::Read),
        Some(Role::Edit),
        Some(Role::Comment),
        Some(Role::Review),
        None,
    ];
    let first_join = now.0 - 1000 * count as i64;
    let mut start = 0;
    while start < count {
        let end = (start + BATCH).min(count);
        let mut tx = db.write().await?;
        for i in start..end {
            let user = UserRow {
                id: quire_core::id::new_id(),
                email: format!("member{i:05}@example.com"),
                display_name: format!("Member {i:05}"),
                photo_url: None,
                created_at: now,
            };
            users::insert(&mut tx, &user).await?;
            let joined = Timestamp(first_join + 1000 * i as i64);
            members::insert(&mut tx, org_id, &user.id, ROLES[i % ROLES.len()], false, joined).await?;
        }
        tx.commit().await?;
        start = end;
    }
    Ok(())
}

/// Follows `next.page` from the first page to page `page` and returns its URL.
async fn deep_page_url(client: &reqwest::Client, first: &str, page: usize, limit: usize) -> anyhow::Result<String> {
    let mut url = first.to_owned();
    for n in 1..=page {
        let body: Value = client.get(&url).send().await?.error_for_status()?.json().await?;
        let items = body["items"].as_array().map_or(0, Vec::len);
        ensure!(items == limit, "page {n} has {items} members, expected {limit}");
        if n == page {
            break;
        }
        let cursor = body
            .pointer("/next/page")
            .and_then(Value::as_str)
            .with_context(|| format!("page {n} has no next page: seed more members or ask for a shallower page"))?;
        url = format!("{first}&page={cursor}");
    }
    Ok(url)
}

/// Sends GET `url` from `args.connections` keep-alive connections, back to
/// back, for `args.seconds`, and collects the latencies.
async fn measure(name: &str, url: &str, token: &str, args: &Args) -> anyhow::Result<Outcome> {
    let url: Arc<str> = url.into();
    let duration = Duration::from_secs(args.seconds);
    // Open every connection (and warm the server) before the clock starts.
    let mut clients = Vec::with_capacity(args.connections);
    for _ in 0..args.connections {
        clients.push(http_client(token)?);
    }
    let warm = clients.iter().map(|c| {
        let c = c.clone();
        let url = url.clone();
        tokio::spawn(async move { c.get(&*url).send().await?.error_for_status()?.bytes().await })
    });
    for task in warm.collect::<Vec<_>>() {
        task.await?.with_context(|| format!("warm-up request to {url}"))?;
    }

    let started = Instant::now();
    let deadline = started + duration;
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|client| {
            let url = url.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(16 * 1024);
                let mut errors = 0usize;
                let mut first_error = None;
                while Instant::now() < deadline {
                    let sent = Instant::now();
                    let ok = match client.get(&*url).send().await {
                        Ok(res) => {
                            let status = res.status();
                            match res.bytes().await {
                                Ok(_) if status == reqwest::StatusCode::OK => true,
                                Ok(body) => {
                                    first_error
                                        .get_or_insert_with(|| format!("{status}: {}", String::from_utf8_lossy(&body)));
                                    false
                                }
                                Err(e) => {
                                    first_error.get_or_insert_with(|| e.to_string());
                                    false
                                }
                            }
                        }
                        Err(e) => {
                            first_error.get_or_insert_with(|| e.to_string());
                            false
                        }
                    };
                    if ok {
                        let us = sent.elapsed().as_micros();
                        latencies.push(u32::try_from(us).unwrap_or(u32::MAX));
                    } else {
                        errors += 1;
                    }
                }
                (latencies, errors, first_error)
            })
        })
        .collect();

    let mut latencies = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let (l, e, first_error) = task.await?;
        if let Some(message) = first_error {
            eprintln!("{name}: a request failed: {message}");
        }
        latencies.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Ok(Outcome {
        name: name.to_owned(),
        requests: latencies.len(),
        errors,
        elapsed,
        latencies,
    })
}
