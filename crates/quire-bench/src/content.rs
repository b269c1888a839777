//! The `content` scenario group: editing, merging and listing the pages of
//! large spaces, one request at a time (latency, not throughput).
//!
//! Two spaces are seeded in one organization: one of `--pages` pages
//! (10,000 by default) and one a tenth of that size, each five levels deep
//! (a fan-out of about 6 per level for 10,000 pages) with about 2 KB of
//! markdown per page. Seeding goes through the content engine in-process:
//! one change request, batches of 50 `insert_page`, one merge. The seeding
//! engine is a second one over the same database, so the server's caches
//! are cold when the measurements start.
//!
//! Then, over HTTP with one client:
//! - `GET .../content/pages` of the large space: the first (cold) request,
//!   then 30 more;
//! - a one-page `update_page` batch on a random deepest-level page, 200
//!   times on one change request, in both spaces;
//! - a merge of a change request touching 10 pages, 20 times;
//! - the objects and revision rows 100 one-page edits add to the database.
//!
//! Last, the phases of those requests timed in-process (engine calls and
//! the page-list JSON), to show where their time goes.

use std::time::Instant;

use anyhow::{Context, ensure};
use quire_engine::{AppliedChange, Change, DocumentInput, PageFields};
use quire_server::AppState;
use quire_server::views::content::ContentContext;
use quire_store::spaces;
use serde_json::{Value, json};

use crate::{Args, Latencies, Server, http_client, micros_since};

/// Levels of the seeded page tree.
const DEPTH: usize = 5;
/// Changes per seeding batch (the engine's maximum).
const SEED_BATCH: usize = 50;
const EDITS: usize = 200;
const MERGES: usize = 20;
const PAGES_PER_MERGE: usize = 10;
const LIST_READS: usize = 30;
const STORAGE_EDITS: usize = 100;

pub async fn run(args: &Args) -> anyhow::Result<()> {
    let server = Server::start(args.database_url.as_deref()).await?;
    let result = bench(args, &server).await;
    server.stop().await;
    result
}

/// One row of the latency table.
struct Row {
    name: String,
    pages: usize,
    latencies: Latencies,
}

impl Row {
    fn new(name: impl Into<String>, pages: usize, micros: Vec<u32>) -> Row {
        let row = Row {
            name: name.into(),
            pages,
            latencies: Latencies::new(micros),
        };
        println!(
            "{} ({} pages): {} requests, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            row.name,
            row.pages,
            row.latencies.count(),
            row.latencies.quantile_ms(0.50),
            row.latencies.quantile_ms(0.99),
            row.latencies.max_ms()
        );
        row
    }
}

