//! A space's history (`GET /spaces/{spaceId}/revisions`, Quire's addition):
//! its main line newest first, paged, filtered to one page; and a page
//! restored from an old revision through a change request.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

async fn history(app: &TestApp, user: &TestUser, space: &str, query: &str) -> Value {
    let answer = reqwest::Client::new()
        .get(format!("{}/v1/spaces/{space}/revisions{query}", app.base_url))
        .bearer_auth(&user.token)
        .send()
        .await
        .expect("GET revisions");
    assert_eq!(answer.status(), 200);
    answer.json().await.expect("JSON")
}

both_backends! {
    async fn the_history_lists_revisions_and_a_page_is_restored(app: TestApp) {
        let writer = app.user("Writer").await;
        let org = app.org(&writer, "Docs").await;
        let space = app.space(&writer, &org, "Guide", None).await;
        let ids = app
            .publish(&writer, &space, json!([
                { "operation": "insert_page", "ref": "a", "title": "Alpha", "document": { "markdown": "First." } },
                { "operation": "insert_page", "ref": "b", "title": "Beta", "document": { "markdown": "Other." } }
            ]))
            .await;
        let (a, b) = (ids["a"].as_str().expect("a").to_owned(), ids["b"].as_str().expect("b").to_owned());
        for text in ["Second.", "Third."] {
            app.publish(&writer, &space, json!([{ "operation": "update_page", "page": a, "document": { "markdown": text } }])).await;
        }
        app.publish(&writer, &space, json!([{ "operation": "update_page", "page": b, "document": { "markdown": "Changed." } }])).await;

        let all = history(&app, &writer, &space, "").await;
        let items = all["items"].as_array().expect("items");
        assert_eq!(items.len(), 5, "four merges and the first revision: {all}");
        assert_eq!(items[0]["type"], "merge");
        assert_eq!(items[0]["author"]["id"], writer.id.as_str());
        assert!(items[0]["author"].get("email").is_none(), "authors show their public profile");
        assert!(all["next"].is_null());
        let current = app.get(&writer, &format!("/v1/spaces/{space}")).await;
        assert_eq!(items[0]["id"], current.body["revision"]);

        let first_two = history(&app, &writer, &space, "?limit=2").await;
        assert_eq!(first_two["items"].as_array().map(Vec::len), Some(2));
        let cursor = first_two["next"]["page"].as_str().expect("a cursor").to_owned();
        let rest = history(&app, &writer, &space, &format!("?limit=10&page={cursor}")).await;
        assert_eq!(rest["items"].as_array().map(Vec::len), Some(3));
        assert_eq!(rest["items"][0]["id"], items[2]["id"]);

        let alpha = history(&app, &writer, &space, &format!("?pageId={a}")).await;
        let alpha_items = alpha["items"].as_array().expect("items");
        assert_eq!(alpha_items.len(), 3, "Alpha was inserted and changed twice: {alpha}");

        // Alpha restored to its first text, through a change request.
        let first = alpha_items[2]["id"].as_str().expect("a revision").to_owned();
        let cr = app.change_request(&writer, &space, "Restore Alpha").await;
        app.write(&writer, &space, &cr, json!([{ "operation": "revert_page", "page": a, "revision": first }]))
            .await
            .assert_status(200);
        app.post(&writer, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null))
            .await
            .assert_status(200);
        assert!(app.markdown(&writer, &space, &a).await.contains("First."));
        assert!(app.markdown(&writer, &space, &b).await.contains("Changed."), "the rest stays");

        // Strangers see no history; an unknown cursor is not found.
        let stranger = app.user("Stranger").await;
        let answer = reqwest::Client::new()
            .get(format!("{}/v1/spaces/{space}/revisions", app.base_url))
            .bearer_auth(&stranger.token)
            .send()
            .await
            .expect("GET revisions");
        assert_eq!(answer.status(), 404);
        let answer = reqwest::Client::new()
            .get(format!("{}/v1/spaces/{space}/revisions?page=nope", app.base_url))
            .bearer_auth(&writer.token)
            .send()
            .await
            .expect("GET revisions");
        assert_eq!(answer.status(), 404);
    }
}
