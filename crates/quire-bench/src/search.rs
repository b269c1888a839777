//! The `search` scenario group: full-text search over a large corpus, one
//! request at a time.
//!
//! Corpus: one space of `--pages` pages (10,000 by default) of about 2 KB
//! each, every tenth page with Chinese or Japanese sentences, words drawn
//! from a 3,000-word vocabulary with a skewed (Zipf-like) frequency, a few
//! code identifiers; and a second organization of 100 spaces of 100 pages
//! each. Seeding goes through the content engine (the merge indexes every
//! page in its transaction).
//!
//! Measured over HTTP with one client: space search for a mix of queries
//! (frequent and rare words, two words, a phrase, a prefix, CJK words, an
//! identifier, a miss), organization search across the 100 spaces, the
//! same queries through the published site's MCP server
//! (`searchDocumentation` at `{site}/~gitbook/mcp`, as an agent calls it); in
//! process: the raw index query the store runs for the same searches
//! (Quire's overhead is the ratio), a 10-page merge with its re-indexing,
//! and the index size against the size of the text.

use std::time::Instant;

use anyhow::{Context, ensure};
use quire_store::spaces;
use serde_json::{Value, json};

use crate::content::seed_pages;
use crate::{Args, Latencies, Server, http_client, micros_since};

const RUNS: usize = 40;

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Skewed towards small indexes, like word frequencies.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary() -> Vec<String> {
    let syllables = [
        "ka", "lo", "mi", "ren", "ta", "vo", "sil", "du", "pe", "ran", "to", "bel", "gi", "nor", "sha", "que",
    ];
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut words: Vec<String> = [
        "server",
        "configuration",
        "install",
        "deploy",
        "database",
        "request",
        "response",
        "token",
        "merge",
        "conflict",
        "space",
        "page",
        "search",
        "index",
        "running",
        "network",
    ]
    .iter()
    .map(|w| w.to_string())
    .collect();
    while words.len() < 3000 {
        let n = 2 + rng.below(3);
        let word: String = (0..n).map(|_| syllables[rng.below(syllables.len())]).collect();
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

const CJK_SENTENCES: [&str; 6] = [
    "私は東京に住んでいます。",
    "データベースの設定を変更してください。",
    "数据库的配置很重要。",
    "请先阅读安装指南。",
    "서울에서 만나요.",
    "検索エンジンの速度を測ります。",
];

/// A page of about 2 KB: headings every few paragraphs.
fn page(i: usize, words: &[String]) -> (String, String) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let title = format!(
        "{} {} {i}",
        capitalize(&words[rng.zipf(words.len())]),
        words[rng.zipf(words.len())]
    );
    let mut text = format!("# {title}\n\n");
    for paragraph in 0..12 {
        if paragraph % 4 == 3 {
            text.push_str(&format!("## {}\n\n", capitalize(&words[rng.zipf(words.len())])));
        }
        let mut line = String::new();
        for _ in 0..22 {
            line.push_str(&words[rng.zipf(words.len())]);
            line.push(' ');
        }
        if i.is_multiple_of(10) && paragraph == 5 {
            line.push_str(CJK_SENTENCES[i / 10 % CJK_SENTENCES.len()]);
        }
        if i % 50 == 7 && paragraph == 2 {
            line.push_str("call getSpaceById(id) first ");
        }
        text.push_str(line.trim_end());
        text.push_str(".\n\n");
    }
    (title, text)
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start(args.database_url.as_deref()).await?;
    let result = bench(args, &server).await;
    server.stop().await;
    result
}

async fn get(client: &reqwest::Client, url: &str) -> anyhow::Result<Value> {
    let res = client.get(url).send().await?;
    let status = res.status();
    let body: Value = res.json().await?;
    ensure!(status.is_success(), "GET {url}: {status}: {body}");
    Ok(body)
}

async fn bench(args: &Args, server: &Server) -> anyhow::Result<()> {
    let (admin_id, token, org_id) = server.admin_and_org("Search Org").await?;
    let client = http_client(&token)?;
    let base = format!("{}/v1", server.base_url);
    let seeder = server.separate_state()?;
    let words = vocabulary();

    // The large space.
    let space: Value = client
        .post(format!("{base}/orgs/{org_id}/spaces"))
        .json(&json!({ "title": "Corpus" }))
        .send()
        .await?
        .json()
        .await?;
    let space_id = space["id"].as_str().context("space id")?.to_owned();
    let text_bytes: usize = (0..args.pages).map(|i| page(i, &words).1.len()).sum();
    let started = Instant::now();
    let seeded = seed_pages(&seeder, &space_id, args.pages, &admin_id, |i| page(i, &words)).await?;
    println!(
        "seeded and indexed {} pages ({:.1} MB of markdown) in {:.1} s",
        args.pages,
        text_bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );

    // 100 spaces of 100 pages in a second organization.
    let org: Value = client
        .post(format!("{base}/orgs"))
        .json(&json!({ "title": "Many spaces" }))
        .send()
        .await?
        .json()
        .await?;
    let many = org["id"].as_str().context("org id")?.to_owned();
    let started = Instant::now();
    let per_space = (args.pages / 100).max(1);
    for s in 0..100 {
        let space: Value = client
            .post(format!("{base}/orgs/{many}/spaces"))
            .json(&json!({ "title": format!("Space {s}") }))
            .send()
            .await?
            .json()
            .await?;
        let id = space["id"].as_str().context("space id")?.to_owned();
        seed_pages(&seeder, &id, per_space, &admin_id, |i| page(s * per_space + i, &words)).await?;
    }
    println!(
        "seeded 100 spaces of {per_space} pages in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    server.analyze().await?;

    let queries: Vec<(&str, String)> = vec![
        ("frequent word", words[3].clone()),
        ("rare word", words[2900].clone()),
        ("two words", format!("{} {} ", words[0], words[40])),
        ("phrase", format!("\"{} {}\"", words[1], words[2])),
        ("prefix", words[1][..5].to_owned()),
        ("Japanese word", "東京".to_owned()),
        ("Chinese word", "数据".to_owned()),
        ("identifier", "getSpaceById".to_owned()),
        ("miss", "zzyzx".to_owned()),
    ];
    println!(
        "\n{}, space search ({} pages), one client, {RUNS} runs each:\n",
        server.backend, args.pages
    );
    println!("| query | results | p50 ms | p99 ms | raw index query p50 ms |");
    println!("|---|---:|---:|---:|---:|");
    let mut all = Vec::new();
    let mut raw_all = Vec::new();
    let space_row = {
        let mut conn = server.db.read().await?;
        spaces::get_any(&mut conn, &space_id).await?
    };
    for (name, query) in &queries {
        let url = format!(
            "{base}/spaces/{space_id}/search?query={}",
            quire_core::percent::encode_component(query)
        );
        let first = get(&client, &url).await?;
        let results = first["count"].as_i64().unwrap_or(0);
        let mut micros = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let sent = Instant::now();
            get(&client, &url).await?;
            micros.push(micros_since(sent));
        }
        let parsed = quire_search::parse_query(query);
        let mut raw = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let mut conn = server.db.read().await?;
            let sent = Instant::now();
            quire_store::search::query(&mut conn, std::slice::from_ref(&space_row.id), &parsed, 400).await?;
            raw.push(micros_since(sent));
        }
        all.extend(&micros);
        raw_all.extend(&raw);
        let (lat, raw) = (Latencies::new(micros), Latencies::new(raw));
        println!(
            "| {name} (`{query}`) | {results} | {:.2} | {:.2} | {:.2} |",
            lat.quantile_ms(0.5),
            lat.quantile_ms(0.99),
            raw.quantile_ms(0.5)
        );
    }
    let (all, raw_all) = (Latencies::new(all), Latencies::new(raw_all));
    println!(
        "| all queries | | {:.2} | {:.2} | {:.2} (search / raw: {:.1}x) |",
        all.quantile_ms(0.5),
        all.quantile_ms(0.99),
        raw_all.quantile_ms(0.5),
        all.quantile_ms(0.5) / raw_all.quantile_ms(0.5).max(0.001)
    );

    let mut org_micros = Vec::new();
    for (_, query) in &queries {
        let url = format!(
            "{base}/orgs/{many}/search?query={}",
            quire_core::percent::encode_component(query)
        );
        get(&client, &url).await?;
        for _ in 0..RUNS / 2 {
            let sent = Instant::now();
            get(&client, &url).await?;
            org_micros.push(micros_since(sent));
        }
    }
    let org = Latencies::new(org_micros);
    println!(
        "\norganization search across 100 spaces ({} pages): p50 {:.2} ms, p99 {:.2} ms ({} requests)",
        per_space * 100,
        org.quantile_ms(0.5),
        org.quantile_ms(0.99),
        org.count()
    );

    mcp_search(server, &client, &base, &org_id, &space_id, args.pages, &queries).await?;

    // A merge that changes 10 pages, with its re-indexing.
    let engine = &server.state.app.engine;
    let mut merge_micros = Vec::new();
    for n in 0..10 {
        let space = {
            let mut conn = server.db.read().await?;
            spaces::get_any(&mut conn, &space_id).await?
        };
        let cr = engine.change_requests.open(&space, "bench", &admin_id).await?;
        let changes = (0..10)
            .map(|k| {
                let page = &seeded.deepest[(n * 10 + k) * 13 % seeded.deepest.len()];
                quire_engine::Change::UpdatePage {
                    page: page.clone(),
                    fields: Default::default(),
                    document: Some(quire_engine::DocumentInput::Markdown {
                        markdown: page_text(n * 10 + k, &words),
                    }),
                    into: None,
                    at: None,
                }
            })
            .collect();
        let (cr, _) = engine.edits.apply(&space, &cr, changes, &admin_id).await?;
        let sent = Instant::now();
        engine.merges.merge(&space, &cr, &admin_id).await?;
        merge_micros.push(micros_since(sent));
    }
    let merges = Latencies::new(merge_micros);
    println!(
        "merge of 10 changed pages, re-indexing them in its transaction: p50 {:.2} ms, max {:.2} ms",
        merges.quantile_ms(0.5),
        merges.max_ms()
    );

    let index = {
        let mut conn = server.db.read().await?;
        quire_store::search::index_bytes(&mut conn).await?
    };
    let total_text = text_bytes + (0..per_space * 100).map(|i| page(i, &words).1.len()).sum::<usize>();
    println!(
        "index size: {:.1} MB for {:.1} MB of markdown ({:.2}x)",
        index as f64 / 1e6,
        total_text as f64 / 1e6,
        index as f64 / total_text as f64
    );
    Ok(())
}