async fn bench(args: &Args, server: &Server) -> anyhow::Result<()> {
    let (admin_id, token, org_id) = server.admin_and_org("Bench Org").await?;
    let api = Api {
        client: http_client(&token)?,
        base: format!("{}/v1", server.base_url),
    };
    let seeder = server.separate_state()?;

    let mut seeded = Vec::new();
    for pages in [args.pages / 10, args.pages] {
        let space_id = api.create_space(&org_id, &format!("{pages} pages")).await?;
        let started = Instant::now();
        let space = seed_space(&seeder, &space_id, pages, &admin_id).await?;
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "seeded {pages} pages ({} at level {DEPTH}) into {space_id} on {} in {seconds:.1} s",
            space.deepest.len(),
            server.backend
        );
        seeded.push((space, seconds));
    }
    server.analyze().await?;
    let (small, large) = (&seeded[0].0, &seeded[1].0);
    let mut rows = Vec::new();
    let mut rng = XorShift(0x5eed_1234_abcd_ef01);

    // c. The page list, first while the server's caches are cold.
    let list = format!("{}/spaces/{}/content/pages", api.base, large.id);
    // Timed until the last byte arrives; parsed (to check it) afterwards.
    let sent = Instant::now();
    let body = api.get(&list).await.context("cold page list")?;
    rows.push(Row::new(
        "GET .../content/pages (first, cold)",
        large.pages,
        vec![micros_since(sent)],
    ));
    let count = count_pages(&body).context("parse the page list")?;
    ensure!(
        count == large.pages,
        "the page list has {count} pages, expected {}",
        large.pages
    );
    println!("the page list of {count} pages is {} bytes", body.len());
    let mut micros = Vec::with_capacity(LIST_READS);
    for _ in 0..LIST_READS {
        let sent = Instant::now();
        api.get(&list).await.context("page list")?;
        micros.push(micros_since(sent));
    }
    rows.push(Row::new("GET .../content/pages (warm)", large.pages, micros));

    // a. One-page update batches on one change request, in both spaces.
    for space in [small, large] {
        let cr = api.create_change_request(&space.id, "edits").await?;
        // Untimed warm-up: loads the space's snapshot into the server's cache.
        for n in 0..3 {
            let page = rng.pick(&space.deepest);
            api.update_pages(&space.id, &cr, &[(page, page_markdown(page, n + 1))])
                .await?;
        }
        let mut micros = Vec::with_capacity(EDITS);
        for n in 0..EDITS {
            let page = rng.pick(&space.deepest);
            let change = [(page, page_markdown(page, n + 10))];
            let sent = Instant::now();
            api.update_pages(&space.id, &cr, &change).await?;
            micros.push(micros_since(sent));
        }
        rows.push(Row::new("POST .../content (1 update_page)", space.pages, micros));
    }

    // b. Merges of change requests touching 10 pages each.
    let mut batch_micros = Vec::with_capacity(MERGES);
    let mut merge_micros = Vec::with_capacity(MERGES);
    for n in 0..MERGES {
        let cr = api.create_change_request(&large.id, &format!("merge {n}")).await?;
        let mut changes: Vec<(&str, String)> = Vec::with_capacity(PAGES_PER_MERGE);
        while changes.len() < PAGES_PER_MERGE {
            let page = rng.pick(&large.deepest);
            if changes.iter().all(|(p, _)| *p != page) {
                changes.push((page, page_markdown(page, 1000 + n)));
            }
        }
        let sent = Instant::now();
        api.update_pages(&large.id, &cr, &changes).await?;
        batch_micros.push(micros_since(sent));
        let sent = Instant::now();
        api.merge(&large.id, &cr).await?;
        merge_micros.push(micros_since(sent));
    }
    rows.push(Row::new("POST .../content (10 update_page)", large.pages, batch_micros));
    rows.push(Row::new("POST .../merge (10 pages changed)", large.pages, merge_micros));

    // d. Storage growth per one-page edit, on one change request, then its merge.
    let before = stored(server).await?;
    let cr = api.create_change_request(&large.id, "storage").await?;
    for n in 0..STORAGE_EDITS {
        let page = rng.pick(&large.deepest);
        api.update_pages(&large.id, &cr, &[(page, page_markdown(page, 2000 + n))])
            .await?;
    }
    let edited = stored(server).await?;
    api.merge(&large.id, &cr).await?;
    let merged = stored(server).await?;

    println!();
    println!(
        "{}, one client, spaces of {} and {} pages ({DEPTH} levels, ~2 KB of markdown per page):",
        server.backend, small.pages, large.pages
    );
    println!();
    println!("| scenario | pages | requests | p50 ms | p99 ms | max ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    for row in &rows {
        println!(
            "| `{}` | {} | {} | {:.2} | {:.2} | {:.2} |",
            row.name,
            row.pages,
            row.latencies.count(),
            row.latencies.quantile_ms(0.50),
            row.latencies.quantile_ms(0.99),
            row.latencies.max_ms()
        );
    }
    println!();
    println!("| storage ({} pages) | object bytes | revision rows |", large.pages);
    println!("|---|---:|---:|");
    println!(
        "| per one-page edit ({STORAGE_EDITS} edits on one change request) | {:.0} | {:.2} |",
        (edited.0 - before.0) as f64 / STORAGE_EDITS as f64,
        (edited.1 - before.1) as f64 / STORAGE_EDITS as f64
    );
    println!(
        "| merging those {STORAGE_EDITS} edits (once) | {} | {} |",
        merged.0 - edited.0,
        merged.1 - edited.1
    );
    println!();
    phases(server, small, large, &admin_id).await?;
    println!();
    for (space, seconds) in &seeded {
        println!("Seeding {} pages through the engine took {seconds:.1} s.", space.pages);
    }
    Ok(())
}

/// `(bytes of every content object, revision rows)` in the database.
async fn stored(server: &Server) -> anyhow::Result<(i64, i64)> {
    let mut conn = server.db.read().await?;
    let bytes = quire_store::content::object_bytes(&mut conn)
        .await
        .context("sum the object bytes")?;
    let revisions: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM revisions")
        .fetch_one(&mut *conn)
        .await
        .context("count the revisions")?;
    Ok((bytes, revisions))
}

/// A seeded space.
pub(crate) struct SeededSpace {
    pub(crate) id: String,
    pub(crate) pages: usize,
    /// Ids of the pages at the deepest level.
    pub(crate) deepest: Vec<String>,
}

