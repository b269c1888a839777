//! The `pdf` scenario group: a PDF of a 500-page space, made by the real
//! `quire` binary (a child process, as in `memory`), timed over HTTP, with
//! the server's resident memory sampled every 5 ms while it works and its
//! peak (`VmHWM`, reset before each request) read after.
//!
//! The space: `--pages` pages (default 500 here: fifty chapters of ten
//! pages), each the published-site corpus page (prose, inline code, a code
//! block, a table, a hint with a link), every tenth with a paragraph of
//! Chinese and Japanese, every fifth showing an SVG diagram of the space.

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use base64::Engine as _;
use serde_json::{Value, json};

use crate::memory::{rss_mib, start_quire, status_mib};
use crate::published::page_markdown;
use crate::{Args, post_json};

/// A diagram: boxes and arrows, about 1 KB.
fn diagram(i: usize) -> String {
    let mut svg =
        String::from("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"160\" viewBox=\"0 0 480 160\">");
    for b in 0..4 {
        let x = 10 + b * 120;
        svg.push_str(&format!(
            "<rect x=\"{x}\" y=\"50\" width=\"100\" height=\"60\" rx=\"8\" fill=\"#dbeafe\" stroke=\"#1d4ed8\"/>\
             <text x=\"{}\" y=\"85\" font-size=\"14\" text-anchor=\"middle\">Step {}</text>",
            x + 50,
            i * 4 + b
        ));
        if b < 3 {
            svg.push_str(&format!(
                "<line x1=\"{}\" y1=\"80\" x2=\"{}\" y2=\"80\" stroke=\"#1d4ed8\" stroke-width=\"2\"/>",
                x + 100,
                x + 120
            ));
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Resets the peak resident set the kernel keeps for the process.
fn reset_peak(pid: u32) -> anyhow::Result<()> {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").context("reset VmHWM (needs the same user)")
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let pages = if args.pages == 10_000 { 500 } else { args.pages };
    let quire = start_quire(&[]).await?;
    let pid = quire.pid();
    let base = quire.base.clone();
    let client = crate::http_client(&quire.token)?;
    let post = |path: String, body: Value| {
        let client = client.clone();
        async move { post_json(&client, path, &body).await }
    };
    let org = post(format!("{base}/v1/orgs"), json!({ "title": "PDF" })).await?;
    let org = org["id"].as_str().context("org id")?.to_owned();
    let space = post(format!("{base}/v1/orgs/{org}/spaces"), json!({ "title": "Handbook" })).await?;
    let space = space["id"].as_str().context("space id")?.to_owned();

    // Seed: files 20 to a change, pages 50 changes to a batch, chapters of
    // ten pages.
    let seeding = Instant::now();
    let cr = post(format!("{base}/v1/spaces/{space}/change-requests"), json!({})).await?;
    let cr = cr["id"].as_str().context("change request id")?.to_owned();
    let content = format!("{base}/v1/spaces/{space}/change-requests/{cr}/content?compat=false");
    let diagrams = pages.div_ceil(5);
    for first in (0..diagrams).step_by(20) {
        let files: Vec<Value> = (first..(first + 20).min(diagrams))
            .map(|i| {
                json!({
                    "name": format!("diagram-{i}.svg"),
                    "ref": format!("d{i}"),
                    "contentType": "image/svg+xml",
                    "base64": base64::engine::general_purpose::STANDARD.encode(diagram(i)),
                })
            })
            .collect();
        post(
            content.clone(),
            json!({ "changes": [{ "operation": "insert_files", "files": files }] }),
        )
        .await?;
    }
    let mut files: Vec<String> = Vec::new();
    let listed: Value = client
        .get(format!("{base}/v1/spaces/{space}/change-requests/{cr}/content"))
        .send()
        .await?
        .json()
        .await?;
    for file in listed["files"].as_array().into_iter().flatten() {
        if let (Some(id), Some(name)) = (file["id"].as_str(), file["name"].as_str()) {
            files.push(format!("{name}\u{0}{id}"));
        }
    }
    let file_id = |i: usize| {
        let name = format!("diagram-{i}.svg\u{0}");
        files
            .iter()
            .find(|f| f.starts_with(&name))
            .map(|f| f[name.len()..].to_owned())
    };
    let mut chapter_ids: Vec<String> = Vec::new();
    for first in (0..pages).step_by(50) {
        let mut changes = Vec::new();
        for i in first..(first + 50).min(pages) {
            let mut markdown = page_markdown(i);
            if i % 10 == 3 {
                markdown.push_str("\n多言語のドキュメント：中文文本和日本語のテキストが同じページにあります。\n");
            }
            if i % 5 == 0
                && let Some(id) = file_id(i / 5)
            {
                markdown.push_str(&format!("\n![How it flows](/files/{id})\n"));
            }
            let mut change = json!({
                "operation": "insert_page",
                "ref": format!("p{i}"),
                "title": format!("Page {i:03}"),
                "document": { "markdown": markdown }
            });
            if i % 10 != 0 {
                let chapter = i - i % 10;
                change["into"] = if chapter >= first {
                    json!(format!("p{chapter}"))
                } else {
                    json!(chapter_ids[chapter / 10])
                };
            }
            changes.push(change);
        }
        let done = post(content.clone(), json!({ "changes": changes })).await?;
        for change in done["changes"].as_array().into_iter().flatten() {
            if let Some(name) = change["ref"].as_str()
                && let Some(n) = name.strip_prefix('p').and_then(|n| n.parse::<usize>().ok())
                && n % 10 == 0
            {
                chapter_ids.push(change["page"]["id"].as_str().unwrap_or_default().to_owned());
            }
        }
    }
    post(
        format!("{base}/v1/spaces/{space}/change-requests/{cr}/merge"),
        json!(null),
    )
    .await?;
    println!(
        "seeded {pages} pages and {diagrams} SVG diagrams in {:.1} s",
        seeding.elapsed().as_secs_f64()
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let at_rest = rss_mib(pid)?;

    // One PDF request: time, peak memory, size.
    let pdf = |label: &'static str| {
        let client = client.clone();
        let url = format!("{base}/v1/spaces/{space}/pdf");
        async move {
            reset_peak(pid)?;
            let started = Instant::now();
            let asking = client.get(&url).send();
            tokio::pin!(asking);
            let mut sampled = 0f64;
            let res = loop {
                tokio::select! {
                    done = &mut asking => break done?,
                    () = tokio::time::sleep(Duration::from_millis(5)) => sampled = sampled.max(rss_mib(pid)?),
                }
            };
            let body: Value = res.json().await?;
            let seconds = started.elapsed().as_secs_f64();
            let link = body["url"].as_str().context("a url")?.to_owned();
            let bytes = reqwest::get(&link).await?.error_for_status()?.bytes().await?;
            ensure!(bytes.starts_with(b"%PDF-"), "not a PDF");
            // `VmHWM`: the peak resident set since the reset.
            let peak = status_mib(pid, "VmHWM")?.max(sampled);
            println!(
                "| {label} | {seconds:.2} | {peak:.0} | {:.1} |",
                bytes.len() as f64 / 1_048_576.0
            );
            anyhow::Ok(bytes)
        }
    };
    println!("\n{pages}-page space; the server at rest: {at_rest:.0} MiB\n");
    println!("| request | seconds | peak RSS (MiB) | PDF (MiB) |\n|---|---:|---:|---:|");
    let first = pdf("first PDF (fonts read, typeset, stored)").await?;
    pdf("the same revision again (cached)").await?;
    for round in 0..3 {
        let cr = post(format!("{base}/v1/spaces/{space}/change-requests"), json!({})).await?;
        let cr = cr["id"].as_str().context("change request id")?.to_owned();
        let page = chapter_ids.first().context("a chapter")?;
        post(
            format!("{base}/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
            json!({ "changes": [{ "operation": "update_page", "page": page, "document": { "markdown": format!("Edited, round {round}.\n") } }] }),
        )
        .await?;
        post(
            format!("{base}/v1/spaces/{space}/change-requests/{cr}/merge"),
            json!(null),
        )
        .await?;
        pdf("after one page changed (a new revision)").await?;
    }
    if let Ok(path) = std::env::var("QUIRE_BENCH_KEEP_PDF") {
        std::fs::write(&path, &first).with_context(|| format!("write {path}"))?;
    }
    drop(quire);
    Ok(())
}