/// The queries as an agent sends them to the published site's MCP server:
/// one `tools/call` of `searchDocumentation` per request, one client.
async fn mcp_search(
    server: &Server,
    client: &reqwest::Client,
    base: &str,
    org_id: &str,
    space_id: &str,
    pages: usize,
    queries: &[(&str, String)],
) -> anyhow::Result<()> {
    let site: Value = client
        .post(format!("{base}/orgs/{org_id}/sites"))
        .json(&json!({ "title": "Corpus", "spaces": [space_id] }))
        .send()
        .await?
        .json()
        .await?;
    let site_id = site["id"].as_str().context("site id")?;
    client
        .post(format!("{base}/orgs/{org_id}/sites/{site_id}/publish"))
        .send()
        .await?
        .error_for_status()?;
    let endpoint = format!("{}/corpus/~gitbook/mcp", server.base_url);
    let agent = reqwest::Client::new();
    let call = |query: &str| {
        agent
            .post(&endpoint)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(
                json!({
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": { "name": "searchDocumentation", "arguments": { "query": query } }
                })
                .to_string(),
            )
            .send()
    };
    println!(
        "
the same queries through the site's MCP server (`searchDocumentation`), one client, {RUNS} runs each:
"
    );
    println!("| query | answer bytes | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|");
    let mut all = Vec::new();
    for (name, query) in queries {
        let first = call(query).await?;
        ensure!(first.status().is_success(), "MCP search {query:?}: {}", first.status());
        let answer: Value = first.json().await?;
        ensure!(
            answer["result"]["isError"] != json!(true),
            "MCP search {query:?}: {answer}"
        );
        let bytes = answer.to_string().len();
        let mut micros = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let sent = Instant::now();
            call(query).await?.error_for_status()?.bytes().await?;
            micros.push(micros_since(sent));
        }
        all.extend(&micros);
        let lat = Latencies::new(micros);
        println!(
            "| {name} | {bytes} | {:.2} | {:.2} |",
            lat.quantile_ms(0.5),
            lat.quantile_ms(0.99)
        );
    }
    let all = Latencies::new(all);
    println!(
        "| all queries ({pages} pages) | | {:.2} | {:.2} |",
        all.quantile_ms(0.5),
        all.quantile_ms(0.99)
    );
    Ok(())
}

/// A new body for a page in the merge measurement.
fn page_text(n: usize, words: &[String]) -> String {
    page(1_000_000 + n, words).1
}
