//! `soak`: the real `quire` binary under mixed traffic for `--seconds`
//! (1,800 for the README's figures): one node on SQLite, or with
//! `--database-url` two nodes on one fresh PostgreSQL database sharing a
//! blob directory, each running its job worker. Workers alternate between
//! the nodes: API reads, published pages and their markdown, search,
//! comments, change requests rewriting pages (each worker its own) and
//! merged, the audit log; beside
//! them a PDF every two minutes and a Git import every five. A webhook
//! endpoint in this process hears every merge and comment.
//!
//! Measured: every answer's status (anything but 2xx, and the 409s a
//! concurrent merge may get, is counted as an error), API-read latency,
//! each node's resident memory every 10 s, webhook delivery latency; at the
//! end, after the job queue drains, that every page ends with the last
//! write acknowledged for it, every acknowledged comment is there, and
//! every merge's and comment's event was delivered.

use std::collections::{BTreeMap, HashSet};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::{Value, json};

use crate::memory::{Child_, rss_mib};
use crate::{Args, Latencies, http_client, micros_since};

/// Concurrent workers (each one request at a time).
const WORKERS: usize = 6;
/// Pages the space starts with.
const SEED_PAGES: usize = 200;

/// Everything the run records, shared by the workers.
#[derive(Default)]
struct Record {
    /// Latency in µs by kind of request.
    latencies: BTreeMap<&'static str, Vec<u32>>,
    /// Answers by kind and status that were not what the request expects.
    errors: BTreeMap<(&'static str, u16), usize>,
    /// 409s of merges racing each other (intended: the client retries).
    conflicts: usize,
    /// The subject of every acknowledged merge (each names its marker).
    merged_titles: Vec<String>,
    /// The text each page should end with: the last acknowledged merge's
    /// marker, per page (each worker writes its own pages, in order).
    last_written: std::collections::HashMap<String, String>,
    comments: Vec<String>,
    pdfs: usize,
    imports: usize,
}

impl Record {
    fn answer(&mut self, kind: &'static str, status: u16, started: Instant) {
        if (200..300).contains(&status) {
            self.latencies.entry(kind).or_default().push(micros_since(started));
        } else {
            *self.errors.entry((kind, status)).or_default() += 1;
        }
    }
}

/// A node's memory at one moment, in MiB.
struct NodeMemory {
    /// Resident set.
    rss: f64,
    /// What the program allocated (jemalloc), from its metrics.
    heap: f64,
    /// What its caches count, from its metrics.
    caches: f64,
}

/// The sum, in MiB, of the values of the metric lines starting with
/// `prefix` (NaN when there is none).
fn metric_mib(text: &str, prefix: &str) -> f64 {
    let values: Vec<f64> = text
        .lines()
        .filter(|line| line.starts_with(prefix))
        .filter_map(|line| line.rsplit(' ').next()?.parse().ok())
        .collect();
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().sum::<f64>() / (1024.0 * 1024.0)
}

/// One `quire serve` child.
struct Node {
    server: Child_,
    base: String,
    /// Where it serves its metrics.
    metrics: String,
}

fn quire_binary() -> anyhow::Result<std::path::PathBuf> {
    let bin = std::env::current_exe()?.with_file_name("quire");
    ensure!(
        bin.exists(),
        "{} is missing: cargo build --release -p quire",
        bin.display()
    );
    Ok(bin)
}

fn start_node(bin: &std::path::Path, storage: &[String]) -> anyhow::Result<Node> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let metrics_port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let base = format!("http://127.0.0.1:{port}");
    let server = Child_(
        Command::new(bin)
            .args([
                "serve",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--allow-private-fetch",
                "--metrics-listen",
                &format!("127.0.0.1:{metrics_port}"),
            ])
            .args(storage)
            .env("QUIRE_LOG", "warn")
            // One token makes all the traffic: limits stay on (their cost
            // is part of the run), far above it.
            .env("QUIRE_RATE_LIMIT_TOKEN", "1000000")
            .env("QUIRE_RATE_LIMIT_SITES", "1000000")
            .env("QUIRE_RATE_LIMIT_ADDRESS", "1000000")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .context("start quire serve")?,
    );
    Ok(Node {
        server,
        base,
        metrics: format!("http://127.0.0.1:{metrics_port}/metrics"),
    })
}

