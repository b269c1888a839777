//! The `sites` scenario group: a published page of a 10,000-page space.
//!
//! One space of `--pages` pages (five levels, ~2 KB of markdown each, the
//! `content` corpus) is seeded through the engine and shown by a public
//! site. Then, over HTTP:
//! - a deepest-level page rendered warm, one request at a time (latency);
//! - the same page at `--connections` connections for `--seconds`
//!   (throughput), against the same HTML bytes stored as a file of the space
//!   and served by the same server (`~files/{id}`, a static read);
//! - what a first visit transfers: the page's HTML with its inline CSS and
//!   script, raw and gzip-compressed (`gzip -9`).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, ensure};
use base64::Engine as _;
use serde_json::{Value, json};

use crate::content::seed_pages;
use crate::{Args, Latencies, Server, get_json, http_client, measure, micros_since, post_json, print_load_table};

pub(crate) fn page_markdown(i: usize) -> String {
    let mut text = format!("Page {i:05} explains one part of the product.\n\n## Overview\n\n");
    for line in 0..10 {
        text.push_str(&format!(
            "Line {line:02}: the quick brown fox jumps over the lazy dog, with `code` and **bold** words.\n\n"
        ));
    }
    text.push_str("## Example\n\n```bash\nquire serve --listen 127.0.0.1:8080 # start the server\n```\n\n");
    text.push_str("| Option | Meaning |\n|---|---|\n| `--listen` | address |\n| `--data` | directory |\n\n");
    text.push_str("{% hint style=\"info\" %}\nA hint with a [link](https://example.com).\n{% endhint %}\n");
    text
}

fn gzip_size(bytes: &[u8]) -> anyhow::Result<usize> {
    let mut child = Command::new("gzip")
        .arg("-9")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("run gzip")?;
    child.stdin.take().context("gzip stdin")?.write_all(bytes)?;
    let out = child.wait_with_output()?;
    ensure!(out.status.success(), "gzip failed");
    Ok(out.stdout.len())
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start(args.database_url.as_deref()).await?;
    let result = scenarios(&server, args).await;
    server.stop().await;
    result
}

async fn scenarios(server: &Server, args: &Args) -> anyhow::Result<()> {
    let (admin_id, token, org_id) = server.admin_and_org("Published").await?;
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
    let started = Instant::now();
    let seeded = seed_pages(&seeder, &space_id, args.pages, &admin_id, |i| {
        (format!("Page {i:05}"), page_markdown(i))
    })
    .await?;
    println!(
        "seeded {} pages into {} on {} in {:.1} s",
        seeded.pages,
        seeded.id,
        server.backend,
        started.elapsed().as_secs_f64()
    );
    server.analyze().await?;
    let site: Value = post_json(
        &client,
        format!("{base}/orgs/{org_id}/sites"),
        &json!({ "title": "Handbook", "spaces": [space_id] }),
    )
    .await?;
    let site_id = site["id"].as_str().context("site id")?;
    client
        .post(format!("{base}/orgs/{org_id}/sites/{site_id}/publish"))
        .send()
        .await?
        .error_for_status()?;

    // A deepest-level page, by its path.
    let page_id = seeded.deepest.get(seeded.deepest.len() / 2).context("a deep page")?;
    let page: Value = get_json(&client, format!("{base}/spaces/{space_id}/content/page/{page_id}")).await?;
    let path = page["path"].as_str().context("page path")?;
    let page_url = format!("{}/handbook/{path}", server.base_url);
    let html = reqwest::get(&page_url).await?.error_for_status()?.bytes().await?;
    ensure!(html.starts_with(b"<!doctype html>"), "the page is not HTML");

    // Warm render latency, one client.
    let plain = reqwest::Client::new();
    let mut micros = Vec::with_capacity(300);
    for _ in 0..300 {
        let sent = Instant::now();
        let res = plain.get(&page_url).send().await?.error_for_status()?;
        res.bytes().await?;
        micros.push(micros_since(sent));
    }
    let warm = Latencies::new(micros);
    println!(
        "\nwarm render of a depth-5 page ({} pages), one client, 300 requests: p50 {:.2} ms, p99 {:.2} ms",
        seeded.pages,
        warm.quantile_ms(0.5),
        warm.quantile_ms(0.99)
    );

    // The same bytes as a file of the space, served by the same server.
    let cr: Value = post_json(
        &client,
        format!("{base}/spaces/{space_id}/change-requests"),
        &json!({ "subject": "static copy" }),
    )
    .await?;
    let cr_id = cr["id"].as_str().context("change request id")?;
    let encoded = base64::engine::general_purpose::STANDARD.encode(&html);
    let written: Value = post_json(&client, format!("{base}/spaces/{space_id}/change-requests/{cr_id}/content?compat=false"), &json!({ "changes": [{ "operation": "insert_files", "files": [{ "name": "page.html", "contentType": "text/html", "base64": encoded }] }] })).await?;
    client
        .post(format!("{base}/spaces/{space_id}/change-requests/{cr_id}/merge"))
        .send()
        .await?
        .error_for_status()?;
    let files: Value = get_json(&client, format!("{base}/spaces/{space_id}/content/files")).await?;
    let file_id = files["items"][0]["id"].as_str().context("file id")?;
    let _ = written;
    let file_url = format!("{}/handbook/~files/{file_id}", server.base_url);

    let rendered = measure(
        "published page (rendered)",
        &page_url,
        &token,
        args.connections,
        args.seconds,
    )
    .await?;
    let stored = measure(
        "the same bytes as a file",
        &file_url,
        &token,
        args.connections,
        args.seconds,
    )
    .await?;
    let ratio = rendered.rps() / stored.rps().max(0.001);
    print_load_table(
        &format!("{} connections, {} s each", args.connections, args.seconds),
        &[rendered, stored],
    );
    println!("rendered / static: {ratio:.2}x");

    let gz = gzip_size(&html)?;
    println!(
        "\nfirst visit: {} bytes of HTML (CSS and script inline, no other request), {} bytes gzip -9",
        html.len(),
        gz
    );
    Ok(())
}
