//! Conflicting change requests settled by the writer: the conflicting pages
//! read with their three texts (`GET .../conflicts`, Quire's addition), then
//! an update that keeps a side or takes an edited text (`POST .../update`
//! with `resolutions`), after which the change request merges. A refused
//! resolution changes nothing.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

/// `GET .../conflicts` (outside the official contract, so not checked
/// against it).
async fn conflicts(app: &TestApp, user: &TestUser, space: &str, cr: &str) -> Vec<Value> {
    let answer = reqwest::Client::new()
        .get(format!(
            "{}/v1/spaces/{space}/change-requests/{cr}/conflicts",
            app.base_url
        ))
        .bearer_auth(&user.token)
        .send()
        .await
        .expect("GET conflicts");
    assert_eq!(answer.status(), 200);
    let body: Value = answer.json().await.expect("JSON");
    body["items"].as_array().expect("items").clone()
}

/// Two change requests that both change the first line of `page`; the
/// second is merged, so the first conflicts. Returns the first.
async fn conflicting(app: &TestApp, writer: &TestUser, space: &str, page: &str) -> String {
    let mine = app.change_request(writer, space, "Mine").await;
    let theirs = app.change_request(writer, space, "Theirs").await;
    for (cr, line) in [(&mine, "Line one, mine."), (&theirs, "Line one, theirs.")] {
        app.write(writer, space, cr, json!([{ "operation": "update_page", "page": page, "document": { "markdown": format!("{line}\n\nLine two.\n") } }]))
            .await
            .assert_status(200);
    }
    app.post(
        writer,
        &format!("/v1/spaces/{space}/change-requests/{theirs}/merge"),
        json!(null),
    )
    .await
    .assert_status(200);
    mine
}

both_backends! {
    async fn a_writer_settles_each_conflicting_page(app: TestApp) {
        let writer = app.user("Writer").await;
        let org = app.org(&writer, "Docs").await;
        let space = app.space(&writer, &org, "Guide", None).await;
        let ids = app
            .publish(&writer, &space, json!([{ "operation": "insert_page", "ref": "p", "title": "Intro", "document": { "markdown": "Line one.\n\nLine two.\n" } }]))
            .await;
        let page = ids["p"].as_str().expect("the page").to_owned();

        // An edited text settles it.
        let mine = conflicting(&app, &writer, &space, &page).await;
        let merge = format!("/v1/spaces/{space}/change-requests/{mine}/merge");
        let update = format!("/v1/spaces/{space}/change-requests/{mine}/update");
        let refused = app.post(&writer, &merge, json!(null)).await;
        refused.assert_status(409);
        assert!(refused.message().contains("Intro"), "{}", refused.message());
        let found = conflicts(&app, &writer, &space, &mine).await;
        assert_eq!(found.len(), 1);
        assert_eq!(found[0]["page"], page.as_str());
        assert_eq!(found[0]["resolvable"], true);
        assert!(found[0]["base"]["markdown"].as_str().unwrap_or_default().contains("Line one."));
        assert!(found[0]["mine"]["markdown"].as_str().unwrap_or_default().contains("mine"));
        assert!(found[0]["theirs"]["markdown"].as_str().unwrap_or_default().contains("theirs"));

        app.post(&writer, &update, json!({ "resolutions": [{ "page": page, "keep": "sideways" }] })).await.assert_status(400);
        app.post(&writer, &update, json!({ "resolutions": [{ "page": page, "keep": "mine", "markdown": "x" }] })).await.assert_status(400);
        app.post(&writer, &update, json!({})).await.assert_status(409);
        assert_eq!(conflicts(&app, &writer, &space, &mine).await.len(), 1, "a refused update changes nothing");

        app.post(&writer, &update, json!({ "resolutions": [{ "page": page, "markdown": "Line one, both.\n\nLine two.\n" }] }))
            .await
            .assert_status(200);
        assert!(conflicts(&app, &writer, &space, &mine).await.is_empty());
        app.post(&writer, &merge, json!(null)).await.assert_status(200);
        assert!(app.markdown(&writer, &space, &page).await.contains("Line one, both."));

        // Keeping a side settles it too.
        for (keep, expected) in [("mine", "Line one, mine."), ("theirs", "Line one, theirs.")] {
            let cr = conflicting(&app, &writer, &space, &page).await;
            app.post(&writer, &format!("/v1/spaces/{space}/change-requests/{cr}/update"), json!({ "resolutions": [{ "page": page, "keep": keep }] }))
                .await
                .assert_status(200);
            app.post(&writer, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null))
                .await
                .assert_status(200);
            assert!(app.markdown(&writer, &space, &page).await.contains(expected), "keep {keep}");
        }
    }
}
