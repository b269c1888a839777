//! Translations over HTTP, against local servers speaking the providers'
//! protocols (LibreTranslate and OpenAI-compatible chat completions).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use quire_adapters::translate::{Provider, ProviderKind};
use serde_json::{Value, json};

use crate::git_sync::{outline, page_titled};
use crate::support::{TestApp, TestUser, both_backends};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAACklEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg==";

/// What the fake provider saw and how it behaves.
#[derive(Default)]
pub(crate) struct Provided {
    /// Every batch of texts received, with the system prompt (OpenAI).
    batches: Vec<(Vec<String>, String)>,
    /// Requests to fail with HTTP 500 before answering.
    fail_next: usize,
    /// Texts containing this are refused every time.
    poison: Option<String>,
    /// A delay before answering.
    delay: Option<Duration>,
}

pub(crate) type Shared = Arc<Mutex<Provided>>;

/// "Translates" to French by prefixing every text.
fn french(text: &str) -> String {
    format!("FR {text}")
}

async fn answer(shared: &Shared, texts: Vec<String>, system: String) -> Result<Vec<String>, axum::http::StatusCode> {
    let delay = shared.lock().unwrap().delay;
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    let mut seen = shared.lock().unwrap();
    seen.batches.push((texts.clone(), system));
    if seen.fail_next > 0 {
        seen.fail_next -= 1;
        return Err(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    }
    if let Some(poison) = &seen.poison
        && texts.iter().any(|t| t.contains(poison.as_str()))
    {
        return Err(axum::http::StatusCode::BAD_REQUEST);
    }
    Ok(texts.iter().map(|t| french(t)).collect())
}

/// A provider on 127.0.0.1 speaking `kind`'s protocol.
pub(crate) async fn provider(kind: ProviderKind) -> (Provider, Shared, tokio::task::JoinHandle<()>) {
    let shared: Shared = Arc::default();
    let router = axum::Router::new()
        .route(
            "/translate",
            post(|State(shared): State<Shared>, Json(body): Json<Value>| async move {
                let texts: Vec<String> = serde_json::from_value(body["q"].clone()).unwrap_or_default();
                answer(&shared, texts, String::new())
                    .await
                    .map(|done| Json(json!({ "translatedText": done })))
            }),
        )
        .route(
            "/v1/chat/completions",
            post(|State(shared): State<Shared>, Json(body): Json<Value>| async move {
                let system = body["messages"][0]["content"].as_str().unwrap_or_default().to_owned();
                let texts: Vec<String> =
                    serde_json::from_str(body["messages"][1]["content"].as_str().unwrap_or("[]")).unwrap_or_default();
                answer(&shared, texts, system).await.map(|done| {
                    let content = format!("```json\n{}\n```", serde_json::to_string(&done).unwrap());
                    Json(json!({ "choices": [{ "message": { "role": "assistant", "content": content } }] }))
                })
            }),
        )
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let url = match kind {
        ProviderKind::LibreTranslate => base,
        ProviderKind::OpenAi => format!("{base}/v1"),
    };
    let provider = Provider::new(
        kind,
        url,
        Some("provider-key".into()),
        Some("local-model".into()),
        Duration::from_secs(2),
    )
    .unwrap();
    (provider, shared, task)
}

const GUIDE: &str = "# Install\n\nRun the `quire` binary, then open [the docs](https://docs.example.com/start).\n\n```bash\nquire serve --listen 127.0.0.1:8080\n```\n\n![Logo](./logo)\n";

/// A space of three pages (one nested) and an image; its id and the org.
async fn source_space(app: &TestApp, ada: &TestUser) -> (String, String) {
    let org = app.org(ada, "Acme").await;
    let space = app.space(ada, &org, "Handbook", None).await;
    app.publish(ada, &space, json!([
        { "operation": "insert_files", "files": [{ "name": "logo.png", "ref": "logo", "contentType": "image/png", "base64": PNG }] },
        { "operation": "insert_page", "ref": "guide", "title": "Guide", "description": "How to start", "document": { "markdown": GUIDE } },
        { "operation": "insert_page", "into": "guide", "title": "Details", "document": { "markdown": "Some details.\n" } },
        { "operation": "insert_page", "title": "Reference", "document": { "markdown": "Every option.\n" } }
    ])).await;
    (space, org)
}

async fn run(app: &TestApp, user: &TestUser, org: &str, id: &str) -> (String, Value, Option<String>) {
    app.clock.advance_millis(1000);
    app.post(user, &format!("/v1/orgs/{org}/translations/{id}/run"), json!(null))
        .await
        .assert_status(204);
    app.run_due_jobs().await;
    app.latest_job("translation-run").await
}

both_backends! {
    async fn a_space_is_translated_and_rerun_incrementally(app: TestApp) {
        let ada = app.user("Ada").await;
        let (space, org) = source_space(&app, &ada).await;
        let base = format!("/v1/orgs/{org}/translations");
        let created = app.post(&ada, &base, json!({ "language": "fr", "source": { "space": space, "language": "en" } })).await;
        created.assert_status(201);
        assert_eq!(created.body["status"], "pending");
        let id = created.id();
        // Without a provider: managed, not run.
        let refused = app.post(&ada, &format!("{base}/{id}/run"), json!(null)).await;
        refused.assert_status(400);
        assert!(refused.message().contains("QUIRE_TRANSLATION_URL"), "{}", refused.body);

        let (provider, seen, _server) = provider(ProviderKind::LibreTranslate).await;
        app.state.app.set_translation_provider(Some(provider));
        let (state, result, error) = run(&app, &ada, &org, &id).await;
        assert_eq!(state, "done", "{error:?}");
        let translation = app.get(&ada, &format!("{base}/{id}")).await;
        assert_eq!(translation.body["status"], "completed");
        assert_eq!(translation.body["stats"]["runs"], 1);
        assert_eq!(translation.body["stats"]["totalPages"], 3);
        assert_eq!(translation.body["stats"]["latestPages"], 3);
        assert!(translation.body["stats"]["totalWords"].as_i64().unwrap() > 10);
        let result_space = translation.body["result"]["space"].as_str().unwrap().to_owned();
        assert_eq!(translation.body["result"]["revision"], result["revision"]);
        // Only prose was sent.
        let sent: Vec<String> = seen.lock().unwrap().batches.iter().flat_map(|(t, _)| t.clone()).collect();
        assert!(sent.contains(&"Guide".to_owned()) && sent.contains(&"How to start".to_owned()));
        assert!(sent.iter().all(|t| !t.contains("quire serve") && !t.contains("https://") && !t.contains("127.0.0.1")), "{sent:?}");

        let content = app.get(&ada, &format!("/v1/spaces/{result_space}/content")).await;
        let pages = content.body["pages"].as_array().unwrap().clone();
        assert_eq!(outline(&pages), ["FR Guide[FR Details]", "FR Reference"]);
        let guide = page_titled(&pages, "FR Guide");
        assert_eq!(guide["description"], "FR How to start");
        assert_eq!(guide["slug"], "guide", "slugs mirror the source");
        let markdown = app.markdown(&ada, &result_space, guide["id"].as_str().unwrap()).await;
        assert!(
            markdown.starts_with("# FR Install <a href=\"#install\" id=\"install\"></a>\n"),
            "a translated heading keeps the source's anchor, so links into it hold: {markdown}"
        );
        assert!(markdown.contains("FR Run the `quire` FR binary, then open"), "{markdown}");
        assert!(markdown.contains("](https://docs.example.com/start)"), "{markdown}");
        assert!(markdown.contains("```bash\nquire serve --listen 127.0.0.1:8080\n```"), "code stays byte for byte: {markdown}");
        let files = content.body["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "files mirror the source");
        assert!(markdown.contains(&format!("/files/{}", files[0]["id"].as_str().unwrap())), "{markdown}");

        // A re-run translates only what changed.
        let calls = seen.lock().unwrap().batches.len();
        let (state, _, _) = run(&app, &ada, &org, &id).await;
        assert_eq!(state, "done");
        assert_eq!(seen.lock().unwrap().batches.len(), calls, "nothing changed, nothing sent");
        let pages_now = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        let reference = page_titled(&pages_now, "Reference")["id"].as_str().unwrap().to_owned();
        app.publish(&ada, &space, json!([{ "operation": "update_page", "page": reference, "document": { "markdown": "Every option, explained.\n" } }])).await;
        run(&app, &ada, &org, &id).await;
        let last = seen.lock().unwrap().batches.last().unwrap().0.clone();
        assert!(last.contains(&"Every option, explained.".to_owned()) && !last.contains(&"Guide".to_owned()), "{last:?}");
        let translation = app.get(&ada, &format!("{base}/{id}")).await;
        assert_eq!(translation.body["stats"]["runs"], 3);
        assert_eq!(translation.body["stats"]["latestPages"], 1);
        assert_eq!(translation.body["result"]["space"], result_space.as_str(), "the result space is reused");
        app.state.app.set_translation_provider(None);
    }

    async fn provider_failures_retry_and_never_half_write(app: TestApp) {
        let ada = app.user("Ada").await;
        let (space, org) = source_space(&app, &ada).await;
        let base = format!("/v1/orgs/{org}/translations");
        app.put(&ada, &format!("/v1/orgs/{org}/translations-glossary"), json!({ "operations": [
            { "type": "insert", "translations": { "en": "binary", "fr": "exécutable" } }
        ] })).await.assert_status(204);
        let instructions = json!({ "object": "document", "data": {}, "nodes": [
            { "object": "block", "type": "paragraph", "nodes": [{ "object": "text", "leaves": [{ "object": "leaf", "text": "Use a formal tone.", "marks": [] }] }] }
        ] });
        let created = app
            .post(&ada, &base, json!({ "language": "fr", "source": { "space": space, "language": "en" }, "instructions": instructions }))
            .await;
        let id = created.id();
        let (provider, seen, _server) = provider(ProviderKind::OpenAi).await;
        app.state.app.set_translation_provider(Some(provider));
        // A failed request is retried.
        seen.lock().unwrap().fail_next = 1;
        let (state, _, error) = run(&app, &ada, &org, &id).await;
        assert_eq!(state, "done", "{error:?}");
        let system = seen.lock().unwrap().batches[0].1.clone();
        assert!(system.contains("\"binary\" → \"exécutable\""), "the glossary reaches the provider: {system}");
        assert!(system.contains("Use a formal tone."), "and the instructions: {system}");
        let done = app.get(&ada, &format!("{base}/{id}")).await;
        let revision = done.body["result"]["revision"].clone();
        assert!(revision.is_string());

        // A page that keeps failing fails the run, and nothing is written.
        let pages = app.get(&ada, &format!("/v1/spaces/{space}/content")).await.body["pages"].as_array().unwrap().clone();
        let reference = page_titled(&pages, "Reference")["id"].as_str().unwrap().to_owned();
        app.publish(&ada, &space, json!([{ "operation": "update_page", "page": reference, "document": { "markdown": "POISON text.\n" } }])).await;
        seen.lock().unwrap().poison = Some("POISON".into());
        let (state, _, error) = run(&app, &ada, &org, &id).await;
        assert_eq!(state, "queued", "the run is tried again later");
        assert!(error.unwrap().contains("Reference"));
        let after = app.get(&ada, &format!("{base}/{id}")).await;
        assert_eq!(after.body["result"]["revision"], revision, "no half-written revision");
        assert_eq!(after.body["status"], "completed");
        let result_space = after.body["result"]["space"].as_str().unwrap().to_owned();
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{result_space}")).await.body["revision"], revision);
        // A provider slower than its timeout is a failure too.
        seen.lock().unwrap().poison = None;
        seen.lock().unwrap().delay = Some(Duration::from_secs(3));
        let (state, _, error) = run(&app, &ada, &org, &id).await;
        assert_eq!(state, "queued");
        assert!(error.unwrap().contains("did not answer"));
        app.state.app.set_translation_provider(None);
    }

    async fn translations_and_the_glossary_are_managed(app: TestApp) {
        let ada = app.user("Ada").await;
        let (space, org) = source_space(&app, &ada).await;
        let base = format!("/v1/orgs/{org}/translations");
        for bad in [
            json!({ "language": "klingon", "source": { "space": space, "language": "en" } }),
            json!({ "language": "en", "source": { "space": space, "language": "en" } }),
            json!({ "language": "fr", "source": { "space": "nope", "language": "en" } }),
            json!({ "language": "fr", "source": { "space": space, "language": "en" }, "instructions": { "object": "document", "nodes": "x" } }),
        ] {
            let res = app.post(&ada, &base, bad.clone()).await;
            assert!(res.status == 400 || res.status == 404, "{bad}: {}", res.status);
        }
        let de = app.post(&ada, &base, json!({ "language": "de", "source": { "space": space, "language": "en" } })).await;
        let id = de.id();
        assert_eq!(app.get(&ada, &base).await.items().len(), 1);
        let instructions = json!({ "object": "document", "data": {}, "nodes": [] });
        let updated = app.put(&ada, &format!("{base}/{id}"), json!({ "instructions": instructions })).await;
        updated.assert_status(200);
        app.delete(&ada, &format!("{base}/{id}")).await.assert_status(204);
        app.delete(&ada, &format!("{base}/{id}")).await.assert_status(204);
        app.get(&ada, &format!("{base}/{id}")).await.assert_status(404);

        let glossary = format!("/v1/orgs/{org}/translations-glossary");
        app.put(&ada, &glossary, json!({ "operations": [
            { "type": "insert", "translations": { "en": "space", "fr": "espace" } },
            { "type": "insert", "translations": { "en": "page", "fr": "page" } }
        ] })).await.assert_status(204);
        let listed = app.get(&ada, &format!("{glossary}?orderBy=en")).await;
        let terms: Vec<&str> = listed.items().iter().map(|e| e["translations"]["en"].as_str().unwrap()).collect();
        assert_eq!(terms, ["page", "space"]);
        let entry = listed.items()[1]["id"].as_str().unwrap().to_owned();
        app.put(&ada, &glossary, json!({ "operations": [
            { "type": "update", "id": entry, "translations": { "en": "space", "fr": "espace de travail" } },
            { "type": "delete", "id": listed.items()[0]["id"] }
        ] })).await.assert_status(204);
        let one = app.get(&ada, &format!("{glossary}/{entry}")).await;
        assert_eq!(one.body["translations"]["fr"], "espace de travail");
        assert_eq!(app.get(&ada, &glossary).await.items().len(), 1);
        // All or nothing.
        let res = app.put(&ada, &glossary, json!({ "operations": [
            { "type": "insert", "translations": { "en": "ok" } },
            { "type": "insert", "translations": { "xx": "bad" } }
        ] })).await;
        res.assert_status(400);
        assert_eq!(app.get(&ada, &glossary).await.items().len(), 1);
        // Readers read, only the create role changes.
        let bea = app.user("Bea").await;
        app.add_member(&ada, &org, &bea, json!("read")).await;
        app.get(&bea, &glossary).await.assert_status(200);
        app.put(&bea, &glossary, json!({ "operations": [] })).await.assert_status(403);
        // Access is checked before the missing provider is reported.
        let fr = app.post(&ada, &base, json!({ "language": "fr", "source": { "space": space, "language": "en" } })).await.id();
        app.post(&bea, &format!("{base}/{fr}/run"), json!(null)).await.assert_status(403);
    }
}
