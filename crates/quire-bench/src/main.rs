//! `quire-bench`: a load benchmark for Quire's performance targets.
//!
//! Starts a real server in this process on 127.0.0.1 over a fresh database
//! (SQLite in a temporary directory, or a new PostgreSQL database created on
//! `--database-url` and dropped at the end), seeds it straight through the
//! store (or the content engine), then measures a scenario group and prints
//! markdown tables:
//!
//! - `members` (the default): an organization with many members; member
//!   pages and the organization, under concurrent load ([`members`]);
//! - `spaces`: a guest reading a space through a team grant on a nested
//!   collection, in a large and a small organization ([`spaces`]);
//! - `content`: edits, merges and page lists of spaces with thousands of
//!   pages, one request at a time ([`content`]);
//! - `search`: full-text search over a 10,000-page corpus and across 100
//!   spaces ([`search`]);
//! - `git`: Git Sync of a large repository: import, re-import, export
//!   ([`gitsync`]);
//! - `openapi`: processing a 5 MB OpenAPI document ([`openapi`]);
//! - `fidelity`: a real GitBook repository imported, published and read
//!   back, with counts of what shows broken ([`fidelity`]);
//! - `translate`: translating a space through a local provider, Quire's
//!   overhead per page ([`translate`]);
//! - `pdf`: a PDF of a 500-page space, time and peak memory of the
//!   `quire` binary ([`pdf`]);
//! - `soak`: the real binary under mixed traffic for half an hour, on one
//!   node or two ([`soak`]);
//! - `memory`: resident memory of the real `quire` binary (run as a child
//!   process) around large requests ([`memory`]).
//!
//! ```text
//! cargo run --release -p quire-bench -- [members|spaces|content|search|memory] --seconds 10 --connections 32
//! ```
//!
//! This file holds the command line, the shared server setup and the load
//! loop; each scenario group lives in its own module.

mod bare;
mod content;
mod fidelity;
mod gitsync;
mod layers;
mod members;
mod memory;
mod openapi;
mod pdf;
mod published;
mod search;
mod soak;
mod spaces;
mod translate;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use clap::{Parser, ValueEnum};
use quire_adapters::{FetchConfig, Fetcher};
use quire_app::{App, accounts};
use quire_server::AppState;
use quire_store::Db;
use quire_store::blobs::BlobStore;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The scenario groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Group {
    /// Member pages and the organization of a 10,000-member organization.
    Members,
    /// A guest reading a space through a team grant three collections up.
    Spaces,
    /// Edits, merges and page lists of 1,000- and 10,000-page spaces.
    Content,
    /// Resident memory of the `quire` binary around large requests.
    Memory,
    /// Full-text search over 10,000 pages and across 100 spaces.
    Search,
    /// A published page of a 10,000-page space: render latency, throughput
    /// against the same bytes served as a file, first-visit size.
    Sites,
    /// Git Sync: import of a 5,000-file repository (or `--repo`), re-import,
    /// export of one changed page.
    Git,
    /// Processing of a large OpenAPI document (`--spec-mb`).
    Openapi,
    /// A real GitBook repository (`--repo` path) imported, published and
    /// read back: what shows broken, and whether its URLs and redirects hold.
    Fidelity,
    /// Translating a space of `--pages` pages through a local provider:
    /// Quire's overhead per page.
    Translate,
    /// A PDF of a 500-page space (`--pages`) made by the `quire` binary:
    /// time and peak memory.
    Pdf,
    /// Mixed traffic against the real binary for `--seconds` (one node on
    /// SQLite, two on `--database-url`): errors, API-read latency, memory,
    /// lost writes, webhook deliveries, the queue drained.
    Soak,
    /// What recording request metrics costs per request, in process: the
    /// same router with and without the metrics layers.
    Layers,
    /// Not a scenario: a minimal axum server answering every request with
    /// the bytes of `--body-file` as JSON, on `--listen`, until stopped
    /// (the baseline of `scripts/hot-paths.sh`).
    Bare,
}