/// Pages per level of a tree of `total` pages and `DEPTH` levels with the
/// same fan-out at every level (the last level takes the rounding).
fn level_sizes(total: usize) -> Vec<usize> {
    let sum = |f: f64| (1..=DEPTH).map(|k| f.powi(k as i32)).sum::<f64>();
    let (mut low, mut high) = (1.0_f64, total as f64);
    for _ in 0..100 {
        let mid = (low + high) / 2.0;
        if sum(mid) < total as f64 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let mut sizes: Vec<usize> = (1..DEPTH)
        .map(|k| (low.powi(k as i32).round() as usize).max(1))
        .collect();
    let above: usize = sizes.iter().sum();
    sizes.push(total.saturating_sub(above).max(1));
    sizes
}

/// For each page in breadth-first order, the index of its parent (`None`
/// at the top level): the pages of one level are spread evenly over the
/// pages of the level above.
fn tree_shape(total: usize) -> (Vec<Option<usize>>, std::ops::Range<usize>) {
    let sizes = level_sizes(total);
    let mut parents = Vec::with_capacity(total);
    let mut level_start = 0;
    let mut previous: Option<(usize, usize)> = None; // (start, size) of the level above
    for &size in &sizes {
        for j in 0..size {
            parents.push(previous.map(|(start, above)| start + j * above / size));
        }
        previous = Some((level_start, size));
        level_start += size;
    }
    let last = sizes.last().copied().unwrap_or(0);
    (parents, level_start - last..level_start)
}

/// About 2 KB of markdown; `version` changes one line, as an edit would.
fn page_markdown(page: &str, version: usize) -> String {
    let mut text = format!("# Page {page}\n\n");
    for line in 0..24 {
        if line == 12 {
            text.push_str(&format!("This paragraph was last edited in version {version}.\n\n"));
        } else {
            text.push_str(&format!(
                "Line {line:02} of {page}: the quick brown fox jumps over the lazy dog, twice.\n\n"
            ));
        }
    }
    text
}

/// Seeds `total` pages into the space through `seeder`'s engine: one change
/// request, batches of inserts (children may name a parent inserted in the
/// same batch by its `ref`), one merge.
async fn seed_space(seeder: &AppState, space_id: &str, total: usize, user_id: &str) -> anyhow::Result<SeededSpace> {
    seed_pages(seeder, space_id, total, user_id, |i| {
        (format!("Page {i:05}"), page_markdown(&format!("{i:05}"), 0))
    })
    .await
}

/// Seeds `total` pages, titled and written by `page(i)`, into the space
/// through `seeder`'s engine (see [`seed_space`]).
pub(crate) async fn seed_pages(
    seeder: &AppState,
    space_id: &str,
    total: usize,
    user_id: &str,
    page: impl Fn(usize) -> (String, String),
) -> anyhow::Result<SeededSpace> {
    let engine = &seeder.app.engine;
    let space = {
        let mut conn = seeder.app.db.read().await?;
        spaces::get_any(&mut conn, space_id)
            .await
            .context("load the space to seed")?
    };
    let (parents, deepest) = tree_shape(total);
    let mut ids: Vec<String> = vec![String::new(); total];
    let mut cr = engine
        .change_requests
        .open(&space, "seed", user_id)
        .await
        .context("open the seeding change request")?;
    let mut last_report = Instant::now();
    for first in (0..total).step_by(SEED_BATCH) {
        let end = (first + SEED_BATCH).min(total);
        let changes = (first..end)
            .map(|i| {
                let (title, markdown) = page(i);
                Change::InsertPage {
                    fields: PageFields {
                        title: Some(title),
                        ..PageFields::default()
                    },
                    into: parents[i].map(|p| if p >= first { format!("p{p}") } else { ids[p].clone() }),
                    at: None,
                    reference: Some(format!("p{i}")),
                    document: DocumentInput::Markdown { markdown },
                }
            })
            .collect();
        let (next, applied) = engine
            .edits
            .apply(&space, &cr, changes, user_id)
            .await
            .with_context(|| format!("seed pages {first}..{end}"))?;
        for change in applied {
            if let AppliedChange::Created {
                page,
                reference: Some(name),
            } = change
            {
                let i: usize = name[1..]
                    .parse()
                    .with_context(|| format!("a seeded page came back with ref {name:?}"))?;
                ids[i] = page;
            }
        }
        cr = next;
        if last_report.elapsed().as_secs() >= 10 {
            println!("  seeded {end} of {total} pages");
            last_report = Instant::now();
        }
    }
    ensure!(ids.iter().all(|id| !id.is_empty()), "some seeded pages have no id");
    engine
        .merges
        .merge(&space, &cr, user_id)
        .await
        .context("merge the seeding change request")?;
    Ok(SeededSpace {
        id: space.id,
        pages: total,
        deepest: ids[deepest].to_vec(),
    })
}

/// The few API calls the scenarios make, each failing with the answer's
/// body when it is not a success.
struct Api {
    client: reqwest::Client,
    /// `http://host:port/v1`
    base: String,
}

impl Api {
    /// Sends the request and returns the body of a successful answer.
    async fn bytes(
        &self,
        what: &str,
        request: reqwest::RequestBuilder,
    ) -> anyhow::Result<impl std::ops::Deref<Target = [u8]> + use<>> {
        let res = request.send().await.with_context(|| format!("{what}: send"))?;
        let status = res.status();
        let body = res.bytes().await.with_context(|| format!("{what}: read the answer"))?;
        ensure!(
            status.is_success(),
            "{what}: {status}: {}",
            String::from_utf8_lossy(&body)
        );
        Ok(body)
    }

    async fn send(&self, what: &str, request: reqwest::RequestBuilder) -> anyhow::Result<Value> {
        let body = self.bytes(what, request).await?;
        serde_json::from_slice(&body).with_context(|| format!("{what}: parse the answer"))
    }

    /// GET `url`, unparsed.
    async fn get(&self, url: &str) -> anyhow::Result<impl std::ops::Deref<Target = [u8]> + use<>> {
        self.bytes(&format!("GET {url}"), self.client.get(url)).await
    }

    async fn create_space(&self, org_id: &str, title: &str) -> anyhow::Result<String> {
        let url = format!("{}/orgs/{org_id}/spaces", self.base);
        let space = self
            .send("create a space", self.client.post(url).json(&json!({ "title": title })))
            .await?;
        Ok(space["id"].as_str().context("the new space has no id")?.to_owned())
    }

    async fn create_change_request(&self, space_id: &str, subject: &str) -> anyhow::Result<String> {
        let url = format!("{}/spaces/{space_id}/change-requests", self.base);
        let cr = self
            .send(
                "open a change request",
                self.client.post(url).json(&json!({ "subject": subject })),
            )
            .await?;
        Ok(cr["id"]
            .as_str()
            .context("the new change request has no id")?
            .to_owned())
    }

    /// One batch of `update_page` changes, each replacing a page's document.
    async fn update_pages(&self, space_id: &str, cr: &str, pages: &[(&str, String)]) -> anyhow::Result<()> {
        let changes: Vec<Value> = pages
            .iter()
            .map(|(page, markdown)| {
                json!({ "operation": "update_page", "page": page, "document": { "markdown": markdown } })
            })
            .collect();
        let url = format!("{}/spaces/{space_id}/change-requests/{cr}/content", self.base);
        self.send(
            "update pages",
            self.client.post(url).json(&json!({ "changes": changes })),
        )
        .await?;
        Ok(())
    }

    async fn merge(&self, space_id: &str, cr: &str) -> anyhow::Result<()> {
        let url = format!("{}/spaces/{space_id}/change-requests/{cr}/merge", self.base);
        self.send("merge", self.client.post(url)).await?;
        Ok(())
    }
}

/// The number of pages in a page list answer, subpages included.
fn count_pages(body: &[u8]) -> anyhow::Result<usize> {
    fn count(pages: &Value) -> usize {
        pages
            .as_array()
            .map_or(0, |pages| pages.iter().map(|p| 1 + count(&p["pages"])).sum())
    }
    let body: Value = serde_json::from_slice(body)?;
    Ok(count(&body["pages"]))
}

/// A small deterministic generator for picking pages.
struct XorShift(u64);

impl XorShift {
    fn pick<'a>(&mut self, from: &'a [String]) -> &'a str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        &from[(self.0 % from.len() as u64) as usize]
    }
}

