//! OpenAPI specs over HTTP: sources served by a local HTTP server, the
//! processing job, versions, errors and visibility.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::get;
use serde_json::json;

use crate::support::both_backends;

pub const PETS: &str = "openapi: 3.0.3\ninfo:\n  title: Pets\n  version: 1.0.0\npaths:\n  /pets:\n    get:\n      summary: List pets\n      parameters:\n        - name: limit\n          in: query\n          schema: { type: integer }\n      responses:\n        \"200\":\n          description: The pets\n          content:\n            application/json:\n              schema:\n                type: array\n                items: { $ref: \"#/components/schemas/Pet\" }\ncomponents:\n  schemas:\n    Pet:\n      type: object\n      required: [name]\n      properties:\n        name: { type: string }\n        age: { type: integer, format: int32 }\n";

/// A server answering `/spec.yaml` with what the returned cell holds,
/// `/slow.yaml` after 15 s and `/broken.yaml` with YAML that does not parse.
pub async fn spec_server() -> (String, Arc<Mutex<String>>, tokio::task::JoinHandle<()>) {
    let body = Arc::new(Mutex::new(PETS.to_owned()));
    let router = axum::Router::new()
        .route(
            "/spec.yaml",
            get(|State(body): State<Arc<Mutex<String>>>| async move { body.lock().unwrap().clone() }),
        )
        .route(
            "/slow.yaml",
            get(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(15)).await;
                PETS
            }),
        )
        .route("/broken.yaml", get(|| async { "openapi: 3.0.3\ninfo: [unclosed\n" }))
        .with_state(body.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (base, body, task)
}

both_backends! {
    async fn specs_are_fetched_versioned_and_refreshed(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let (base, body, _server) = spec_server().await;
        let path = format!("/v1/orgs/{org}/openapi");
        let created = app.post(&ada, &path, json!({ "slug": "pets", "source": { "url": format!("{base}/spec.yaml") } })).await;
        created.assert_status(201);
        assert_eq!(created.body["processingState"], "pending");
        assert_eq!(created.body["visibility"], "private");
        app.run_due_jobs().await;
        let spec = app.get(&ada, &format!("{path}/pets")).await;
        assert_eq!(spec.body["processingState"], "complete");
        let first = spec.body["lastVersion"].as_str().unwrap().to_owned();
        let content = app.get(&ada, &format!("{path}/pets/versions/latest/content")).await;
        assert_eq!(content.body["filesystem"]["openapi.yaml"]["info"]["title"], "Pets");
        let raw = app.get(&ada, &format!("{path}/pets/versions/latest/content/raw")).await;
        assert_eq!(raw.body["text"], PETS);
        assert_eq!(raw.body["format"], "yaml");

        // The same document again: no new version; a changed one: a new one.
        app.clock.advance_millis(1000);
        app.put(&ada, &format!("{path}/pets"), json!({ "source": { "url": format!("{base}/spec.yaml") } })).await.assert_status(200);
        app.run_due_jobs().await;
        assert_eq!(app.get(&ada, &format!("{path}/pets/versions")).await.items().len(), 1);
        *body.lock().unwrap() = PETS.replace("List pets", "List every pet");
        app.clock.advance_millis(1000);
        app.put(&ada, &format!("{path}/pets"), json!({ "source": { "url": format!("{base}/spec.yaml") } })).await.assert_status(200);
        app.run_due_jobs().await;
        let versions = app.get(&ada, &format!("{path}/pets/versions")).await;
        assert_eq!(versions.items().len(), 2);
        assert_ne!(versions.items()[0]["id"], first.as_str(), "newest first");
        let old = app.get(&ada, &format!("{path}/pets/versions/{first}/content")).await;
        assert_eq!(old.body["filesystem"]["openapi.yaml"]["paths"]["/pets"]["get"]["summary"], "List pets");

        // A document given as text; PUT creates a missing spec.
        let text = app.put(&ada, &format!("{path}/inline"), json!({ "source": { "text": PETS.replace("Pets", "Inline") } })).await;
        text.assert_status(201);
        app.run_due_jobs().await;
        let listed = app.get(&ada, &path).await;
        let slugs: Vec<&str> = listed.items().iter().map(|s| s["slug"].as_str().unwrap()).collect();
        assert_eq!(slugs, ["inline", "pets"]);

        // Visibility, delete, bad input.
        let public = app.patch(&ada, &format!("{path}/pets"), json!({ "visibility": "public" })).await;
        assert!(public.body["urls"]["published"].as_str().unwrap().contains("/~openapi/"));
        for bad in [
            json!({ "slug": "Bad slug", "source": { "url": "https://x.example/a.yaml" } }),
            json!({ "slug": "ok", "source": {} }),
            json!({ "slug": "ok", "source": { "url": "ftp://x.example/a.yaml" } }),
            json!({ "slug": "ok", "source": { "url": "https://x.example/a", "text": "x" } }),
            json!({ "slug": "pets", "source": { "text": PETS } }),
        ] {
            let res = app.post(&ada, &path, bad.clone()).await;
            assert!(res.status == 400 || res.status == 409, "{bad}: {}", res.status);
        }
        app.patch(&ada, &format!("{path}/pets"), json!({ "visibility": "secret" })).await.assert_status(400);
        app.delete(&ada, &format!("{path}/inline")).await.assert_status(204);
        app.delete(&ada, &format!("{path}/inline")).await.assert_status(204);
        app.get(&ada, &format!("{path}/inline")).await.assert_status(404);
        // Readers see specs but may not change them.
        let bea = app.user("Bea").await;
        app.add_member(&ada, &org, &bea, json!("read")).await;
        assert_eq!(app.get(&bea, &format!("{path}/pets")).await.body["permissions"]["edit"], false);
        app.patch(&bea, &format!("{path}/pets"), json!({ "visibility": "private" })).await.assert_status(403);
    }

    async fn processing_errors_are_reported_and_keep_versions(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let (base, _body, _server) = spec_server().await;
        let path = format!("/v1/orgs/{org}/openapi");
        for (slug, url, code) in [
            ("broken", format!("{base}/broken.yaml"), "PARSE_ERROR"),
            ("missing", format!("{base}/nowhere.yaml"), "FETCH_ERROR"),
            ("unreachable", "http://127.0.0.1:9/spec.yaml".to_owned(), "FETCH_ERROR"),
            ("slow", format!("{base}/slow.yaml"), "FETCH_TIMEOUT"),
        ] {
            app.post(&ada, &path, json!({ "slug": slug, "source": { "url": url } })).await.assert_status(201);
            app.run_due_jobs().await;
            let spec = app.get(&ada, &format!("{path}/{slug}")).await;
            assert_eq!(spec.body["processingState"], "complete", "{slug}");
            assert_eq!(spec.body["lastProcessErrorCode"], code, "{slug}: {}", spec.body);
            assert!(spec.body.get("lastVersion").is_none());
            app.get(&ada, &format!("{path}/{slug}/versions/latest")).await.assert_status(404);
        }
        // A good version stays when the source breaks later.
        app.put(&ada, &format!("{path}/broken"), json!({ "source": { "text": PETS } })).await.assert_status(200);
        app.run_due_jobs().await;
        let good = app.get(&ada, &format!("{path}/broken")).await.body["lastVersion"].clone();
        assert!(good.is_string());
        app.put(&ada, &format!("{path}/broken"), json!({ "source": { "url": format!("{base}/broken.yaml") } })).await.assert_status(200);
        app.run_due_jobs().await;
        let spec = app.get(&ada, &format!("{path}/broken")).await;
        assert_eq!(spec.body["lastProcessErrorCode"], "PARSE_ERROR");
        assert_eq!(spec.body["lastVersion"], good);
    }
}