#[derive(Parser, Debug)]
#[command(name = "quire-bench", about = "Load benchmark for the Quire API")]
pub struct Args {
    /// Which scenario group to run.
    #[arg(value_enum, default_value_t = Group::Members)]
    group: Group,
    /// How long each load scenario runs, in seconds (members, spaces).
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Concurrent keep-alive connections (members, spaces).
    #[arg(long, default_value_t = 32)]
    pub connections: usize,
    /// Members seeded into the organization, besides its admin (members).
    #[arg(long, default_value_t = 10_000)]
    pub members: usize,
    /// Page size of the member-list scenarios (members).
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Which page the deep-page scenario asks for, 1 being the first (members).
    #[arg(long, default_value_t = 90)]
    pub deep_page: usize,
    /// Pages of the large space; a space a tenth of its size is measured
    /// too (content).
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// A PostgreSQL server URL (postgres://...): a fresh database is created
    /// on it and dropped at the end. Without it, SQLite in a temporary directory.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Markdown files of the synthetic repository (git).
    #[arg(long, default_value_t = 5_000)]
    pub files: usize,
    /// Images of the synthetic repository (git).
    #[arg(long, default_value_t = 500)]
    pub images: usize,
    /// A real repository to import instead (a URL or a local path) (git).
    #[arg(long)]
    pub repo: Option<String>,
    /// Where the docs are in `--repo` (git).
    #[arg(long)]
    pub project_dir: Option<String>,
    /// Size of the synthetic OpenAPI document, in MB (openapi).
    #[arg(long, default_value_t = 5)]
    pub spec_mb: usize,
    /// The bytes the bare server answers with (bare).
    #[arg(long)]
    pub body_file: Option<std::path::PathBuf>,
    /// Where the bare server listens (bare).
    #[arg(long, default_value = "127.0.0.1:8133")]
    pub listen: String,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // `QUIRE_LOG=info` shows the server's own logs (timings of Git imports…).
    if let Ok(filter) = std::env::var("QUIRE_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .init();
    }
    ensure!(args.connections > 0, "--connections must be at least 1");
    ensure!(args.seconds > 0, "--seconds must be at least 1");
    ensure!(args.limit > 0, "--limit must be at least 1");
    ensure!(args.deep_page > 0, "--deep-page must be at least 1");
    ensure!(args.pages >= 10, "--pages must be at least 10");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the tokio runtime")?;
    runtime.block_on(async {
        match args.group {
            Group::Members => members::run(&args).await,
            Group::Spaces => spaces::run(&args).await,
            Group::Content => content::run(&args).await,
            Group::Memory => memory::run(&args).await,
            Group::Search => search::run(&args).await,
            Group::Sites => published::run(&args).await,
            Group::Git => gitsync::run(&args).await,
            Group::Openapi => openapi::run(&args).await,
            Group::Fidelity => fidelity::run(&args).await,
            Group::Translate => translate::run(&args).await,
            Group::Pdf => pdf::run(&args).await,
            Group::Bare => bare::run(&args).await,
            Group::Layers => layers::run(&args).await,
            Group::Soak => soak::run(&args).await,
        }
    })
}

/// Where the benchmark database lives, so it can be removed at the end.
enum Storage {
    Sqlite(tempfile::TempDir),
    Postgres { admin_url: String, database: String },
}

/// A server running in this process over a fresh database.
pub struct Server {
    pub db: Db,
    /// The state the server runs with (its engine and caches).
    pub state: AppState,
    pub base_url: String,
    /// `Sqlite` or `Postgres`.
    pub backend: String,
    storage: Storage,
    shutdown: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Creates the database, migrates it and starts serving on 127.0.0.1.
    pub async fn start(database_url: Option<&str>) -> anyhow::Result<Server> {
        Server::start_serving(database_url, false).await
    }

    /// As [`Server::start`], letting server-side fetches reach private
    /// addresses and `file://` repositories (the benchmark's own).
    pub async fn start_with_private_fetch(database_url: Option<&str>) -> anyhow::Result<Server> {
        Server::start_serving(database_url, true).await
    }