async fn wait_healthy(client: &reqwest::Client, base: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !client
        .get(format!("{base}/health"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        ensure!(Instant::now() < deadline, "{base} did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// A local Git repository in GitBook's layout with `pages` pages.
fn repository(dir: &std::path::Path, pages: usize) -> anyhow::Result<String> {
    use crate::gitsync::git;
    std::fs::create_dir_all(dir)?;
    git(dir, &["init", "-q", "-b", "main"])?;
    let mut summary = String::from("# Summary\n\n");
    for i in 0..pages {
        std::fs::write(
            dir.join(format!("page-{i}.md")),
            format!("# Imported {i}\n\nThe walrus and the carpenter, part {i}.\n"),
        )?;
        summary.push_str(&format!("* [Imported {i}](page-{i}.md)\n"));
    }
    std::fs::write(dir.join("SUMMARY.md"), summary)?;
    git(dir, &["add", "-A"])?;
    git(dir, &["commit", "-q", "-m", "pages"])?;
    Ok(format!("file://{}", dir.display()))
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let bin = quire_binary()?;
    let dir = tempfile::tempdir()?;
    let (storage, database) = match &args.database_url {
        None => (
            vec!["--data-dir".to_owned(), dir.path().join("data").display().to_string()],
            None,
        ),
        Some(admin) => {
            let (url, storage) = crate::open_storage(Some(admin)).await?;
            (
                vec![
                    "--database-url".to_owned(),
                    url.clone(),
                    "--data-dir".to_owned(),
                    dir.path().join("data").display().to_string(),
                ],
                Some((url, storage)),
            )
        }
    };
    let token_out = Command::new(&bin)
        .args(["token", "create", "--email", "soak@example.com", "--name", "Soak"])
        .args(&storage)
        .env("QUIRE_LOG", "warn")
        .output()?;
    ensure!(
        token_out.status.success(),
        "token create: {}",
        String::from_utf8_lossy(&token_out.stderr)
    );
    let token = String::from_utf8(token_out.stdout)?
        .lines()
        .last()
        .context("token")?
        .trim()
        .to_owned();
    let node_count = if database.is_some() { 2 } else { 1 };
    let nodes: Vec<Node> = (0..node_count)
        .map(|_| start_node(&bin, &storage))
        .collect::<anyhow::Result<_>>()?;
    let client = http_client(&token)?;
    for node in &nodes {
        wait_healthy(&client, &node.base).await?;
    }
    let bases: Vec<String> = nodes.iter().map(|n| n.base.clone()).collect();
    let base = bases[0].clone();

    // The organization, a space of SEED_PAGES pages, its published site, a
    // space Git imports write into, and the webhook endpoint.
    let post = |url: String, body: Value| {
        let client = client.clone();
        async move { crate::post_json(&client, url, &body).await }
    };
    let org = post(format!("{base}/v1/orgs"), json!({ "title": "Soak" })).await?["id"]
        .as_str()
        .context("org")?
        .to_owned();
    let space = post(format!("{base}/v1/orgs/{org}/spaces"), json!({ "title": "Handbook" })).await?["id"]
        .as_str()
        .context("space")?
        .to_owned();
    let cr = post(
        format!("{base}/v1/spaces/{space}/change-requests"),
        json!({ "subject": "Seed" }),
    )
    .await?["id"]
        .as_str()
        .context("cr")?
        .to_owned();
    let changes: Vec<Value> = (0..SEED_PAGES)
        .map(|i| {
            json!({ "operation": "insert_page", "document": { "markdown": format!(
                "# Seed page {i}\n\nDeploying the service {i} needs a configuration file and a walrus.\n\n## Details\n\n{}",
                "More words about deployment and configuration. ".repeat(20)
            ) } })
        })
        .collect();
    for batch in changes.chunks(50) {
        post(
            format!("{base}/v1/spaces/{space}/change-requests/{cr}/content"),
            json!({ "changes": batch }),
        )
        .await?;
    }
    post(
        format!("{base}/v1/spaces/{space}/change-requests/{cr}/merge"),
        Value::Null,
    )
    .await?;
    let site = post(
        format!("{base}/v1/orgs/{org}/sites"),
        json!({ "title": "Handbook", "visibility": "public", "spaces": [space] }),
    )
    .await?;
    let site_id = site["id"].as_str().context("site")?.to_owned();
    let basename = site["basename"].as_str().unwrap_or("handbook").to_owned();
    post(format!("{base}/v1/orgs/{org}/sites/{site_id}/publish"), Value::Null).await?;
    let git_space = post(format!("{base}/v1/orgs/{org}/spaces"), json!({ "title": "Imported" })).await?["id"]
        .as_str()
        .context("space")?
        .to_owned();
    let repo = repository(&dir.path().join("repo"), 50)?;

    let heard: Arc<Mutex<Vec<(String, Value, Instant)>>> = Arc::default();
    let endpoint = {
        let heard = heard.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |body: axum::body::Bytes| {
                let heard = heard.clone();
                async move {
                    let event: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let kind = event["type"].as_str().unwrap_or_default().to_owned();
                    heard.lock().unwrap().push((kind, event, Instant::now()));
                    axum::http::StatusCode::NO_CONTENT
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/hook", listener.local_addr()?);
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    };
    post(
        format!("{base}/v1/orgs/{org}/webhooks"),
        json!({ "url": endpoint, "events": ["change_request_merged", "comment_created"] }),
    )
    .await?;
    let seeded: Vec<(String, String)> = {
        let content = crate::get_json(&client, format!("{base}/v1/spaces/{space}/content")).await?;
        content["pages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p["id"].as_str()?.to_owned(), p["slug"].as_str()?.to_owned())))
            .collect()
    };
    let pages: Vec<String> = seeded.iter().map(|(_, slug)| slug.clone()).collect();
    ensure!(pages.len() >= SEED_PAGES, "seeded {} pages", pages.len());

    let seconds = args.seconds;
    eprintln!("soak: {node_count} node(s), {WORKERS} workers, {seconds} s; space {space}, site /{basename}/");
    let record: Arc<Mutex<Record>> = Arc::default();
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);

    // Resident memory of every node, every 10 s, with what its metrics
    // say of it: the heap the program allocated, and the caches' bytes.
    let pids: Vec<u32> = nodes.iter().map(|n| n.server.0.id()).collect();
    let scrapes: Vec<String> = nodes.iter().map(|n| n.metrics.clone()).collect();
    let scraper = reqwest::Client::new();
    let memory = tokio::spawn(async move {
        let mut samples: Vec<(u64, Vec<NodeMemory>)> = Vec::new();
        while Instant::now() < until {
            let mut now = Vec::new();
            for (&pid, scrape) in pids.iter().zip(&scrapes) {
                let text = match scraper.get(scrape).send().await {
                    Ok(res) => res.text().await.unwrap_or_default(),
                    Err(_) => String::new(),
                };
                now.push(NodeMemory {
                    rss: rss_mib(pid).unwrap_or(f64::NAN),
                    heap: metric_mib(&text, "quire_memory_bytes{kind=\"heap_allocated\"}"),
                    caches: metric_mib(&text, "quire_cache_bytes{"),
                });
            }
            samples.push((started.elapsed().as_secs(), now));
            tokio::time::sleep(Duration::from_secs(10)).await;
        }
        samples
    });

    let mut workers = Vec::new();
    for w in 0..WORKERS {
        let (client, record, bases) = (http_client(&token)?, record.clone(), bases.clone());
        let (org, space, pages, basename) = (org.clone(), space.clone(), pages.clone(), basename.clone());
        let own: Vec<(String, String)> = seeded.iter().skip(w).step_by(WORKERS).cloned().collect();
        workers.push(tokio::spawn(async move {
            let mut i = w;
            while Instant::now() < until {
                i += 1;
                let base = &bases[i % bases.len()];
                let page = &pages[(i * 7919) % pages.len()];
                let began = Instant::now();
                // Which API read this is, for its own row beside all of them.
                let mut read_route = None;
                let (kind, status) = match i % 20 {
                    0..=9 => {
                        let (route, url) = match i % 4 {
                            0 => ("api read · space", format!("{base}/v1/spaces/{space}")),
                            1 => ("api read · content", format!("{base}/v1/spaces/{space}/content")),
                            2 => ("api read · org spaces", format!("{base}/v1/orgs/{org}/spaces")),
                            _ => (
                                "api read · page by path",
                                format!("{base}/v1/spaces/{space}/content/path/{page}"),
                            ),
                        };
                        read_route = Some(route);
                        ("api read", status(client.get(url).send().await))
                    }
                    10..=12 => (
                        "published page",
                        status(client.get(format!("{base}/{basename}/{page}")).send().await),
                    ),
                    13 => (
                        "page markdown",
                        status(client.get(format!("{base}/{basename}/{page}.md")).send().await),
                    ),
                    14 | 15 => {
                        let word = ["deploy", "walrus", "configuration", "service 42"][i % 4];
                        let url = format!("{base}/v1/spaces/{space}/search?query={}", word.replace(' ', "%20"));
                        ("search", status(client.get(url).send().await))
                    }
                    16 => {
                        let answer = client
                            .post(format!("{base}/v1/spaces/{space}/comments"))
                            .json(&json!({ "body": { "markdown": format!("Comment {w}-{i}") } }))
                            .send()
                            .await;
                        match answer {
                            Ok(res) if res.status().is_success() => {
                                let body: Value = res.json().await.unwrap_or(Value::Null);
                                if let Some(id) = body["id"].as_str() {
                                    record.lock().unwrap().comments.push(id.to_owned());
                                }
                                ("comment", 200)
                            }
                            other => ("comment", status(other)),
                        }
                    }
                    17 | 18 => {
                        // Each worker rewrites pages of its own, so what each
                        // page ends with is the last merge acknowledged for it.
                        let (page_id, page_slug) = &own[(i / 20) % own.len()];
                        let title = format!("Soak {w}-{i}");
                        match write_and_merge(&client, base, &space, page_id, &title).await {
                            Ok(200) => {
                                let mut record = record.lock().unwrap();
                                record.last_written.insert(page_slug.clone(), title.clone());
                                record.merged_titles.push(title);
                                ("merge", 200)
                            }
                            Ok(409) => {
                                record.lock().unwrap().conflicts += 1;
                                continue;
                            }
                            Ok(other) => ("merge", other),
                            Err(_) => ("merge", 0),
                        }
                    }
                    _ => (
                        "audit log",
                        status(
                            client
                                .get(format!("{base}/v1/orgs/{org}/audit-events?limit=20"))
                                .send()
                                .await,
                        ),
                    ),
                };
                let mut record = record.lock().unwrap();
                record.answer(kind, status, began);
                if let Some(route) = read_route.filter(|_| (200..300).contains(&status)) {
                    record.latencies.entry(route).or_default().push(micros_since(began));
                }
            }
        }));
    }

    // A PDF every two minutes and a Git import every five, on the nodes in turn.
    let periodic = {
        let (client, record, bases) = (http_client(&token)?, record.clone(), bases.clone());
        let (space, git_space, repo) = (space.clone(), git_space.clone(), repo.clone());
        tokio::spawn(async move {
            let mut tick = 0u64;
            while Instant::now() < until {
                let base = &bases[tick as usize % bases.len()];
                if tick % 120 == 30 {
                    let began = Instant::now();
                    let link = client.get(format!("{base}/v1/spaces/{space}/pdf")).send().await;
                    let status = match link {
                        Ok(res) if res.status().is_success() => {
                            let body: Value = res.json().await.unwrap_or(Value::Null);
                            let url = body["url"].as_str().unwrap_or_default().to_owned();
                            let pdf = client.get(url).send().await;
                            match pdf {
                                Ok(res) if res.status().is_success() => {
                                    let bytes = res.bytes().await.unwrap_or_default();
                                    if bytes.starts_with(b"%PDF") { 200 } else { 0 }
                                }
                                other => status(other),
                            }
                        }
                        other => status(other),
                    };
                    let mut record = record.lock().unwrap();
                    record.pdfs += 1;
                    record.answer("pdf", status, began);
                }
                if tick % 300 == 60 {
                    let began = Instant::now();
                    let answer = client
                        .post(format!("{base}/v1/spaces/{git_space}/git/import"))
                        .json(&json!({ "url": repo, "ref": "refs/heads/main" }))
                        .send()
                        .await;
                    let code = status_and_log("git import request", answer).await;
                    let mut record = record.lock().unwrap();
                    record.imports += 1;
                    record.answer("git import request", code, began);
                }
                tick += 1;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        })
    };

    for worker in workers {
        worker.await?;
    }
    periodic.await?;
    let samples = memory.await?;
    let elapsed = started.elapsed();

    // The queue drains; then every acknowledged write is there.
    let drained_in = wait_for_drain(database.as_ref().map(|(url, _)| url.as_str()), &dir).await?;
    let record = Arc::try_unwrap(record)
        .map_err(|_| anyhow::anyhow!("workers still hold the record"))?
        .into_inner()
        .unwrap();
    let mut lost_writes = 0;
    for (slug, marker) in &record.last_written {
        let markdown = client
            .get(format!("{base}/{basename}/{slug}.md"))
            .send()
            .await?
            .text()
            .await?;
        if !markdown.trim_end().ends_with(marker.as_str()) {
            lost_writes += 1;
        }
    }
    let comment_count = crate::get_json(&client, format!("{base}/v1/spaces/{space}/comments?limit=1")).await?["count"]
        .as_u64()
        .unwrap_or(0);
    let sync = crate::get_json(&client, format!("{base}/v1/spaces/{git_space}/git/info"))
        .await
        .unwrap_or(Value::Null);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let heard = heard.lock().unwrap().clone();
    let merged_events: HashSet<String> = heard
        .iter()
        .filter(|(kind, _, _)| kind == "change_request_merged")
        .filter_map(|(_, e, _)| e["subject"].as_str().map(str::to_owned))
        .collect();
    let comment_events: HashSet<String> = heard
        .iter()
        .filter(|(kind, _, _)| kind == "comment_created")
        .filter_map(|(_, e, _)| e["commentId"].as_str().map(str::to_owned))
        .collect();
    let lost_merge_events = record
        .merged_titles
        .iter()
        .filter(|t| !merged_events.contains(*t))
        .count();
    let lost_comment_events = record.comments.iter().filter(|c| !comment_events.contains(*c)).count();
    let delivery = {
        let mut delays: Vec<u32> = Vec::new();
        let origin = std::time::SystemTime::now();
        for (_, event, at) in &heard {
            let Some(created) = event["createdAt"]
                .as_str()
                .and_then(quire_core::Timestamp::parse_rfc3339)
            else {
                continue;
            };
            // When the event was made, on this process's clock.
            let now_ms = origin.duration_since(std::time::UNIX_EPOCH)?.as_millis() as i64;
            let heard_ms = now_ms - at.elapsed().as_millis() as i64;
            delays.push(u32::try_from((heard_ms - created.0).max(0) * 1000).unwrap_or(u32::MAX));
        }
        Latencies::new(delays)
    };

    println!(
        "Soak: {node_count} node(s) on {}, {WORKERS} workers, {:.0} s\n",
        if database.is_some() { "PostgreSQL" } else { "SQLite" },
        elapsed.as_secs_f64()
    );
    println!("| requests | answered 2xx | req/s | p50 ms | p99 ms | max ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (kind, micros) in &record.latencies {
        let latencies = Latencies::new(micros.clone());
        println!(
            "| {kind} | {} | {:.1} | {:.2} | {:.2} | {:.0} |",
            latencies.count(),
            latencies.count() as f64 / elapsed.as_secs_f64(),
            latencies.quantile_ms(0.5),
            latencies.quantile_ms(0.99),
            latencies.max_ms()
        );
    }
    println!();
    if record.errors.is_empty() {
        println!(
            "Errors: none (merges refused by a concurrent merge, 409, retried by the client: {}).",
            record.conflicts
        );
    } else {
        println!(
            "Errors (merges refused by a concurrent merge, 409: {}):",
            record.conflicts
        );
        for ((kind, status), n) in &record.errors {
            println!("- {kind}: {n} × {status}");
        }
    }
    println!();
    println!("Resident memory (MiB) by node:");
    let at = |secs: u64| samples.iter().find(|(s, _)| *s >= secs).or(samples.last());
    if let (Some((_, first)), Some((_, five)), Some((end, last))) = (samples.first(), at(300), samples.last()) {
        for n in 0..first.len() {
            let peak = samples.iter().map(|(_, r)| r[n].rss).fold(0.0, f64::max);
            println!(
                "- node {}: start {:.0}, at 5 min {:.0}, end {:.0} (growth after 5 min {:+.1}%), peak {:.0}",
                n + 1,
                first[n].rss,
                five[n].rss,
                last[n].rss,
                (last[n].rss - five[n].rss) / five[n].rss * 100.0,
                peak
            );
            // The curve: whether growth levels off, every 5 minutes and at
            // the end; with the heap allocated and the caches' part of it.
            let marks: Vec<String> = (1..)
                .map(|k| k * 300)
                .take_while(|secs| secs < end)
                .chain(std::iter::once(*end))
                .filter_map(|secs| {
                    let (at_secs, r) = at(secs)?;
                    let m = &r[n];
                    Some(format!(
                        "{}:{:02} rss {:.0} heap {:.0} caches {:.0}",
                        at_secs / 60,
                        at_secs % 60,
                        m.rss,
                        m.heap,
                        m.caches
                    ))
                })
                .collect();
            println!("  every 5 min: {}", marks.join(" · "));
        }
    }
    println!();
    println!(
        "Writes: {} merges acknowledged ({} pages rewritten), {lost_writes} pages not ending with their last \
         acknowledged write; {} comments acknowledged, {} in the space; {} PDFs, {} Git imports (last: {}).",
        record.merged_titles.len(),
        record.last_written.len(),
        record.comments.len(),
        comment_count,
        record.pdfs,
        record.imports,
        sync["operation"]["state"]
            .as_str()
            .or(sync["state"].as_str())
            .unwrap_or("?"),
    );
    println!(
        "Webhooks: {} events heard; merges without their event: {lost_merge_events}, comments without theirs: \
         {lost_comment_events}; delivery after the event p50 {:.0} ms, p99 {:.0} ms.",
        heard.len(),
        delivery.quantile_ms(0.5),
        delivery.quantile_ms(0.99)
    );
    println!("Job queue: {drained_in}.");
    drop(nodes);
    if let Some((_, storage)) = database {
        crate::drop_storage(storage).await;
    }
    Ok(())
}

/// The status, and on stderr the body of an unexpected answer.
async fn status_and_log(kind: &str, answer: Result<reqwest::Response, reqwest::Error>) -> u16 {
    match answer {
        Ok(res) if res.status().is_success() => res.status().as_u16(),
        Ok(res) => {
            let code = res.status().as_u16();
            eprintln!("{kind}: {code} {}", res.text().await.unwrap_or_default());
            code
        }
        Err(e) => {
            eprintln!("{kind}: {e}");
            0
        }
    }
}

fn status(answer: Result<reqwest::Response, reqwest::Error>) -> u16 {
    answer.map(|r| r.status().as_u16()).unwrap_or(0)
}

/// Opens a change request, rewrites page `page` to end with `marker`,
/// merges: the merge's status.
async fn write_and_merge(
    client: &reqwest::Client,
    base: &str,
    space: &str,
    page: &str,
    marker: &str,
) -> anyhow::Result<u16> {
    let cr = crate::post_json(
        client,
        format!("{base}/v1/spaces/{space}/change-requests"),
        &json!({ "subject": marker }),
    )
    .await?;
    let cr = cr["id"].as_str().context("cr id")?.to_owned();
    crate::post_json(
        client,
        format!("{base}/v1/spaces/{space}/change-requests/{cr}/content"),
        &json!({ "changes": [{ "operation": "update_page", "page": page, "document": {
            "markdown": format!("Deploying the service needs a configuration file.\n\n{marker}\n") } }] }),
    )
    .await?;
    let merged = client
        .post(format!("{base}/v1/spaces/{space}/change-requests/{cr}/merge"))
        .send()
        .await?;
    Ok(merged.status().as_u16())
}

/// How long until no job was queued or running (two minutes at most).
async fn wait_for_drain(database_url: Option<&str>, dir: &tempfile::TempDir) -> anyhow::Result<String> {
    let url = match database_url {
        Some(url) => url.to_owned(),
        None => quire_store::Db::sqlite_url_for_dir(&dir.path().join("data")),
    };
    let db = quire_store::Db::connect(&url).await?;
    let started = Instant::now();
    loop {
        let mut conn = db.read().await?;
        let waiting = quire_store::jobs::waiting_by_state(&mut conn).await?;
        drop(conn);
        if waiting.iter().all(|(_, n)| *n == 0) {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let mut conn = db.read().await?;
            let by_kind: Vec<(String, String, i64)> = sqlx::query_as(
                "SELECT kind, state, COUNT(*) FROM jobs WHERE state IN ('queued', 'running') GROUP BY kind, state",
            )
            .fetch_all(&mut *conn)
            .await?;
            drop(conn);
            db.close().await;
            return Ok(format!(
                "not drained: {by_kind:?} (kind, state, jobs) still waiting 120 s after the load stopped"
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    db.close().await;
    Ok(format!(
        "drained {:.1} s after the load stopped",
        started.elapsed().as_secs_f64()
    ))
}