both_backends! {
    async fn pages_embed_operations_and_public_specs_are_readable(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let path = format!("/v1/orgs/{org}/openapi");
        app.post(&ada, &path, json!({ "slug": "pets", "source": { "text": PETS } })).await.assert_status(201);
        app.run_due_jobs().await;
        let space = app.space(&ada, &org, "API", None).await;
        app.publish(&ada, &space, json!([
            { "operation": "insert_page", "title": "Pets", "document": { "markdown": "# Pets\n\n{% openapi-operation spec=\"pets\" path=\"/pets\" method=\"get\" %}\n\n{% openapi-operation spec=\"pets\" path=\"/nope\" method=\"get\" %}\n" } }
        ])).await;
        let site = app.post(&ada, &format!("/v1/orgs/{org}/sites"), json!({ "title": "Reference", "spaces": [space] })).await;
        app.post(&ada, &format!("/v1/orgs/{org}/sites/{}/publish", site.id()), json!(null)).await.assert_status(200);
        let client = reqwest::Client::new();
        let fetch = |url: String| {
            let client = client.clone();
            async move {
                let res = client.get(url).send().await.unwrap();
                (res.status().as_u16(), res.text().await.unwrap())
            }
        };
        let (status, page) = fetch(format!("{}/reference/", app.base_url)).await;
        assert_eq!(status, 200);
        assert!(page.contains("<span class=\"method method-get\">GET</span> <code>/pets</code>"), "{page}");
        assert!(page.contains("<strong>List pets</strong>"));
        assert!(page.contains("<code>limit</code>") && page.contains("integer"), "parameters: {page}");
        assert!(page.contains("<code>array of Pet</code>"), "{page}");
        assert!(page.contains("<code>name</code> <span class=\"required\">required</span>"), "schemas with their nesting: {page}");
        assert!(page.contains("<code>integer (int32)</code>"));
        assert!(page.contains("OpenAPI operation not found"), "a missing operation is marked");
        // A new version of the spec shows on the page.
        app.clock.advance_millis(1000);
        app.put(&ada, &format!("{path}/pets"), json!({ "source": { "text": PETS.replace("List pets", "List every pet") } })).await.assert_status(200);
        app.run_due_jobs().await;
        let (_, page) = fetch(format!("{}/reference/", app.base_url)).await;
        assert!(page.contains("<strong>List every pet</strong>"), "{page}");

        // Public specs are readable without a token; private ones are not.
        let public = format!("{}/~openapi/{org}/pets", app.base_url);
        assert_eq!(fetch(public.clone()).await.0, 404);
        assert_eq!(fetch(format!("{public}/raw")).await.0, 404);
        let spec = app.patch(&ada, &format!("{path}/pets"), json!({ "visibility": "public" })).await;
        assert_eq!(spec.body["urls"]["published"], public.as_str());
        let (status, reference) = fetch(public.clone()).await;
        assert_eq!(status, 200);
        assert!(reference.contains("<h1>Pets</h1>") && reference.contains("List every pet"), "{reference}");
        let (status, raw) = fetch(format!("{public}/raw")).await;
        assert_eq!((status, raw), (200, PETS.replace("List pets", "List every pet")));
    }
}
