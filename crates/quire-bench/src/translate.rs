//! The `translate` scenario group: what Quire itself costs per page when it
//! translates a space.
//!
//! A space of `--pages` pages (the published-site corpus: prose, inline
//! code, a code block, a table, a hint with a link) is translated through a
//! LibreTranslate-compatible provider in this process that answers at once
//! (it prefixes every text). The provider times its own handling of each
//! request; Quire's overhead is the run's wall time minus that, per page:
//! reading the source, splitting prose from everything else, talking HTTP
//! to the provider, putting translations back, writing the result revision
//! and the per-page records. Then a re-run after one source page changed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use axum::Json;
use axum::extract::State;
use quire_adapters::translate::{Provider, ProviderKind};
use serde_json::{Value, json};

use crate::content::seed_pages;
use crate::published::page_markdown;
use crate::{Args, Server, get_json, http_client, post_json};

/// What the provider saw: requests, texts, and time spent answering.
#[derive(Default)]
struct Seen {
    requests: usize,
    texts: usize,
    busy: Duration,
}

type Shared = Arc<Mutex<Seen>>;

async fn translate(State(seen): State<Shared>, Json(body): Json<Value>) -> Json<Value> {
    let started = Instant::now();
    let texts: Vec<String> = body["q"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|t| format!("FR {}", t.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    let answer = Json(json!({ "translatedText": texts }));
    if let Ok(mut seen) = seen.lock() {
        seen.requests += 1;
        seen.texts += texts.len();
        seen.busy += started.elapsed();
    }
    answer
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start(args.database_url.as_deref()).await?;
    let result = scenarios(&server, args).await;
    server.stop().await;
    result
}

/// Runs the translation's job; its wall time in seconds.
async fn run_job(server: &Server) -> anyhow::Result<f64> {
    let registry = quire_server::features::job_registry();
    let started = Instant::now();
    let ran = quire_app::jobs::run_due(&server.state.app, &registry, "bench").await?;
    ensure!(ran >= 1, "no job ran");
    Ok(started.elapsed().as_secs_f64())
}

async fn scenarios(server: &Server, args: &Args) -> anyhow::Result<()> {
    let seen: Shared = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let router = axum::Router::new()
        .route("/translate", axum::routing::post(translate))
        .with_state(seen.clone());
    let provider_task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let provider = Provider::new(ProviderKind::LibreTranslate, url, None, None, Duration::from_secs(30))?;
    server.state.app.set_translation_provider(Some(provider));

    let (admin_id, token, org_id) = server.admin_and_org("Translations").await?;
    let client = http_client(&token)?;
    let base = format!("{}/v1", server.base_url);
    let space: Value = post_json(
        &client,
        format!("{base}/orgs/{org_id}/spaces"),
        &json!({ "title": "Handbook" }),
    )
    .await?;
    let space_id = space["id"].as_str().context("space id")?.to_owned();
    let seeder = server.separate_state()?;
    let seeded = seed_pages(&seeder, &space_id, args.pages, &admin_id, |i| {
        (format!("Page {i:05}"), page_markdown(i))
    })
    .await?;
    let translation: Value = post_json(
        &client,
        format!("{base}/orgs/{org_id}/translations"),
        &json!({ "language": "fr", "source": { "space": space_id, "language": "en" } }),
    )
    .await?;
    let id = translation["id"].as_str().context("translation id")?.to_owned();
    let run_url = format!("{base}/orgs/{org_id}/translations/{id}/run");

    post_json(&client, &run_url, &json!(null)).await?;
    let first = run_job(server).await?;
    let (requests, texts, busy) = {
        let mut seen = seen.lock().map_err(|_| anyhow::anyhow!("lock"))?;
        let taken = (seen.requests, seen.texts, seen.busy.as_secs_f64());
        *seen = Seen::default();
        taken
    };
    let done: Value = get_json(&client, format!("{base}/orgs/{org_id}/translations/{id}")).await?;
    ensure!(done["status"] == "completed", "the run did not complete: {done}");
    ensure!(
        done["stats"]["latestPages"] == seeded.pages,
        "not every page was translated: {done}"
    );

    // One source page changes; the re-run translates it alone.
    let page_id = seeded.deepest.first().context("a page")?;
    let cr: Value = post_json(
        &client,
        format!("{base}/spaces/{space_id}/change-requests"),
        &json!({ "subject": "one edit" }),
    )
    .await?;
    let cr_id = cr["id"].as_str().context("change request id")?;
    post_json(
        &client,
        format!("{base}/spaces/{space_id}/change-requests/{cr_id}/content?compat=false"),
        &json!({ "changes": [{
            "operation": "update_page",
            "page": page_id,
            "document": { "markdown": "An edited page with **new** words.\n" }
        }] }),
    )
    .await?;
    post_json(
        &client,
        format!("{base}/spaces/{space_id}/change-requests/{cr_id}/merge"),
        &json!(null),
    )
    .await?;
    post_json(&client, &run_url, &json!(null)).await?;
    let again = run_job(server).await?;
    let again_requests = seen.lock().map_err(|_| anyhow::anyhow!("lock"))?.requests;
    let rerun: Value = get_json(&client, format!("{base}/orgs/{org_id}/translations/{id}")).await?;
    ensure!(
        rerun["stats"]["latestPages"] == 1,
        "the re-run translated more than the changed page: {rerun}"
    );

    let pages = seeded.pages as f64;
    println!(
        "\n{} pages, {} texts in {} provider requests, on {}\n",
        seeded.pages, texts, requests, server.backend
    );
    println!("| | seconds | ms per page |\n|---|---:|---:|");
    println!(
        "| first run (every page) | {first:.2} | {:.2} |",
        first * 1000.0 / pages
    );
    println!(
        "| of which the provider answering | {busy:.3} | {:.3} |",
        busy * 1000.0 / pages
    );
    println!(
        "| **Quire's overhead** (the rest) | {:.2} | **{:.2}** |",
        first - busy,
        (first - busy) * 1000.0 / pages
    );
    println!("| re-run after one page changed ({again_requests} request) | {again:.2} | |");
    provider_task.abort();
    Ok(())
}