    async fn start_serving(database_url: Option<&str>, allow_private: bool) -> anyhow::Result<Server> {
        let (url, storage) = open_storage(database_url).await?;
        let db = match Db::open(&url).await {
            Ok(db) => db,
            Err(e) => {
                drop_storage(storage).await;
                return Err(e).with_context(|| format!("open {}", quire_store::db::redact(&url)));
            }
        };
        let backend = format!("{:?}", db.backend());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("bind 127.0.0.1:0")?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let fetcher = Fetcher::new(FetchConfig {
            allow_private_networks: allow_private,
            ..FetchConfig::default()
        })
        .context("build the fetch client")?;
        let state = AppState::new(App::new(db.clone(), blob_store(), fetcher), &base_url);
        let (shutdown, stop) = oneshot::channel::<()>();
        let task = tokio::spawn(quire_server::serve(listener, state.clone(), async {
            let _ = stop.await;
        }));
        Ok(Server {
            db,
            state,
            base_url,
            backend,
            storage,
            shutdown,
            task,
        })
    }

    /// A second engine over the same database and blobs, with its own
    /// caches: seeding through it leaves the server's caches cold.
    pub fn separate_state(&self) -> anyhow::Result<AppState> {
        Ok(AppState::new(
            App::new(self.db.clone(), blob_store(), fetcher()?),
            &self.base_url,
        ))
    }

    /// Stops the server, closes the pool and drops the database.
    pub async fn stop(self) {
        let _ = self.shutdown.send(());
        match tokio::time::timeout(Duration::from_secs(10), self.task).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => eprintln!("server stopped with an error: {e}"),
            Ok(Err(e)) => eprintln!("server task failed: {e}"),
            Err(_) => eprintln!("server did not stop within 10 s"),
        }
        self.db.close().await;
        drop_storage(self.storage).await;
    }

    /// Creates the admin user, an API token for them and, over HTTP, an
    /// organization they administer: `(admin user id, token, org id)`.
    pub async fn admin_and_org(&self, title: &str) -> anyhow::Result<(String, String, String)> {
        let admin = accounts::ensure_user(&self.state.app, "bench-admin@example.com", "Bench Admin")
            .await
            .context("create the admin user")?;
        let token = accounts::create_token(&self.state.app, &admin.id, None)
            .await
            .context("create the admin token")?;
        let org: Value = http_client(&token)?
            .post(format!("{}/v1/orgs", self.base_url))
            .json(&serde_json::json!({ "title": title }))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        let org_id = org["id"].as_str().context("the new organization has no id")?.to_owned();
        Ok((admin.id, token, org_id))
    }

    /// Gives PostgreSQL's planner the statistics autovacuum would have
    /// gathered by now, so we measure the steady state, not its guesses
    /// about fresh tables.
    pub async fn analyze(&self) -> anyhow::Result<()> {
        if self.db.backend() == quire_store::Backend::Postgres {
            self.db
                .execute_raw("ANALYZE")
                .await
                .context("analyze the seeded tables")?;
        }
        Ok(())
    }
}

/// The guarded client for server-side fetches (the benchmarks make none).
fn fetcher() -> anyhow::Result<Fetcher> {
    Fetcher::new(FetchConfig::default()).context("build the fetch client")
}

fn blob_store() -> BlobStore {
    BlobStore::Local(std::env::temp_dir().join(format!("quire-bench-blobs-{}", std::process::id())))
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
    if let Storage::Sqlite(dir) = storage {
        if std::env::var_os("QUIRE_BENCH_KEEP_DATABASE").is_some() {
            eprintln!(
                "kept the benchmark database in {} (QUIRE_BENCH_KEEP_DATABASE)",
                dir.keep().display()
            );
        }
        return;
    }
    if let Storage::Postgres { admin_url, database } = storage {
        if std::env::var_os("QUIRE_BENCH_KEEP_DATABASE").is_some() {
            eprintln!("kept the benchmark database {database} (QUIRE_BENCH_KEEP_DATABASE)");
            return;
        }
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

/// An HTTP client that sends `token` as a bearer token and keeps one
/// connection alive.
pub fn http_client(token: &str) -> anyhow::Result<reqwest::Client> {
    let mut headers = reqwest::header::HeaderMap::new();
    let mut auth = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))?;
    auth.set_sensitive(true);
    headers.insert(reqwest::header::AUTHORIZATION, auth);
    Ok(reqwest::Client::builder()
        .default_headers(headers)
        .no_proxy()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(60))
        .build()?)
}

/// POSTs `body` as JSON; the JSON answer (`null` when empty). An error
/// status fails with the answer in the message.
pub async fn post_json(
    client: &reqwest::Client,
    url: impl reqwest::IntoUrl,
    body: &serde_json::Value,
) -> anyhow::Result<serde_json::Value> {
    answer(client.post(url).json(body).send().await?).await
}

