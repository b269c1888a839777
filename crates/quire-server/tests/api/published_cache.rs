//! Answers kept in memory. Published pages (`quire-sites/src/serve/cache.rs`):
//! an `ETag` and `304`, gzip and brotli, and every change that affects a
//! page seen at once. API reads (`quire-http/src/reads.rs`): kept for the
//! same credentials only, and every write seen at once. On PostgreSQL, a
//! merge on one node seen on another node's published page and API, and a
//! token revoked on one node refused by the other, at once (each polled
//! with a deadline, the time printed).

use std::io::Read as _;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::published_sites::docs_site;
use crate::support::{Backend, TestApp, TestUser, both_backends};

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    bytes: Vec<u8>,
}

impl Answer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
    }
}

/// `GET base + path` with `headers`, as a browser that decodes nothing.
async fn fetch(base: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let mut request = client.get(format!("{base}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("an answer");
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        bytes: response.bytes().await.expect("a body").to_vec(),
    }
}

/// The id of the page titled `title` in the space titled `space`.
async fn page_in(app: &TestApp, ada: &TestUser, org: &str, space: &str, title: &str) -> (String, String) {
    let spaces = app.get(ada, &format!("/v1/orgs/{org}/spaces")).await;
    let space = spaces
        .items()
        .iter()
        .find(|s| s["title"] == space)
        .and_then(|s| s["id"].as_str())
        .expect("the space")
        .to_owned();
    let content = app.get(ada, &format!("/v1/spaces/{space}/content")).await;
    fn find(pages: &[Value], title: &str) -> Option<String> {
        pages.iter().find_map(|p| {
            if p["title"] == title {
                p["id"].as_str().map(str::to_owned)
            } else {
                find(p["pages"].as_array().map(Vec::as_slice).unwrap_or_default(), title)
            }
        })
    }
    let page = find(content.body["pages"].as_array().expect("pages"), title).expect("the page");
    (space, page)
}

/// Polls `check` every 2 ms until it holds (at most 10 s); the time it took.
async fn until<F, Fut>(what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < Duration::from_secs(10), "{what}: not within 10 s");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    started.elapsed()
}

both_backends! {
    async fn published_answers_are_kept_until_something_changes(app: TestApp) {
        let (ada, org, site) = docs_site(&app, "public").await;
        let first = fetch(&app.base_url, "/docs/setup", &[]).await;
        assert_eq!(first.status, 200);
        let etag = first.header("etag").to_owned();
        assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
        assert!(first.header("vary").contains("Accept-Encoding"));
        assert!(first.text().contains("Configuration lives in one file."));

        // The client holds it: 304 without a body; a stale tag gets the page.
        let held = fetch(&app.base_url, "/docs/setup", &[("if-none-match", &etag)]).await;
        assert_eq!(held.status, 304);
        assert!(held.bytes.is_empty());
        assert_eq!(held.header("etag"), etag);
        let stale = fetch(&app.base_url, "/docs/setup", &[("if-none-match", "\"0000\"")]).await;
        assert_eq!(stale.status, 200);

        // Compressed for clients that accept it, the same bytes once decoded.
        let br = fetch(&app.base_url, "/docs/setup", &[("accept-encoding", "gzip, br")]).await;
        assert_eq!(br.header("content-encoding"), "br");
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&br.bytes[..], 4096).read_to_end(&mut decoded).expect("brotli");
        assert_eq!(decoded, first.bytes);
        assert!(br.bytes.len() < first.bytes.len());
        let gz = fetch(&app.base_url, "/docs/setup", &[("accept-encoding", "gzip")]).await;
        assert_eq!(gz.header("content-encoding"), "gzip");
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&gz.bytes[..]).read_to_end(&mut decoded).expect("gzip");
        assert_eq!(decoded, first.bytes);
        let refused = fetch(&app.base_url, "/docs/setup", &[("accept-encoding", "br;q=0, identity")]).await;
        assert_eq!(refused.header("content-encoding"), "");
        assert_eq!(refused.bytes, first.bytes);
        // The security headers are on kept answers too.
        assert!(br.header("content-security-policy").contains("frame-ancestors"));

        // A merge changes the page at once.
        let (guide, setup) = page_in(&app, &ada, &org, "Guide", "Setup").await;
        app.publish(&ada, &guide, json!([{ "operation": "update_page", "page": setup, "document": { "markdown": "# Setup\n\nConfiguration lives in two files.\n" } }])).await;
        let merged = fetch(&app.base_url, "/docs/setup", &[("if-none-match", &etag)]).await;
        assert_eq!(merged.status, 200, "the old tag no longer matches");
        assert!(merged.text().contains("Configuration lives in two files."));

        // The look changes at once.
        let mut look = app.get(&ada, &format!("{site}/customization")).await.body;
        look.as_object_mut().expect("settings").remove("updatedAt");
        look["title"] = json!("Acme Handbook");
        app.put(&ada, &format!("{site}/customization"), look).await.assert_status(200);
        assert!(fetch(&app.base_url, "/docs/setup", &[]).await.text().contains("Acme Handbook"));

        // A space's own settings (its title in the navigation) at once.
        app.patch(&ada, &format!("/v1/spaces/{guide}"), json!({ "title": "Handbook guide" })).await.assert_status(200);
        let renamed = fetch(&app.base_url, "/docs/setup", &[]).await;
        assert!(renamed.text().contains("Handbook guide"), "{}", renamed.text());

        // Unpublished: gone at once, and so is what was kept.
        app.post(&ada, &format!("{site}/unpublish"), json!(null)).await.assert_status(200);
        assert_eq!(fetch(&app.base_url, "/docs/setup", &[]).await.status, 404);
        app.post(&ada, &format!("{site}/publish"), json!(null)).await.assert_status(200);
        assert_eq!(fetch(&app.base_url, "/docs/setup", &[]).await.status, 200);
    }
}

