//! Discussions: comments and replies on a space and on a change request,
//! reactions, resolution, the open-comment counters, page targets going
//! outdated, body formats, filters, commenters and who may do what.

use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

/// Posts a markdown comment to `base` (a `.../comments` path); returns it.
async fn comment(app: &TestApp, user: &TestUser, base: &str, markdown: &str) -> Value {
    let res = app.post(user, base, json!({ "body": { "markdown": markdown } })).await;
    res.assert_status(200);
    res.body.clone()
}

/// A space whose main content holds one page, written through a merged
/// change request; returns `(space, page id)`.
async fn space_with_page(app: &TestApp, user: &TestUser, org: &str) -> (String, String) {
    let space = app.space(user, org, "Docs", None).await;
    let cr = app.change_request(user, &space, "First page").await;
    app.write(
        user,
        &space,
        &cr,
        json!([{ "operation": "insert_page", "document": { "markdown": "# Guide\n\nStep one.\n" } }]),
    )
    .await
    .assert_status(200);
    app.post(
        user,
        &format!("/v1/spaces/{space}/change-requests/{cr}/merge"),
        json!(null),
    )
    .await
    .assert_status(200);
    let pages = app.get(user, &format!("/v1/spaces/{space}/content/pages")).await;
    let page = pages.body["pages"][0]["id"].as_str().expect("page id").to_owned();
    (space, page)
}

/// The caller's `permissions` on the comment at `path`.
async fn permissions(app: &TestApp, user: &TestUser, path: &str) -> Value {
    let res = app.get(user, path).await;
    res.assert_status(200);
    res.body["permissions"].clone()
}

/// The open-comment counters `(space, change request)`.
async fn counters(app: &TestApp, user: &TestUser, space: &str, cr: &str) -> (u64, u64) {
    let space_view = app.get(user, &format!("/v1/spaces/{space}")).await;
    let cr_view = app.get(user, &format!("/v1/spaces/{space}/change-requests/{cr}")).await;
    (
        space_view.body["comments"].as_u64().expect("space comments"),
        cr_view.body["comments"].as_u64().expect("change request comments"),
    )
}

fn emojis(comment: &Value) -> Vec<(String, u64)> {
    comment["reactions"]
        .as_array()
        .expect("reactions")
        .iter()
        .map(|r| (r["emoji"].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap()))
        .collect()
}