/// GETs a JSON answer; an error status fails with it in the message.
pub async fn get_json(client: &reqwest::Client, url: impl reqwest::IntoUrl) -> anyhow::Result<serde_json::Value> {
    answer(client.get(url).send().await?).await
}

async fn answer(res: reqwest::Response) -> anyhow::Result<serde_json::Value> {
    let status = res.status();
    let text = res.text().await?;
    anyhow::ensure!(status.is_success(), "{status}: {text}");
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Null);
    }
    Ok(serde_json::from_str(&text)?)
}

/// Latencies in microseconds, sorted.
#[derive(Debug, Clone, Default)]
pub struct Latencies(Vec<u32>);

impl Latencies {
    pub fn new(mut micros: Vec<u32>) -> Latencies {
        micros.sort_unstable();
        Latencies(micros)
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The `q` quantile (0..=1) in milliseconds (nearest rank).
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let rank = ((self.0.len() as f64 * q).ceil() as usize).clamp(1, self.0.len());
        f64::from(self.0[rank - 1]) / 1000.0
    }

    pub fn max_ms(&self) -> f64 {
        self.0.last().map_or(f64::NAN, |&us| f64::from(us) / 1000.0)
    }
}

/// Microseconds since `since`, saturating.
pub fn micros_since(since: Instant) -> u32 {
    u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX)
}

/// What one load scenario measured.
pub struct Outcome {
    pub name: String,
    pub errors: usize,
    pub elapsed: Duration,
    /// Latencies of the successful requests.
    pub latencies: Latencies,
}

impl Outcome {
    pub fn rps(&self) -> f64 {
        self.latencies.count() as f64 / self.elapsed.as_secs_f64()
    }

    /// One line for the progress log.
    pub fn summary(&self) -> String {
        format!(
            "{}: {} requests, {} errors, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.name,
            self.latencies.count(),
            self.errors,
            self.rps(),
            self.latencies.quantile_ms(0.50),
            self.latencies.quantile_ms(0.99),
            self.latencies.max_ms()
        )
    }
}

/// Prints a markdown table of load outcomes under `heading`.
pub fn print_load_table(heading: &str, outcomes: &[Outcome]) {
    println!();
    println!("{heading}");
    println!();
    println!("| scenario | req/s | p50 ms | p99 ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for o in outcomes {
        println!(
            "| `{}` | {:.0} | {:.2} | {:.2} | {:.2} |",
            o.name,
            o.rps(),
            o.latencies.quantile_ms(0.50),
            o.latencies.quantile_ms(0.99),
            o.latencies.max_ms()
        );
    }
}

/// Fails when any load scenario had a non-200 answer.
pub fn ensure_no_errors(outcomes: &[Outcome]) -> anyhow::Result<()> {
    let errors: usize = outcomes.iter().map(|o| o.errors).sum();
    ensure!(
        errors == 0,
        "{errors} requests failed (not 200): the numbers above are not valid"
    );
    Ok(())
}

/// Sends GET `url` from `connections` keep-alive connections, back to
/// back, for `seconds`, and collects the latencies.
pub async fn measure(name: &str, url: &str, token: &str, connections: usize, seconds: u64) -> anyhow::Result<Outcome> {
    let url: Arc<str> = url.into();
    let duration = Duration::from_secs(seconds);
    // Open every connection (and warm the server) before the clock starts.
    let mut clients = Vec::with_capacity(connections);
    for _ in 0..connections {
        clients.push(http_client(token)?);
    }
    let warm = clients.iter().map(|c| {
        let c = c.clone();
        let url = url.clone();
        tokio::spawn(async move { c.get(&*url).send().await?.error_for_status()?.bytes().await })
    });
    for task in warm.collect::<Vec<_>>() {
        task.await
            .context("a warm-up task panicked")?
            .with_context(|| format!("warm-up request to {url}"))?;
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
                        latencies.push(micros_since(sent));
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
        let (l, e, first_error) = task.await.context("a load task panicked")?;
        if let Some(message) = first_error {
            eprintln!("{name}: a request failed: {message}");
        }
        latencies.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed();
    Ok(Outcome {
        name: name.to_owned(),
        errors,
        elapsed,
        latencies: Latencies::new(latencies),
    })
}