both_backends! {
    async fn a_visitors_kept_page_lives_no_longer_than_their_token(app: TestApp) {
        let (ada, _org, site) = docs_site(&app, "visitor-auth").await;
        let key = app.get(&ada, &format!("{site}/publishing/auth")).await.body["privateKey"]
            .as_str()
            .expect("a key")
            .to_owned();
        let now = app.state.app.now().0 / 1000;
        let token = quire_sites::visitor::sign(&json!({ "exp": now + 60 }), &key);
        let cookie = format!("quire_visitor={token}");
        for _ in 0..2 {
            let page = fetch(&app.base_url, "/docs/setup", &[("cookie", &cookie)]).await;
            assert_eq!(page.status, 200);
        }
        // Another visitor without the cookie is not given the kept page.
        assert_eq!(fetch(&app.base_url, "/docs/setup", &[]).await.status, 401);
        app.clock.advance_millis(120_000);
        let expired = fetch(&app.base_url, "/docs/setup", &[("cookie", &cookie)]).await;
        assert_ne!(expired.status, 200, "a kept page outlived its visitor's token");
    }
}

both_backends! {
    async fn api_reads_are_kept_for_one_caller_until_something_changes(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Handbook", None).await;
        let path = format!("/v1/spaces/{space}");
        let first = app.get(&ada, &path).await;
        first.assert_status(200);
        assert_eq!(app.get(&ada, &path).await.body, first.body);
        // Another caller is never given Ada's answer.
        let refused = app.get(&bob, &path).await;
        assert!(matches!(refused.status, 403 | 404), "{}", refused.status);
        // A write is seen by the next read, by the writer and by others.
        app.patch(&ada, &path, json!({ "title": "Guide" })).await.assert_status(200);
        assert_eq!(app.get(&ada, &path).await.body["title"], "Guide");
        app.add_member(&ada, &org, &bob, json!("read")).await;
        assert_eq!(app.get(&bob, &path).await.body["title"], "Guide");
        // A merge is seen in the content.
        let before = app.get(&ada, &format!("{path}/content")).await;
        assert!(before.body["pages"].as_array().is_some_and(Vec::is_empty));
        app.publish(&ada, &space, json!([{ "operation": "insert_page", "title": "Start", "document": { "markdown": "Hi.\n" } }])).await;
        assert_eq!(app.outline(&ada, &format!("{path}/content")).await, ["Start"]);
        // A revoked token is not answered from memory.
        let (_, tokens) = quire_app::accounts::tokens_of_email(&app.state.app, &bob.email).await.expect("tokens");
        quire_app::accounts::revoke_token_of_email(&app.state.app, &bob.email, &tokens[0].id).await.expect("revoked");
        assert_eq!(app.get(&bob, &path).await.status, 401);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_node_sees_merges_and_revocations_at_once() {
    let app = TestApp::start(Backend::Postgres).await;
    let (ada, org, _site) = docs_site(&app, "public").await;
    let node = app.second_node().await;
    let other = node.base_url.clone();
    // The other node keeps the page and trusts Ada's token.
    assert!(fetch(&other, "/docs/setup", &[]).await.text().contains("one file"));
    assert!(fetch(&other, "/docs/setup", &[]).await.text().contains("one file"));
    let as_ada = || {
        let other = other.clone();
        let token = ada.token.clone();
        async move {
            reqwest::Client::new()
                .get(format!("{other}/v1/user"))
                .bearer_auth(token)
                .send()
                .await
                .expect("an answer")
                .status()
                .as_u16()
        }
    };
    assert_eq!(as_ada().await, 200);

    // A merge through this node reaches the other node's page and API.
    let (guide, setup) = page_in(&app, &ada, &org, "Guide", "Setup").await;
    let space_revision = || {
        let url = format!("{other}/v1/spaces/{guide}");
        let token = ada.token.clone();
        async move {
            let answer: Value = reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("an answer")
                .json()
                .await
                .expect("JSON");
            answer["revision"].clone()
        }
    };
    let before = space_revision().await;
    assert!(before.is_string(), "{before}");
    assert_eq!(space_revision().await, before, "kept, and still right");
    app.publish(&ada, &guide, json!([{ "operation": "update_page", "page": setup, "document": { "markdown": "# Setup\n\nConfiguration lives in two files.\n" } }])).await;
    let merged = until("the merge on the other node", || {
        let other = other.clone();
        async move { fetch(&other, "/docs/setup", &[]).await.text().contains("two files") }
    })
    .await;
    println!(
        "a merge on one node was on the other node's published page after {} ms",
        merged.as_millis()
    );
    let read = until("the merge in the other node's API", || {
        let revision = space_revision();
        let before = before.clone();
        async move { revision.await != before }
    })
    .await;
    println!("and in its API (GET /v1/spaces/{{id}}) after {} ms", read.as_millis());

    // A token revoked on this node is refused by the other.
    let (_, tokens) = quire_app::accounts::tokens_of_email(&app.state.app, &ada.email)
        .await
        .expect("tokens");
    quire_app::accounts::revoke_token_of_email(&app.state.app, &ada.email, &tokens[0].id)
        .await
        .expect("revoked");
    let refused = until("the revocation on the other node", || {
        let check = as_ada();
        async move { check.await == 401 }
    })
    .await;
    println!(
        "a token revoked on one node was refused by the other after {} ms",
        refused.as_millis()
    );
}
