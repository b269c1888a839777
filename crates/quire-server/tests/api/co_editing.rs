//! Real-time co-editing in real browsers (`web/tests/collab.mjs`, Debian's
//! Chromium): two people edit one page of a change request at once, on one
//! node and (PostgreSQL) on two nodes of one deployment; one of them goes
//! offline and comes back; an API edit made meanwhile reaches both
//! editors; what the server saved is everything everyone typed. Also the
//! sockets' refusals, in the official error shape.

use std::process::Command;

use serde_json::json;

use crate::official_client::run_node;
use crate::support::{Backend, TestApp, both_backends};

/// A page to edit together in a change request of a space Ada and Grace
/// both edit: (space, change request id, its number, page id).
async fn a_page_to_share(app: &TestApp) -> (String, String, String, String, crate::support::TestUser) {
    let ada = app.user("Ada Lovelace").await;
    let grace = app.user("Grace Hopper").await;
    let org = app.org(&ada, "Docs").await;
    app.add_member(&ada, &org, &grace, json!("edit")).await;
    let space = app.space(&ada, &org, "Guide", None).await;
    let cr = app.change_request(&ada, &space, "Write together").await;
    let res = app
        .post(
            &ada,
            &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
            json!({ "changes": [
                { "operation": "insert_page", "ref": "start", "title": "Start", "document": { "markdown": "# Start\n\nThe first paragraph.\n" } }
            ] }),
        )
        .await;
    res.assert_status(200);
    let page = res.body["changes"][0]["page"]["id"]
        .as_str()
        .expect("page id")
        .to_owned();
    let number = app
        .get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}"))
        .await
        .body["number"]
        .to_string();
    (space, cr, number, page, ada)
}

async fn two_browsers_write_one_page(backend: Backend, two_nodes: bool) {
    let app = TestApp::start(backend).await;
    let (space, cr, number, page, ada) = a_page_to_share(&app).await;
    let second = if two_nodes { Some(app.second_node().await) } else { None };
    let (url_b, app_b) = match &second {
        Some(node) => (node.base_url.clone(), &node.state.app),
        None => (app.base_url.clone(), &app.state.app),
    };
    let link_a =
        quire_sign_in::links::sign_in_link_for_cli(&app.state.app, &app.base_url, "ada.lovelace@example.com", None)
            .await
            .expect("Ada's link");
    let link_b = quire_sign_in::links::sign_in_link_for_cli(app_b, &url_b, "grace.hopper@example.com", None)
        .await
        .expect("Grace's link");
    let name = match (backend, two_nodes) {
        (Backend::Sqlite, _) => "sqlite",
        (Backend::Postgres, false) => "postgres",
        (Backend::Postgres, true) => "postgres-two-nodes",
    };
    let artifacts = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../target/browser-artifacts/co-editing/{name}"));
    let mut node = Command::new("node");
    node.arg("tests/collab.mjs")
        .current_dir(crate::web_app::web_dir())
        .env("QUIRE_URL_A", &app.base_url)
        .env("QUIRE_URL_B", &url_b)
        .env("QUIRE_LINK_A", &link_a.url)
        .env("QUIRE_LINK_B", &link_b.url)
        .env(
            "QUIRE_EDIT_PATH",
            format!("/s/{space}/change-requests/{number}/edit/{page}"),
        )
        .env("QUIRE_API_PATH", format!("/v1/spaces/{space}/change-requests/{cr}"))
        .env("QUIRE_PAGE", &page)
        .env("QUIRE_TOKEN", &ada.token)
        .env("ARTIFACTS", &artifacts);
    let out = run_node(node, "the co-editing browser test").await;
    assert!(out.contains("ok   what the server saved holds every edit"), "{out}");
    // The saved page, read back through the API, holds everyone's words.
    let res = app
        .get(
            &ada,
            &format!("/v1/spaces/{space}/change-requests/{cr}/content/page/{page}?format=markdown"),
        )
        .await;
    let markdown = res.body["markdown"].as_str().expect("markdown");
    for words in [
        "Ada writes",
        "Grace writes",
        "written offline",
        "written online",
        "From the API",
    ] {
        assert!(markdown.contains(words), "{words:?} in:\n{markdown}");
    }
}

/// `GET path` (Quire's additions are not in the official spec the test
/// client checks answers against): the status and the error's message.
async fn get(app: &TestApp, token: Option<&str>, path: &str) -> (u16, String) {
    let mut request = reqwest::Client::new().get(format!("{}{path}", app.base_url));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let res = request.send().await.expect("request");
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.expect("a JSON answer");
    assert_eq!(body["error"]["code"], status, "the official error shape: {body}");
    (status, body["error"]["message"].as_str().unwrap_or_default().to_owned())
}

both_backends! {
    async fn the_sockets_refuse_what_they_cannot_take(app: TestApp) {
        let (space, cr, _, page, ada) = a_page_to_share(&app).await;
        let path = format!("/v1/spaces/{space}/change-requests/{cr}/pages/{page}/collaboration");
        // Not a WebSocket upgrade.
        let (status, message) = get(&app, Some(&ada.token), &path).await;
        assert_eq!(status, 400);
        assert!(message.contains("WebSocket"), "{message}");
        // Nobody signed in.
        assert_eq!(get(&app, None, &path).await.0, 401);
        // Someone without access to the space.
        let stranger = app.user("Stranger").await;
        assert!(matches!(get(&app, Some(&stranger.token), &path).await.0, 403 | 404));
        assert!(matches!(get(&app, Some(&stranger.token), &format!("/v1/spaces/{space}/presence")).await.0, 403 | 404));
        // A page the change request does not have.
        let missing = format!("/v1/spaces/{space}/change-requests/{cr}/pages/nope/collaboration");
        assert_eq!(get(&app, Some(&ada.token), &missing).await.0, 404);
    }
}

mod two_browsers_write_one_page {
    use crate::support::Backend;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::two_browsers_write_one_page(Backend::Sqlite, false).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::two_browsers_write_one_page(Backend::Postgres, false).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres_two_nodes() {
        super::two_browsers_write_one_page(Backend::Postgres, true).await
    }
}