/// Median of `micros`, in milliseconds.
fn median_ms(micros: Vec<u32>) -> f64 {
    Latencies::new(micros).quantile_ms(0.5)
}

/// Times the phases behind the HTTP scenarios in-process and prints them
/// as a table (medians; one sample for the cold load).
async fn phases(server: &Server, small: &SeededSpace, large: &SeededSpace, user_id: &str) -> anyhow::Result<()> {
    const RUNS: usize = 10;
    let mut rows: Vec<(String, f64)> = Vec::new();
    let load_space = |id: String| async move {
        let mut conn = server.db.read().await?;
        spaces::get_any(&mut conn, &id)
            .await
            .with_context(|| format!("load space {id}"))
    };

    // The page list: a cold snapshot load, then building and serializing the JSON.
    let cold = server.separate_state()?;
    let space = load_space(large.id.clone()).await?;
    let sent = Instant::now();
    let snapshot = cold
        .app
        .engine
        .revisions
        .snapshot(&space.id, &space.revision_id)
        .await
        .context("load the snapshot")?;
    rows.push((
        format!("Revisions::snapshot, cold ({} pages)", large.pages),
        f64::from(micros_since(sent)) / 1000.0,
    ));
    let ctx = ContentContext {
        state: &server.state,
        space_id: &space.id,
    };
    let (mut build, mut encode, mut copy) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let sent = Instant::now();
        let pages = json!({ "pages": ctx.pages(&snapshot) });
        build.push(micros_since(sent));
        let sent = Instant::now();
        let body = serde_json::to_vec(&pages).context("serialize the page list")?;
        encode.push(micros_since(sent));
        std::hint::black_box(body);
        let sent = Instant::now();
        std::hint::black_box((*snapshot).clone());
        copy.push(micros_since(sent));
    }
    rows.push((
        format!(
            "ContentContext::pages, page list as JSON values ({} pages)",
            large.pages
        ),
        median_ms(build),
    ));
    rows.push((
        format!("serde_json::to_vec of the page list ({} pages)", large.pages),
        median_ms(encode),
    ));
    rows.push((
        format!(
            "Snapshot::clone, the copy every edit starts from ({} pages)",
            large.pages
        ),
        median_ms(copy),
    ));

    // One-page edits and a 10-page merge through the server's (warm) engine.
    let engine = &server.state.app.engine;
    let mut rng = XorShift(0xfeed_5678_9abc_def1);
    for seeded in [small, large] {
        let space = load_space(seeded.id.clone()).await?;
        let mut cr = engine
            .change_requests
            .open(&space, "phases", user_id)
            .await
            .context("open a change request")?;
        let mut micros = Vec::with_capacity(RUNS);
        for n in 0..RUNS + 1 {
            let page = rng.pick(&seeded.deepest).to_owned();
            let change = update_change(&page, page_markdown(&page, 3000 + n));
            let sent = Instant::now();
            cr = engine
                .edits
                .apply(&space, &cr, vec![change], user_id)
                .await
                .context("apply a one-page edit")?
                .0;
            // The first edit loads the change request's snapshot.
            if n > 0 {
                micros.push(micros_since(sent));
            }
        }
        rows.push((
            format!("Edits::apply, 1 update_page ({} pages)", seeded.pages),
            median_ms(micros),
        ));
    }
    let mut micros = Vec::with_capacity(RUNS / 2);
    for n in 0..RUNS / 2 {
        let space = load_space(large.id.clone()).await?;
        let cr = engine
            .change_requests
            .open(&space, "phases merge", user_id)
            .await
            .context("open a change request")?;
        let changes = (0..PAGES_PER_MERGE)
            .map(|i| {
                let page = &large.deepest[(n * PAGES_PER_MERGE + i) * 7 % large.deepest.len()];
                update_change(page, page_markdown(page, 4000 + n))
            })
            .collect();
        let (cr, _) = engine
            .edits
            .apply(&space, &cr, changes, user_id)
            .await
            .context("apply a 10-page edit")?;
        let sent = Instant::now();
        engine
            .merges
            .merge(&space, &cr, user_id)
            .await
            .context("merge a 10-page change request")?;
        micros.push(micros_since(sent));
    }
    rows.push((
        format!("Merges::merge, 10 pages ({} pages)", large.pages),
        median_ms(micros),
    ));

    println!(
        "{}, phases timed in-process (median of {RUNS}; merges of {}; the cold load once):",
        server.backend,
        RUNS / 2
    );
    println!();
    println!("| phase | ms |");
    println!("|---|---:|");
    for (name, ms) in rows {
        println!("| {name} | {ms:.2} |");
    }
    Ok(())
}

/// An `update_page` replacing the page's document.
fn update_change(page: &str, markdown: String) -> Change {
    Change::UpdatePage {
        page: page.to_owned(),
        fields: PageFields::default(),
        document: Some(DocumentInput::Markdown { markdown }),
        into: None,
        at: None,
    }
}
