//! The error model: status codes and the official error body for every kind
//! of failure.

use reqwest::Method;
use serde_json::json;

use crate::support::{TestApp, both_backends};

both_backends! {
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
    let health = client.get(format!("{}/health", app.base_url)).send().await.unwrap();
    assert_eq!(health.status(), 200);
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
