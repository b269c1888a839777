//! The API as a hostile client uses it: NUL characters, bodies in the wrong
//! type or shape, documents that are not documents, prying at other users,
//! oversized URLs and pages. Each answer is a clear 4xx in the official
//! shape, and nothing changes.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{TestApp, TestUser, both_backends};

/// An organization with a space and an open change request.
async fn space_with_cr(app: &TestApp) -> (TestUser, String, String, String) {
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
    let space = app.space(&ada, &org, "Docs", None).await;
    let cr = app.change_request(&ada, &space, "Edits").await;
    (ada, org, space, cr)
}

async fn page_count(app: &TestApp, user: &TestUser, space: &str, cr: &str) -> usize {
    let res = app
        .get(user, &format!("/v1/spaces/{space}/change-requests/{cr}/content/pages"))
        .await;
    res.assert_status(200);
    res.body["pages"].as_array().map_or(0, Vec::len)
}

both_backends! {
    async fn nul_characters_are_refused_everywhere(app: TestApp) {
        let (ada, org, space, cr) = space_with_cr(&app).await;
        let nul = "a\u{0}b";
        let refused = [
            app.post(&ada, "/v1/orgs", json!({ "title": nul })).await,
            app.patch(&ada, &format!("/v1/orgs/{org}"), json!({ "title": nul })).await,
            app.post(&ada, &format!("/v1/spaces/{space}/change-requests"), json!({ "subject": nul })).await,
            app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": nul } }])).await,
            app.post(&ada, &format!("/v1/orgs/{org}/invites"), json!({ "emails": [format!("{nul}@example.com")] })).await,
            app.get(&ada, &format!("/v1/orgs/{org}/members?search=a%00b")).await,
            app.get(&ada, "/v1/orgs/a%00b").await,
        ];
        for res in &refused {
            res.assert_status(400);
            assert!(res.message().contains("NUL"), "{}", res.message());
        }
        let org_now = app.get(&ada, &format!("/v1/orgs/{org}")).await;
        assert_eq!(org_now.body["title"], "Acme");
        assert_eq!(app.get(&ada, "/v1/orgs").await.items().len(), 1);
        let crs = app.get(&ada, &format!("/v1/spaces/{space}/change-requests")).await;
        assert_eq!(crs.items().len(), 1);
        assert_eq!(page_count(&app, &ada, &space, &cr).await, 0);
        // A backslash followed by "u0000" is text, not NUL.
        app.post(&ada, "/v1/orgs", json!({ "title": "back\\u0000slash" })).await.assert_status(201);
    }

    async fn invalid_page_documents_are_refused_and_nothing_is_written(app: TestApp) {
        let (ada, _, space, cr) = space_with_cr(&app).await;
        let paragraph_with_parent = json!({ "object": "block", "type": "paragraph", "data": {}, "parent": "x", "nodes": [
            { "object": "text", "leaves": [{ "object": "leaf", "text": "Hi", "marks": [] }] }
        ] });
        let bad: [(Value, &str); 7] = [
            (json!({ "operation": "insert_page", "document": { "object": "document", "nodes": "bad" } }), "document"),
            (json!({ "operation": "insert_page", "document": { "document": { "object": "document", "data": {}, "nodes": "bad" } } }), "nodes"),
            (json!({ "operation": "insert_page", "document": { "document": {} } }), "object"),
            (json!({ "operation": "insert_page", "document": { "document": { "object": "document", "data": {}, "nodes": [
                { "object": "block", "type": "marquee", "nodes": [] }
            ] } } }), "marquee"),
            (json!({ "operation": "insert_page", "document": { "document": { "object": "document", "data": {}, "nodes": [paragraph_with_parent] } } }), "parent"),
            (json!({ "operation": "insert_page", "parent": "x", "document": { "markdown": "# Hi" } }), "parent"),
            (json!({ "operation": "insert_page", "document": { "markdown": 42 } }), "markdown"),
        ];
        for (change, named) in bad {
            let res = app.write(&ada, &space, &cr, json!([change])).await;
            res.assert_status(400);
            assert!(res.message().contains(named), "{change}: {}", res.message());
        }
        assert_eq!(page_count(&app, &ada, &space, &cr).await, 0);
        // The official empty document still makes an empty page.
        app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "title": "Empty", "document": {} }]))
            .await
            .assert_status(200);
        assert_eq!(page_count(&app, &ada, &space, &cr).await, 1);
    }

    async fn bodies_must_be_declared_json(app: TestApp) {
        let (ada, _, space, cr) = space_with_cr(&app).await;
        let body = json!({ "changes": [{ "operation": "insert_page", "document": { "markdown": "# Hi" } }] });
        for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
            let res = app
                .request(Method::POST, &format!("/v1/spaces/{space}/change-requests/{cr}/content"))
                .as_user(&ada)
                .raw_body(body.to_string())
                .content_type(content_type)
                .send()
                .await;
            res.assert_status(415);
            assert!(res.message().contains("application/json"), "{}", res.message());
        }
        let res = app.request(Method::POST, "/v1/orgs").as_user(&ada).raw_body(r#"{"title":"Acme 2"}"#).no_content_type().send().await;
        res.assert_status(415);
        assert_eq!(page_count(&app, &ada, &space, &cr).await, 0);
        assert_eq!(app.get(&ada, "/v1/orgs").await.items().len(), 1);
        // A bare POST still works without a body or type.
        app.request(Method::POST, &format!("/v1/spaces/{space}/change-requests")).as_user(&ada).no_content_type().send().await.assert_status(201);
    }

    async fn users_see_emails_only_where_they_should(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob").await;
        let eve = app.user("Eve").await;
        let org = app.org(&ada, "Acme").await;
        app.add_member(&ada, &org, &bob, json!("edit")).await;
        // Themself and an admin of an organization they are in: everything.
        assert_eq!(app.get(&bob, &format!("/v1/users/{}", bob.id)).await.body["email"], bob.email.as_str());
        let by_admin = app.get(&ada, &format!("/v1/users/{}", bob.id)).await;
        by_admin.assert_status(200);
        assert_eq!(by_admin.body["email"], bob.email.as_str());
        // A fellow member who is not an admin: the public profile.
        let by_member = app.get(&bob, &format!("/v1/users/{}", ada.id)).await;
        by_member.assert_status(200);
        assert_eq!(by_member.body["displayName"], "Ada");
        assert!(by_member.body.get("email").is_none(), "{}", by_member.body);
        // A stranger: nobody there.
        let by_stranger = app.get(&eve, &format!("/v1/users/{}", ada.id)).await;
        by_stranger.assert_status(404);
        assert!(!by_stranger.body.to_string().contains(&ada.email));
    }

    async fn not_found_names_what_is_missing(app: TestApp) {
        let (ada, org, space, _) = space_with_cr(&app).await;
        for (path, named) in [
            ("/v1/spaces/nosuchspace".to_owned(), "space \"nosuchspace\""),
            ("/v1/collections/nosuchcoll".to_owned(), "collection \"nosuchcoll\""),
            (format!("/v1/orgs/{org}/teams/nosuchteam"), "team \"nosuchteam\""),
            (format!("/v1/spaces/{space}/change-requests/77"), "change request \"77\""),
            (format!("/v1/spaces/{space}/content/page/nosuchpage"), "page \"nosuchpage\""),
            (format!("/v1/spaces/{space}/revisions/nosuchrev"), "revision \"nosuchrev\""),
        ] {
            let res = app.get(&ada, &path).await;
            res.assert_status(404);
            assert!(res.message().contains(named), "{path}: {}", res.message());
        }
    }

    async fn taken_unique_values_are_a_clear_409(app: TestApp) {
        let ada = app.user("Ada").await;
        let first = app.org(&ada, "First").await;
        let second = app.org(&ada, "Second").await;
        app.patch(&ada, &format!("/v1/orgs/{first}"), json!({ "hostname": "docs" })).await.assert_status(200);
        let taken = app.patch(&ada, &format!("/v1/orgs/{second}"), json!({ "title": "Renamed", "hostname": "docs" })).await;
        taken.assert_status(409);
        assert!(taken.message().contains("hostname"), "{}", taken.message());
        assert_eq!(app.get(&ada, &format!("/v1/orgs/{second}")).await.body["title"], "Second");
    }

    async fn change_request_status_is_one_of_four(app: TestApp) {
        let (ada, _, space, cr) = space_with_cr(&app).await;
        let path = format!("/v1/spaces/{space}/change-requests/{cr}");
        app.patch(&ada, &path, json!({ "status": "bogus" })).await.assert_status(400);
        app.get(&ada, &format!("/v1/spaces/{space}/change-requests?status=bogus")).await.assert_status(400);
        let archived = app.patch(&ada, &path, json!({ "status": "archived" })).await;
        archived.assert_status(200);
        assert_eq!(archived.body["status"], "archived");
        let listed = app.get(&ada, &format!("/v1/spaces/{space}/change-requests?status=archived")).await;
        assert_eq!(listed.items().len(), 1);
    }

    async fn pages_over_the_size_limit_are_413(app: TestApp) {
        let (ada, _, space, cr) = space_with_cr(&app).await;
        let limit = quire_engine::MAX_PAGE_MARKDOWN_BYTES;
        let line = "Some words of a long page, written again and again.\n";
        let fits = format!("# Big\n\n{}", line.repeat((limit - 100) / line.len()));
        let too_big = format!("{fits}{}", line.repeat(200 / line.len() + 2));
        assert!(fits.len() <= limit && too_big.len() > limit);
        let res = app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": too_big } }])).await;
        res.assert_status(413);
        assert!(res.message().contains("MiB"), "{}", res.message());
        assert_eq!(page_count(&app, &ada, &space, &cr).await, 0);
        app.write(&ada, &space, &cr, json!([{ "operation": "insert_page", "document": { "markdown": fits } }]))
            .await
            .assert_status(200);
        assert_eq!(page_count(&app, &ada, &space, &cr).await, 1);
    }
}

/// hyper refuses a request line over 64 KB before routing; the answer still
/// carries the official error body. Sent over a raw connection (HTTP
/// clients refuse to build such a URL); not an operation of the spec, so it
/// is checked without the contract.
#[tokio::test]
async fn overlong_urls_are_414_in_the_error_shape() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = TestApp::start(crate::support::Backend::Sqlite).await;
    let address = app.base_url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "GET /v1/orgs/{} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n",
        "x".repeat(64 * 1024)
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("a complete response");
    assert!(head.starts_with("HTTP/1.1 414 "), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("content-type: application/json"),
        "{head}"
    );
    let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    assert_eq!(body["error"]["code"], 414);
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
}
