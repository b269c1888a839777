//! Reviews of change requests and review requests, through the official
//! operations (every answer checked against the official contract): who may
//! ask and review, a review's comment joining the discussion, earlier
//! reviews becoming outdated, and no review once merged.

use reqwest::Method;
use serde_json::json;

use crate::support::both_backends;

both_backends! {
    async fn a_change_request_is_reviewed_and_approved(app: TestApp) {
        let admin = app.user("Admin").await;
        let writer = app.user("Writer").await;
        let reviewer = app.user("Reviewer").await;
        let reader = app.user("Reader").await;
        let org = app.org(&admin, "Docs").await;
        app.add_member(&admin, &org, &writer, json!("edit")).await;
        app.add_member(&admin, &org, &reviewer, json!("review")).await;
        app.add_member(&admin, &org, &reader, json!("read")).await;
        let space = app.space(&admin, &org, "Guide", None).await;
        let cr = app.change_request(&writer, &space, "Add a page").await;
        app.write(&writer, &space, &cr, json!([{ "operation": "insert_page", "title": "Intro", "document": { "markdown": "Hello." } }]))
            .await
            .assert_status(200);
        let base = format!("/v1/spaces/{space}/change-requests/{cr}");

        // Who may be asked, and who may ask.
        let asked = app
            .post(&writer, &format!("{base}/requested-reviewers"), json!({ "users": [reviewer.id], "subject": "Add the intro" }))
            .await;
        asked.assert_status(200);
        assert_eq!(asked.body["users"][0]["user"]["id"], reviewer.id.as_str());
        assert_eq!(asked.body["users"][0]["requestedBy"]["id"], writer.id.as_str());
        let cannot = app.post(&writer, &format!("{base}/requested-reviewers"), json!({ "users": [reader.id] })).await;
        cannot.assert_status(400);
        assert!(cannot.message().contains("review role"), "{}", cannot.message());
        app.post(&writer, &format!("{base}/requested-reviewers"), json!({ "users": [writer.id] }))
            .await
            .assert_status(400);
        app.post(&writer, &format!("{base}/requested-reviewers"), json!({ "users": [] }))
            .await
            .assert_status(400);
        app.post(&reader, &format!("{base}/requested-reviewers"), json!({ "users": [reviewer.id] }))
            .await
            .assert_status(403);
        assert_eq!(app.get(&reader, &format!("{base}/requested-reviewers")).await.items().len(), 1);
        assert_eq!(app.get(&reader, &base).await.body["subject"], "Add the intro");

        // A review asking for changes, with a comment.
        let review = app
            .post(&reviewer, &format!("{base}/reviews"), json!({ "status": "changes-requested", "comment": { "markdown": "Please add an example." } }))
            .await;
        review.assert_status(201);
        assert_eq!(review.body["status"], "changes-requested");
        assert_eq!(review.body["requestedBy"]["id"], writer.id.as_str());
        assert_eq!(review.body["outdated"], false);
        assert_eq!(review.body["comment"]["body"]["markdown"], "Please add an example.");
        let first = review.id();
        assert!(app.get(&reader, &format!("{base}/requested-reviewers")).await.items().is_empty());
        let comments = app.get(&writer, &format!("{base}/comments")).await;
        assert_eq!(comments.items().len(), 1, "the review's comment joins the discussion");

        // Asked again, the reviewer approves; the first review is outdated.
        app.post(&writer, &format!("{base}/requested-reviewers"), json!({ "users": [reviewer.id] }))
            .await
            .assert_status(200);
        app.post(&reviewer, &format!("{base}/reviews"), json!({ "status": "approved" })).await.assert_status(201);
        let reviews = app.get(&reader, &format!("{base}/reviews")).await;
        let items = reviews.items();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["id"], first.as_str());
        assert_eq!(items[0]["outdated"], true);
        assert_eq!(items[1]["status"], "approved");
        assert_eq!(items[1]["outdated"], false);
        let current = app.get(&reader, &format!("{base}/reviews?outdated=false")).await;
        assert_eq!(current.items().len(), 1);
        let one = app.get(&reader, &format!("{base}/reviews/{first}?format=document")).await;
        one.assert_status(200);
        assert!(one.body["comment"]["body"]["document"].is_object());
        app.get(&reader, &format!("{base}/reviews/nope")).await.assert_status(404);

        // Nobody reviews their own change request; readers review nothing;
        // bad input changes nothing.
        app.post(&writer, &format!("{base}/reviews"), json!({ "status": "approved" })).await.assert_status(403);
        app.post(&reader, &format!("{base}/reviews"), json!({ "status": "approved" })).await.assert_status(403);
        app.post(&reviewer, &format!("{base}/reviews"), json!({ "status": "maybe" })).await.assert_status(400);
        app.post(&reviewer, &format!("{base}/reviews"), json!({ "status": "approved", "extra": 1 })).await.assert_status(400);
        assert_eq!(app.get(&reader, &format!("{base}/reviews")).await.items().len(), 2);

        // Withdrawing a request: 205 when there was one, 204 when not.
        app.post(&writer, &format!("{base}/requested-reviewers"), json!({ "users": [reviewer.id] }))
            .await
            .assert_status(200);
        let path = format!("{base}/requested-reviewers/{}", reviewer.id);
        app.request(Method::DELETE, &path).as_user(&writer).send().await.assert_status(205);
        app.request(Method::DELETE, &path).as_user(&writer).send().await.assert_status(204);

        // Merged: no more reviews.
        app.post(&reviewer, &format!("{base}/merge"), json!({})).await.assert_status(200);
        app.post(&reviewer, &format!("{base}/reviews"), json!({ "status": "approved" })).await.assert_status(409);
    }
}