both_backends! {
    async fn space_comments_post_read_edit_and_delete(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let base = format!("/v1/spaces/{space}/comments");
        let revision = app.get(&ada, &format!("/v1/spaces/{space}")).await.body["revision"].clone();

        let posted = comment(&app, &ada, &base, "Looks good, @someone?").await;
        let id = posted["id"].as_str().unwrap().to_owned();
        assert_eq!(posted["object"], "comment");
        assert_eq!(posted["status"], "open");
        assert_eq!(posted["body"], json!({ "markdown": "Looks good, @someone?" }));
        assert_eq!(posted["postedBy"]["id"], ada.id.as_str());
        assert_eq!(posted["replies"], 0);
        assert_eq!(posted["repliers"], json!([]));
        assert_eq!(posted["reactions"], json!([]));
        assert_eq!(posted["target"]["space"], space.as_str());
        assert_eq!(posted["target"]["revision"], revision);
        assert!(posted["target"].get("changeRequest").is_none());
        assert!(posted.get("editedAt").is_none());
        assert!(posted.get("resolvedAt").is_none());
        assert_eq!(posted["permissions"], json!({ "view": true, "edit": true, "reply": true, "delete": true }));
        assert!(posted["urls"]["location"].as_str().unwrap().ends_with(&format!("/v1/spaces/{space}/comments/{id}")));

        let read = app.get(&ada, &format!("{base}/{id}")).await;
        read.assert_status(200);
        assert_eq!(read.body["body"]["markdown"], "Looks good, @someone?");
        assert_eq!(app.ids(&ada, &base).await, vec![id.clone()]);

        app.clock.advance_millis(1000);
        let edited = app.put(&ada, &format!("{base}/{id}"), json!({ "body": { "markdown": "Looks great." } })).await;
        edited.assert_status(200);
        assert_eq!(edited.body["body"]["markdown"], "Looks great.");
        assert!(edited.body["editedAt"].as_str().unwrap() > edited.body["postedAt"].as_str().unwrap());

        app.delete(&ada, &format!("{base}/{id}")).await.assert_status(204);
        app.get(&ada, &format!("{base}/{id}")).await.assert_status(404);
        app.put(&ada, &format!("{base}/{id}"), json!({ "resolved": true })).await.assert_status(404);
        app.delete(&ada, &format!("{base}/{id}")).await.assert_status(204);
        app.delete(&ada, &format!("{base}/nosuchcomment")).await.assert_status(204);
        assert!(app.ids(&ada, &base).await.is_empty());
        app.get(&ada, "/v1/spaces/nosuchspace/comments").await.assert_status(404);
    }

    async fn who_may_post_edit_react_and_delete(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let base = format!("/v1/spaces/{space}/comments");
        let reader = app.user("Reader").await;
        app.add_member(&ada, &org, &reader, json!("read")).await;
        let carol = app.user("Carol").await;
        app.add_member(&ada, &org, &carol, json!("comment")).await;
        let dan = app.user("Dan").await;
        app.add_member(&ada, &org, &dan, json!("comment")).await;
        let stranger = app.user("Stranger").await;

        let refused = app.post(&reader, &base, json!({ "body": { "markdown": "Hi" } })).await;
        refused.assert_status(403);
        assert!(refused.message().contains("comment"), "{}", refused.message());
        let posted = comment(&app, &carol, &base, "From Carol").await;
        let path = format!("{base}/{}", posted["id"].as_str().unwrap());

        // Each caller's permissions on Carol's comment.
        let all = json!({ "view": true, "edit": true, "reply": true, "delete": true });
        assert_eq!(permissions(&app, &carol, &path).await, all);
        let other = json!({ "view": true, "edit": false, "reply": true, "delete": false });
        assert_eq!(permissions(&app, &dan, &path).await, other);
        let read_only = json!({ "view": true, "edit": false, "reply": false, "delete": false });
        assert_eq!(permissions(&app, &reader, &path).await, read_only);
        let admin = json!({ "view": true, "edit": false, "reply": true, "delete": true });
        assert_eq!(permissions(&app, &ada, &path).await, admin);

        // Dan may not rewrite Carol's words, but may react and resolve.
        app.put(&dan, &path, json!({ "body": { "markdown": "Not Carol" } })).await.assert_status(403);
        app.put(&ada, &path, json!({ "body": { "markdown": "Not Carol" } })).await.assert_status(403);
        let reacted = app.put(&dan, &path, json!({ "addedReactions": ["👍"], "resolved": true })).await;
        reacted.assert_status(200);
        assert_eq!(reacted.body["status"], "resolved");
        assert_eq!(reacted.body["resolvedBy"]["id"], dan.id.as_str());
        // The reader sees, but may not react, resolve, reply or delete.
        app.put(&reader, &path, json!({ "addedReactions": ["🎉"] })).await.assert_status(403);
        app.put(&reader, &path, json!({ "resolved": false })).await.assert_status(403);
        app.post(&reader, &format!("{path}/replies"), json!({ "body": { "markdown": "x" } })).await.assert_status(403);
        app.delete(&reader, &path).await.assert_status(403);
        app.delete(&dan, &path).await.assert_status(403);
        let after = app.get(&reader, &path).await;
        assert_eq!(after.body["body"]["markdown"], "From Carol");
        assert_eq!(emojis(&after.body), vec![("👍".to_owned(), 1)]);
        assert_eq!(after.body["status"], "resolved");

        // Someone outside the organization finds nothing at all.
        app.get(&stranger, &path).await.assert_status(404);
        app.get(&stranger, &base).await.assert_status(404);
        app.post(&stranger, &base, json!({ "body": { "markdown": "Hi" } })).await.assert_status(404);
        app.put(&stranger, &path, json!({ "addedReactions": ["👍"] })).await.assert_status(404);
        app.delete(&stranger, &path).await.assert_status(204);
        app.get(&carol, &path).await.assert_status(200);

        // The space admin may delete it.
        app.delete(&ada, &path).await.assert_status(204);
        app.get(&carol, &path).await.assert_status(404);
        // An author deletes their own.
        let own = comment(&app, &dan, &base, "Mine").await;
        app.delete(&dan, &format!("{base}/{}", own["id"].as_str().unwrap())).await.assert_status(204);
    }

    async fn resolving_and_deleting_move_the_open_counters(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let other = app.space(&ada, &org, "Other", None).await;
        let cr = app.change_request(&ada, &space, "Draft").await;
        let base = format!("/v1/spaces/{space}/comments");
        let cr_base = format!("/v1/spaces/{space}/change-requests/{cr}/comments");
        assert_eq!(counters(&app, &ada, &space, &cr).await, (0, 0));

        let first = comment(&app, &ada, &base, "One").await;
        let second = comment(&app, &ada, &base, "Two").await;
        comment(&app, &ada, &cr_base, "On the change request").await;
        comment(&app, &ada, &format!("/v1/spaces/{other}/comments"), "Elsewhere").await;
        assert_eq!(counters(&app, &ada, &space, &cr).await, (2, 1));
        // Lists count the same way, one query for the whole page.
        let spaces = app.get(&ada, &format!("/v1/orgs/{org}/spaces")).await;
        let counts: Vec<(String, u64)> = spaces
            .items()
            .iter()
            .map(|s| (s["title"].as_str().unwrap().to_owned(), s["comments"].as_u64().unwrap()))
            .collect();
        assert_eq!(counts, vec![("Docs".to_owned(), 2), ("Other".to_owned(), 1)]);
        let crs = app.get(&ada, &format!("/v1/spaces/{space}/change-requests")).await;
        assert_eq!(crs.items()[0]["comments"], 1);

        let first_path = format!("{base}/{}", first["id"].as_str().unwrap());
        let resolved = app.put(&ada, &first_path, json!({ "resolved": true })).await;
        resolved.assert_status(200);
        assert_eq!(resolved.body["status"], "resolved");
        assert_eq!(resolved.body["resolvedBy"]["id"], ada.id.as_str());
        let resolved_at = resolved.body["resolvedAt"].clone();
        assert!(resolved.body.get("editedAt").is_none(), "resolving is not editing");
        assert_eq!(counters(&app, &ada, &space, &cr).await, (1, 1));

        // Resolving again keeps when and by whom; reopening clears both.
        app.clock.advance_millis(5000);
        let again = app.put(&ada, &first_path, json!({ "resolved": true })).await;
        assert_eq!(again.body["resolvedAt"], resolved_at);
        let reopened = app.put(&ada, &first_path, json!({ "resolved": false })).await;
        reopened.assert_status(200);
        assert_eq!(reopened.body["status"], "open");
        assert!(reopened.body.get("resolvedAt").is_none());
        assert!(reopened.body.get("resolvedBy").is_none());
        assert_eq!(counters(&app, &ada, &space, &cr).await, (2, 1));

        app.put(&ada, &first_path, json!({ "resolved": true })).await.assert_status(200);
        app.delete(&ada, &format!("{base}/{}", second["id"].as_str().unwrap())).await.assert_status(204);
        assert_eq!(counters(&app, &ada, &space, &cr).await, (0, 1));
        app.delete(&ada, &first_path).await.assert_status(204);
        assert_eq!(counters(&app, &ada, &space, &cr).await, (0, 1));
    }

    async fn reactions_count_each_user_once(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("comment")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let base = format!("/v1/spaces/{space}/comments");
        let posted = comment(&app, &ada, &base, "React to me").await;
        let path = format!("{base}/{}", posted["id"].as_str().unwrap());

        app.put(&ada, &path, json!({ "addedReactions": ["👍", "👍"] })).await.assert_status(200);
        app.clock.advance_millis(10);
        let twice = app.put(&ada, &path, json!({ "addedReactions": ["👍"] })).await;
        assert_eq!(emojis(&twice.body), vec![("👍".to_owned(), 1)]);
        app.clock.advance_millis(10);
        let both = app.put(&bob, &path, json!({ "addedReactions": ["👍", "🎉"] })).await;
        assert_eq!(emojis(&both.body), vec![("👍".to_owned(), 2), ("🎉".to_owned(), 1)]);
        let users: Vec<&str> = both.body["reactions"][0]["users"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["user"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(users, vec![ada.id.as_str(), bob.id.as_str()]);
        assert!(both.body["reactions"][0]["users"][0]["reactedAt"].is_string());

        // Emojis list in the order they were first added (ties by emoji):
        // with Ada's gone, both of Bob's date from his one update.
        let removed = app.put(&ada, &path, json!({ "removedReactions": ["👍", "🚀"] })).await;
        removed.assert_status(200);
        assert_eq!(emojis(&removed.body), vec![("🎉".to_owned(), 1), ("👍".to_owned(), 1)]);
        assert_eq!(removed.body["reactions"][1]["users"][0]["user"]["id"], bob.id.as_str());

        // Bad reactions change nothing, not even the valid parts of the update.
        for bad in [
            json!({ "addedReactions": [""] }),
            json!({ "addedReactions": ["thumbs up"] }),
            json!({ "addedReactions": ["x".repeat(33)] }),
            json!({ "addedReactions": ["👀"], "removedReactions": ["👀"] }),
            json!({ "addedReactions": "👍" }),
            json!({ "addedReactions": ["👀"], "body": { "markdown": "" } }),
        ] {
            app.put(&bob, &path, bad.clone()).await.assert_status(400);
        }
        let unchanged = app.get(&ada, &path).await;
        assert_eq!(emojis(&unchanged.body), vec![("🎉".to_owned(), 1), ("👍".to_owned(), 1)]);
        assert_eq!(unchanged.body["body"]["markdown"], "React to me");
    }

    async fn threads_of_replies(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("comment")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let base = format!("/v1/spaces/{space}/comments");
        let posted = comment(&app, &ada, &base, "Question?").await;
        let path = format!("{base}/{}", posted["id"].as_str().unwrap());
        let replies = format!("{path}/replies");

        let mut ids = Vec::new();
        for (user, text) in [(&bob, "Answer"), (&ada, "Thanks"), (&bob, "You're welcome")] {
            app.clock.advance_millis(1000);
            let reply = app.post(user, &replies, json!({ "body": { "markdown": text } })).await;
            reply.assert_status(200);
            assert_eq!(reply.body["object"], "comment-reply");
            assert_eq!(reply.body["body"]["markdown"], text);
            ids.push(reply.id());
        }
        let thread = app.get(&ada, &path).await;
        assert_eq!(thread.body["replies"], 3);
        let repliers: Vec<(&str, u64)> = thread.body["repliers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["user"]["id"].as_str().unwrap(), r["count"].as_u64().unwrap()))
            .collect();
        assert_eq!(repliers, vec![(bob.id.as_str(), 2), (ada.id.as_str(), 1)]);
        assert_eq!(app.ids(&ada, &replies).await, ids, "oldest first");
        let first_page = app.get(&ada, &format!("{replies}?limit=2")).await;
        assert_eq!(first_page.body["count"], 3);
        let next = first_page.next_page().expect("a second page");
        assert_eq!(app.ids(&ada, &format!("{replies}?limit=2&page={next}")).await, vec![ids[2].clone()]);

        let bobs = format!("{replies}/{}", ids[0]);
        let read = app.get(&ada, &bobs).await;
        read.assert_status(200);
        assert_eq!(read.body["permissions"], json!({ "view": true, "edit": false, "reply": true, "delete": true }));
        assert!(read.body["urls"]["location"].as_str().unwrap().ends_with(&bobs));
        app.put(&ada, &bobs, json!({ "body": { "markdown": "Changed" } })).await.assert_status(403);
        let edited = app.put(&bob, &bobs, json!({ "body": { "markdown": "Better answer" }, "addedReactions": ["✅"] })).await;
        edited.assert_status(200);
        assert_eq!(edited.body["body"]["markdown"], "Better answer");
        assert!(edited.body["editedAt"].is_string());
        assert_eq!(emojis(&edited.body), vec![("✅".to_owned(), 1)]);

        // `resolved` on a reply resolves its thread.
        let resolving = app.put(&bob, &bobs, json!({ "resolved": true })).await;
        resolving.assert_status(200);
        assert_eq!(app.get(&ada, &path).await.body["status"], "resolved");

        app.delete(&ada, &bobs).await.assert_status(204);
        app.get(&ada, &bobs).await.assert_status(404);
        app.delete(&ada, &bobs).await.assert_status(204);
        app.delete(&ada, &format!("{replies}/{}", ids[2])).await.assert_status(204);
        let thread = app.get(&ada, &path).await;
        assert_eq!(thread.body["replies"], 1);
        assert_eq!(thread.body["repliers"][0]["user"]["id"], ada.id.as_str());

        app.post(&ada, &format!("{base}/nosuch/replies"), json!({ "body": { "markdown": "x" } })).await.assert_status(404);
        app.get(&ada, &format!("{base}/nosuch/replies")).await.assert_status(404);
        app.post(&ada, &replies, json!({ "body": {} })).await.assert_status(400);
        // Deleting the comment takes its replies along.
        app.delete(&ada, &path).await.assert_status(204);
        app.get(&ada, &format!("{replies}/{}", ids[1])).await.assert_status(404);
    }

    async fn list_filters_order_and_pages(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("comment")).await;
        let (space, page) = space_with_page(&app, &ada, &org).await;
        let base = format!("/v1/spaces/{space}/comments");
        let mut ids = Vec::new();
        for (i, user) in [&ada, &bob, &ada, &bob].into_iter().enumerate() {
            app.clock.advance_millis(1000);
            let mut body = json!({ "body": { "markdown": format!("Comment {i}") } });
            if i % 2 == 0 {
                body["page"] = json!(page);
            }
            let res = app.post(user, &base, body).await;
            res.assert_status(200);
            ids.push(res.id());
        }
        app.put(&ada, &format!("{base}/{}", ids[1]), json!({ "resolved": true })).await.assert_status(200);
        let newest_first: Vec<String> = ids.iter().rev().cloned().collect();

        assert_eq!(app.ids(&ada, &base).await, newest_first);
        assert_eq!(app.ids(&ada, &format!("{base}?order=desc&status=all")).await, newest_first);
        assert_eq!(app.ids(&ada, &format!("{base}?order=asc")).await, ids);
        assert_eq!(app.ids(&ada, &format!("{base}?status=resolved")).await, vec![ids[1].clone()]);
        assert_eq!(
            app.ids(&ada, &format!("{base}?status=open&order=asc")).await,
            vec![ids[0].clone(), ids[2].clone(), ids[3].clone()]
        );
        assert_eq!(
            app.ids(&ada, &format!("{base}?targetPage={page}&order=asc")).await,
            vec![ids[0].clone(), ids[2].clone()]
        );
        assert!(app.ids(&ada, &format!("{base}?targetPage=otherpage")).await.is_empty());
        assert_eq!(
            app.ids(&ada, &format!("{base}?authors={}&order=asc", bob.id)).await,
            vec![ids[1].clone(), ids[3].clone()]
        );
        assert_eq!(
            app.ids(&ada, &format!("{base}?authors={}&authors={}", bob.id, ada.id)).await,
            newest_first
        );
        let filtered = app.get(&ada, &format!("{base}?authors={}&status=open", bob.id)).await;
        assert_eq!(filtered.body["count"], 1);

        // Pages of two, in both orders.
        let first = app.get(&ada, &format!("{base}?limit=2&order=asc")).await;
        assert_eq!(first.body["count"], 4);
        let next = first.next_page().expect("a second page");
        assert_eq!(app.ids(&ada, &format!("{base}?limit=2&order=asc&page={next}")).await, ids[2..].to_vec());
        let desc = app.get(&ada, &format!("{base}?limit=3")).await;
        let next = desc.next_page().expect("a second page");
        assert_eq!(app.ids(&ada, &format!("{base}?limit=3&page={next}")).await, vec![ids[0].clone()]);
        // A cursor keeps its order.
        app.get(&ada, &format!("{base}?limit=3&order=asc&page={next}")).await.assert_status(400);

        for bad in ["order=newest", "status=closed", "format=html", "limit=1001", "page=garbage"] {
            app.get(&ada, &format!("{base}?{bad}")).await.assert_status(400);
        }
        let many: String = (0..101).map(|i| format!("authors=u{i}&")).collect();
        app.get(&ada, &format!("{base}?{many}")).await.assert_status(400);
    }

    async fn bodies_in_markdown_and_document_form(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let base = format!("/v1/spaces/{space}/comments");
        let document = json!({
            "object": "document",
            "data": {},
            "nodes": [{
                "object": "block",
                "type": "paragraph",
                "data": {},
                "nodes": [{ "object": "text", "leaves": [
                    { "object": "leaf", "text": "Hello ", "marks": [] },
                    { "object": "leaf", "text": "world", "marks": [{ "object": "mark", "type": "bold" }] }
                ] }]
            }]
        });
        let posted = app.post(&ada, &base, json!({ "body": { "document": document } })).await;
        posted.assert_status(200);
        assert_eq!(posted.body["body"]["markdown"].as_str().unwrap().trim(), "Hello **world**");
        let path = format!("{base}/{}", posted.id());

        let as_document = app.get(&ada, &format!("{path}?format=document")).await;
        as_document.assert_status(200);
        let doc = &as_document.body["body"]["document"];
        assert_eq!(doc["object"], "document");
        assert!(doc.to_string().contains("world"), "{doc}");
        assert!(as_document.body["body"].get("markdown").is_none());
        let listed = app.get(&ada, &format!("{base}?format=document")).await;
        assert_eq!(listed.items()[0]["body"]["document"]["object"], "document");
        assert_eq!(app.get(&ada, &format!("{path}?format=markdown")).await.body["body"]["markdown"], posted.body["body"]["markdown"]);

        let reply = app.post(&ada, &format!("{path}/replies?format=document"), json!({ "body": { "markdown": "*ok*" } })).await;
        reply.assert_status(200);
        assert_eq!(reply.body["body"]["document"]["object"], "document");
        let replies = app.get(&ada, &format!("{path}/replies?format=document")).await;
        assert_eq!(replies.items()[0]["body"]["document"]["object"], "document");

        // Mentions and links to users are kept as written.
        let mention = format!("Ping @{} and [Ada]({}/v1/users/{})", ada.id, app.base_url, ada.id);
        assert_eq!(comment(&app, &ada, &base, &mention).await["body"]["markdown"], mention.as_str());

        // Invalid bodies are refused and change nothing.
        for bad in [
            json!({}),
            json!({ "body": null }),
            json!({ "body": {} }),
            json!({ "body": { "markdown": "  \n" } }),
            json!({ "body": { "markdown": 7 } }),
            json!({ "body": { "markdown": "x", "document": {} } }),
            json!({ "body": { "document": { "object": "block" } } }),
            json!({ "body": { "document": { "object": "document", "nodes": [{ "object": "block", "type": "nope", "nodes": [] }] } } }),
            json!({ "body": { "markdown": "x" }, "node": "n1" }),
            json!({ "body": { "markdown": "x" }, "page": "no such page" }),
            json!({ "body": { "markdown": "x" }, "page": "nosuchpage" }),
            json!({ "body": { "markdown": "x" }, "tableCell": { "record": "r" } }),
        ] {
            let res = app.post(&ada, &base, bad.clone()).await;
            res.assert_status(400);
            assert!(!res.message().is_empty(), "{bad}: {}", res.body);
        }
        app.post(&ada, &base, json!({ "body": { "markdown": "x".repeat(64 * 1024 + 1) } })).await.assert_status(413);
        app.put(&ada, &path, json!({ "body": { "document": [] } })).await.assert_status(400);
        app.request(reqwest::Method::POST, &base).as_user(&ada).raw_body("{\"body\":").send().await.assert_status(400);
        app.post(&ada, &base, json!({ "body": { "markdown": "a\u{0}b" } })).await.assert_status(400);
        app.request(reqwest::Method::POST, &base)
            .as_user(&ada)
            .content_type("text/plain")
            .raw_body("{\"body\":{\"markdown\":\"x\"}}")
            .send()
            .await
            .assert_status(415);
        app.request(reqwest::Method::GET, &base).send().await.assert_status(401);
        let missing = app.get(&ada, &format!("{base}/nosuch")).await;
        missing.assert_status(404);
        assert_eq!(missing.message(), "comment \"nosuch\" not found");
        let missing = app.get(&ada, &format!("{path}/replies/nosuch")).await;
        assert_eq!(missing.message(), "comment reply \"nosuch\" not found");
        assert_eq!(app.get(&ada, &base).await.body["count"], 2);
        assert_eq!(app.get(&ada, &path).await.body["body"]["markdown"], posted.body["body"]["markdown"]);
    }

    async fn change_request_discussions_and_outdated_pages(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let (space, page) = space_with_page(&app, &ada, &org).await;
        let space_base = format!("/v1/spaces/{space}/comments");

        let on_page = app.post(&ada, &space_base, json!({ "body": { "markdown": "Typo here" }, "page": page, "node": "block-1" })).await;
        on_page.assert_status(200);
        let target = &on_page.body["target"];
        assert_eq!(target["page"]["id"], page.as_str());
        assert_eq!(target["page"]["title"], "Guide");
        assert_eq!(target["page"]["path"], "guide");
        assert_eq!(target["page"]["outdated"], false);
        assert!(target["page"]["updatedAt"].is_string());
        assert_eq!(target["node"], json!({ "id": "block-1" }));
        let space_comment = format!("{space_base}/{}", on_page.id());

        // A change request rewrites the page; its discussion is its own.
        let cr = app.change_request(&ada, &space, "Rewrite").await;
        app.write(&ada, &space, &cr, json!([{ "operation": "update_page", "page": page, "document": { "markdown": "# Guide\n\nStep one, fixed.\n" } }]))
            .await
            .assert_status(200);
        let cr_base = format!("/v1/spaces/{space}/change-requests/{cr}/comments");
        let cr_comment = app.post(&ada, &cr_base, json!({ "body": { "markdown": "Better?" }, "page": page })).await;
        cr_comment.assert_status(200);
        assert_eq!(cr_comment.body["target"]["changeRequest"], cr.as_str());
        assert_eq!(cr_comment.body["target"]["page"]["outdated"], false);
        let cr_path = format!("{cr_base}/{}", cr_comment.id());
        assert!(cr_comment.body["urls"]["location"].as_str().unwrap().ends_with(&cr_path));
        assert_eq!(app.ids(&ada, &cr_base).await, vec![cr_comment.id()]);
        assert_eq!(app.ids(&ada, &space_base).await, vec![on_page.id()]);
        // The change request by number addresses the same discussion; a
        // comment is found only in its own discussion.
        assert_eq!(app.ids(&ada, &format!("/v1/spaces/{space}/change-requests/1/comments")).await.len(), 0);
        assert_eq!(app.ids(&ada, &format!("/v1/spaces/{space}/change-requests/2/comments")).await, vec![cr_comment.id()]);
        app.get(&ada, &format!("{space_base}/{}", cr_comment.id())).await.assert_status(404);
        app.get(&ada, &format!("{cr_base}/{}", on_page.id())).await.assert_status(404);
        app.get(&ada, &format!("/v1/spaces/{space}/change-requests/99/comments")).await.assert_status(404);
        assert_eq!(app.get(&ada, &space_comment).await.body["target"]["page"]["outdated"], false);

        // Replies on a change request comment.
        let reply = app.post(&ada, &format!("{cr_path}/replies"), json!({ "body": { "markdown": "Yes" } })).await;
        reply.assert_status(200);
        let reply_path = format!("{cr_path}/replies/{}", reply.id());
        assert!(reply.body["urls"]["location"].as_str().unwrap().ends_with(&reply_path));
        app.put(&ada, &reply_path, json!({ "resolved": true, "addedReactions": ["🎉"] })).await.assert_status(200);
        assert_eq!(app.get(&ada, &cr_path).await.body["status"], "resolved");
        assert_eq!(app.get(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}")).await.body["comments"], 0);

        // Merged, the page's new text makes the space comment outdated; the
        // change request's comment was about that text and is not.
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr}/merge"), json!(null))
            .await
            .assert_status(200);
        let outdated = app.get(&ada, &space_comment).await;
        assert_eq!(outdated.body["target"]["page"]["outdated"], true);
        assert_eq!(outdated.body["target"]["page"]["title"], "Guide");
        assert_eq!(app.get(&ada, &cr_path).await.body["target"]["page"]["outdated"], false);
        // A comment on the page as it is now is not outdated.
        let fresh = app.post(&ada, &space_base, json!({ "body": { "markdown": "Now good" }, "page": page })).await;
        assert_eq!(fresh.body["target"]["page"]["outdated"], false);
        let listed = app.get(&ada, &format!("{space_base}?order=asc")).await;
        let flags: Vec<&Value> = listed.items().iter().map(|c| &c["target"]["page"]["outdated"]).collect();
        assert_eq!(flags, vec![&json!(true), &json!(false)]);

        // A deleted page leaves its comments pointing at it, outdated.
        let cr2 = app.change_request(&ada, &space, "Remove").await;
        app.write(&ada, &space, &cr2, json!([{ "operation": "delete_page", "page": page }])).await.assert_status(200);
        app.post(&ada, &format!("/v1/spaces/{space}/change-requests/{cr2}/merge"), json!(null))
            .await
            .assert_status(200);
        let gone = app.get(&ada, &space_comment).await;
        assert_eq!(gone.body["target"]["page"], json!({ "id": page, "outdated": true }));
    }

    async fn commenters_are_members_who_took_part(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let cid = app.user("Cid").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("comment")).await;
        app.add_member(&ada, &org, &cid, json!("comment")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        let cr = app.change_request(&ada, &space, "Draft").await;
        let base = format!("/v1/spaces/{space}/comments");
        let commenters = format!("/v1/spaces/{space}/commenters");
        let cr_commenters = format!("/v1/spaces/{space}/change-requests/{cr}/commenters");
        assert!(app.ids(&ada, &commenters).await.is_empty());

        let posted = comment(&app, &cid, &base, "First").await;
        comment(&app, &cid, &base, "Second").await;
        app.post(&bob, &format!("{base}/{}/replies", posted["id"].as_str().unwrap()), json!({ "body": { "markdown": "Reply" } }))
            .await
            .assert_status(200);
        comment(&app, &ada, &format!("/v1/spaces/{space}/change-requests/{cr}/comments"), "On the CR").await;

        let list = app.get(&ada, &commenters).await;
        list.assert_status(200);
        assert_eq!(list.body["count"], 2);
        let names: Vec<&str> = list.items().iter().map(|m| m["user"]["displayName"].as_str().unwrap()).collect();
        assert_eq!(names, vec!["Bob", "Cid"]);
        assert_eq!(list.items()[0]["object"], "member");
        assert_eq!(list.items()[0]["role"], "comment");
        assert_eq!(app.ids(&ada, &cr_commenters).await, vec![ada.id.clone()]);

        let first = app.get(&ada, &format!("{commenters}?limit=1")).await;
        let next = first.next_page().expect("a second page");
        assert_eq!(app.ids(&ada, &format!("{commenters}?limit=1&page={next}")).await, vec![cid.id.clone()]);

        // Who left the organization is no longer listed (their words stay).
        app.delete(&ada, &format!("/v1/orgs/{org}/members/{}", bob.id)).await.assert_status(204);
        assert_eq!(app.ids(&ada, &commenters).await, vec![cid.id.clone()]);
        let thread = app.get(&ada, &format!("{base}/{}", posted["id"].as_str().unwrap())).await;
        assert_eq!(thread.body["replies"], 1);
        app.get(&bob, &commenters).await.assert_status(404);
    }

    async fn purging_a_space_removes_its_discussions(app: TestApp) {
        let ada = app.user("Ada").await;
        let org = app.org(&ada, "Acme").await;
        let space = app.space(&ada, &org, "Short-lived", None).await;
        let cr = app.change_request(&ada, &space, "Draft").await;
        let on_space = comment(&app, &ada, &format!("/v1/spaces/{space}/comments"), "Hi").await;
        let on_cr = comment(&app, &ada, &format!("/v1/spaces/{space}/change-requests/{cr}/comments"), "Hey").await;
        let on_space = on_space["id"].as_str().unwrap().to_owned();
        let on_cr = on_cr["id"].as_str().unwrap().to_owned();
        app.post(&ada, &format!("/v1/spaces/{space}/comments/{on_space}/replies"), json!({ "body": { "markdown": "Yo" } }))
            .await
            .assert_status(200);
        app.put(&ada, &format!("/v1/spaces/{space}/comments/{on_space}"), json!({ "addedReactions": ["👋"] }))
            .await
            .assert_status(200);

        app.delete(&ada, &format!("/v1/spaces/{space}")).await.assert_status(204);
        app.get(&ada, &format!("/v1/spaces/{space}/comments")).await.assert_status(404);
        app.clock.advance_days(8);
        assert_eq!(app.run_due_jobs().await, 1);
        let mut conn = app.db.read().await.unwrap();
        for (cr_id, id) in [(None, &on_space), (Some(cr.as_str()), &on_cr)] {
            assert!(matches!(
                quire_store::comments::get_comment(&mut conn, &space, cr_id, id).await,
                Err(quire_store::StoreError::NotFound)
            ));
        }
        assert!(quire_store::comments::reactions(&mut conn, std::slice::from_ref(&on_space)).await.unwrap().is_empty());
        assert!(quire_store::comments::repliers(&mut conn, std::slice::from_ref(&on_space)).await.unwrap().is_empty());
    }

    async fn emails_only_for_organization_admins_and_the_user_themself(app: TestApp) {
        let ada = app.user("Ada").await; // admin
        let bob = app.user("Bob").await; // commenter
        let rita = app.user("Rita").await; // the read role
        let gus = app.user("Gus").await; // a guest who may read one space
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("comment")).await;
        app.add_member(&ada, &org, &rita, json!("read")).await;
        let space = app.space(&ada, &org, "Docs", None).await;
        app.post(&ada, &format!("/v1/spaces/{space}/permissions"), json!({ "role": "read", "users": [gus.email] }))
            .await
            .assert_status(204);
        let cr = app.change_request(&ada, &space, "Draft").await;

        // Both discussions name Bob and Ada as authors, repliers, reacting
        // and resolving users.
        let mut paths = Vec::new();
        let mut threads = Vec::new();
        for base in [format!("/v1/spaces/{space}"), format!("/v1/spaces/{space}/change-requests/{cr}")] {
            let comments = format!("{base}/comments");
            let posted = comment(&app, &bob, &comments, "Question").await;
            assert_eq!(posted["postedBy"]["email"], bob.email.as_str(), "his own");
            let thread = format!("{comments}/{}", posted["id"].as_str().unwrap());
            let reply = app.post(&ada, &format!("{thread}/replies"), json!({ "body": { "markdown": "Answer" } })).await;
            reply.assert_status(200);
            let reply_path = format!("{thread}/replies/{}", reply.id());
            app.put(&ada, &thread, json!({ "addedReactions": ["👍"], "resolved": true }))
                .await
                .assert_status(200);
            let reacted = app.put(&bob, &reply_path, json!({ "addedReactions": ["🎉"] })).await;
            assert_eq!(reacted.emails_shown(), vec![bob.id.clone()], "Bob reacting to Ada's reply");
            paths.extend([comments, thread.clone(), format!("{thread}/replies"), reply_path, format!("{base}/commenters")]);
            threads.push(thread);
        }

        let mut admin_sees = vec![ada.id.clone(), bob.id.clone()];
        admin_sees.sort();
        for path in &paths {
            let by_admin = app.get(&ada, path).await;
            by_admin.assert_status(200);
            assert_eq!(by_admin.emails_shown(), admin_sees, "{path}: {}", by_admin.body);
            let by_bob = app.get(&bob, path).await;
            assert_eq!(by_bob.emails_shown(), vec![bob.id.clone()], "{path}: {}", by_bob.body);
            for viewer in [&rita, &gus] {
                let res = app.get(viewer, path).await;
                res.assert_status(200);
                assert!(res.body.to_string().contains(&bob.id), "{path} names Bob");
                assert_eq!(res.emails_shown(), Vec::<String>::new(), "{path} as {}: {}", viewer.email, res.body);
            }
        }

        // Once Bob has left, the admin no longer sees his email on his words.
        app.delete(&ada, &format!("/v1/orgs/{org}/members/{}", bob.id)).await.assert_status(204);
        for thread in &threads {
            let res = app.get(&ada, thread).await;
            assert_eq!(res.body["postedBy"]["id"], bob.id.as_str());
            assert_eq!(res.emails_shown(), vec![ada.id.clone()], "{}", res.body);
        }
    }
}
