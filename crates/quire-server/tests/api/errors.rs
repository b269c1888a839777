//! The error model: status codes and the official error body for every kind
//! of failure.

use reqwest::Method;
use serde_json::json;

use crate::support::{TestApp, both_backends};

both_backends! {
    /// `/health` says the process answers, without the database; `/ready`
    /// says the database answers too.
    async fn readiness_follows_the_database(app: TestApp) {
        let client = reqwest::Client::new();
        let ready = client.get(format!("{}/ready", app.base_url)).send().await.unwrap();
        assert_eq!(ready.status(), 200);
        let body: serde_json::Value = ready.json().await.unwrap();
        assert_eq!(body["status"], "ready");
        app.db.close().await;
        let health = client.get(format!("{}/health", app.base_url)).send().await.unwrap();
        assert_eq!(health.status(), 200, "alive without its database");
        let ready = client.get(format!("{}/ready", app.base_url)).send().await.unwrap();
        assert_eq!(ready.status(), 503, "not ready without its database");
        let body: serde_json::Value = ready.json().await.unwrap();
        assert_eq!(body["error"]["code"], 503);
    }

    async fn missing_or_unknown_tokens_are_401(app: TestApp) {
        let res = app.request(Method::GET, "/v1/user").send().await;
        res.assert_status(401);
        app.request(Method::GET, "/v1/user").token("quire_not_a_real_token").send().await.assert_status(401);
        app.request(Method::GET, "/v1/orgs").token("").send().await.assert_status(401);
    }

    async fn malformed_bodies_are_400_and_change_nothing(app: TestApp) {
        let ada = app.user("Ada").await;
        let res = app.request(Method::POST, "/v1/orgs").as_user(&ada).raw_body("{not json").send().await;
        res.assert_status(400);
        app.post(&ada, "/v1/orgs", json!({ "title": 42 })).await.assert_status(400);
        app.post(&ada, "/v1/orgs", json!({})).await.assert_status(400);
        assert!(app.get(&ada, "/v1/orgs").await.items().is_empty());
    }

    async fn oversized_bodies_are_413(app: TestApp) {
        let ada = app.user("Ada").await;
        let huge = format!("{{\"title\": \"{}\"}}", "x".repeat(quire_server::http::MAX_BODY_BYTES + 1));
        let res = app.request(Method::POST, "/v1/orgs").as_user(&ada).raw_body(huge).send().await;
        res.assert_status(413);
    }

    async fn limits_and_cursors_are_validated(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        let members = format!("/v1/orgs/{org_id}/members");
        app.get(&ada, &format!("{members}?limit=1001")).await.assert_status(400);
        app.get(&ada, &format!("{members}?limit=-1")).await.assert_status(400);
        app.get(&ada, &format!("{members}?limit=ten")).await.assert_status(400);
        app.get(&ada, &format!("{members}?page=garbage")).await.assert_status(400);
        app.get(&ada, &format!("{members}?sort=height")).await.assert_status(400);
        app.get(&ada, &format!("{members}?role=owner")).await.assert_status(400);
        app.get(&ada, &format!("{members}?limit=1000")).await.assert_status(200);
    }

    async fn unknown_resources_are_404(app: TestApp) {
        let ada = app.user("Ada").await;
        let org_id = app.org(&ada, "Acme").await;
        app.get(&ada, "/v1/orgs/doesnotexist").await.assert_status(404);
        app.get(&ada, &format!("/v1/orgs/{org_id}/members/nobody")).await.assert_status(404);
        app.get(&ada, &format!("/v1/orgs/{org_id}/teams/noteam")).await.assert_status(404);
        app.get(&ada, "/v1/users/nobody").await.assert_status(404);
    }
}

/// Unknown routes and methods answer in the error shape too; they are not
/// operations of the spec, so they are checked here without the contract.
#[tokio::test]
async fn unknown_routes_and_methods() {
    let app = TestApp::start(crate::support::Backend::Sqlite).await;
    let client = reqwest::Client::new();
    let res = client
        .get(format!("{}/v1/no/such/route", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], 404);
    let res = client.delete(format!("{}/v1/user", app.base_url)).send().await.unwrap();
    assert_eq!(res.status(), 405);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], 405);
    // `/v1/` is the API's too, whatever the method.
    for method in [Method::GET, Method::POST, Method::DELETE] {
        let res = client
            .request(method.clone(), format!("{}/v1/", app.base_url))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{method} /v1/");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], 404, "{method} /v1/");
    }
    let health = client.get(format!("{}/health", app.base_url)).send().await.unwrap();
    assert_eq!(health.status(), 200);
}

/// One HTTP/1.1 answer read from `stream`: its head (lowercased) and body.
async fn read_answer(stream: &mut tokio::net::TcpStream) -> (String, Vec<u8>) {
    use tokio::io::AsyncReadExt;
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.expect("read");
        assert!(n > 0, "the connection was closed before an answer came");
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().expect("a length"))
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).await.expect("read");
        assert!(n > 0, "the connection was closed inside an answer");
        buffer.extend_from_slice(&chunk[..n]);
    }
    (head, buffer[head_end..head_end + length].to_vec())
}

both_backends! {
    /// A request answered before its body arrived (no token: 401; an unknown
    /// route: 404) leaves the keep-alive connection usable once the body
    /// follows: the next request on it is answered.
    async fn early_answers_keep_the_connection_open(app: TestApp) {
        use tokio::io::AsyncWriteExt;
        let address = app.base_url.trim_start_matches("http://").to_owned();
        let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
        let body = r#"{"title":"Acme"}"#;
        for (path, status) in [("/v1/orgs", "401"), ("/v1/no/such/route", "404")] {
            let head = format!(
                "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).await.expect("write head");
            let (answer, json) = read_answer(&mut stream).await;
            assert!(answer.starts_with(&format!("http/1.1 {status}")), "{path}: {answer}");
            let json: serde_json::Value = serde_json::from_slice(&json).expect("an error body");
            assert_eq!(json["error"]["code"].to_string(), status);
            // The body arrives only after the answer.
            stream.write_all(body.as_bytes()).await.expect("write body");
        }
        let next = format!("GET /health HTTP/1.1\r\nHost: {address}\r\n\r\n");
        stream.write_all(next.as_bytes()).await.expect("write the next request");
        let (answer, _) = read_answer(&mut stream).await;
        assert!(answer.starts_with("http/1.1 200"), "{answer}");
    }
}

/// The contract check itself must be able to fail, or every test above
/// proves nothing about shapes.
#[test]
#[should_panic(expected = "does not match the official schema")]
fn contract_check_rejects_a_body_missing_required_fields() {
    let org_without_plan = json!({ "object": "organization", "id": "x", "title": "Acme" });
    crate::support::contract::contract().check("GET", "/v1/orgs/x", 200, &org_without_plan);
}

#[test]
#[should_panic(expected = "error.code")]
fn contract_check_rejects_an_error_body_with_the_wrong_code() {
    crate::support::contract::contract().check(
        "GET",
        "/v1/orgs/x",
        404,
        &json!({ "error": { "code": 400, "message": "x" } }),
    );
}
