//! Running an organization in the browser (`web/tests/admin.mjs`, Debian's
//! Chromium), on each backend: settings, members invited by email and by
//! link, roles, removal, teams, a space shared with a team and why a
//! member holds her role there; checked afterwards through the API.

use std::process::Command;

use crate::official_client::run_node;
use crate::support::{Backend, TestApp};

async fn an_organization_is_run_from_the_browser(backend: Backend) {
    let app = TestApp::start(backend).await;
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
    let space = app.space(&ada, &org, "Handbook", None).await;
    app.user("Bob").await;
    let link = |email: &'static str| {
        let app = &app;
        async move {
            quire_sign_in::links::sign_in_link_for_cli(&app.state.app, &app.base_url, email, None)
                .await
                .expect("a sign-in link")
                .url
        }
    };
    let artifacts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../../target/browser-artifacts/admin/{}",
        match backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    ));
    let mut node = Command::new("node");
    node.arg("tests/admin.mjs")
        .current_dir(crate::web_app::web_dir())
        .env("QUIRE_URL", &app.base_url)
        .env("QUIRE_ORG", &org)
        .env("QUIRE_SPACE", &space)
        .env("QUIRE_LINK", link("ada@example.com").await)
        .env("QUIRE_BOB_LINK", link("bob@example.com").await)
        .env("ARTIFACTS", &artifacts);
    let out = run_node(node, "the administration browser test").await;
    assert!(
        out.contains("ok   an invite link lets someone join, and a member is removed"),
        "{out}"
    );
    // What the screens did, read back through the API.
    let res = app.get(&ada, &format!("/v1/orgs/{org}")).await;
    assert_eq!(res.body["title"], "Acme Handbook");
    let members = app.get(&ada, &format!("/v1/orgs/{org}/members")).await;
    let emails: Vec<(String, String)> = members.body["items"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| {
            (
                m["user"]["email"].as_str().unwrap_or_default().to_owned(),
                m["role"].as_str().unwrap_or("guest").to_owned(),
            )
        })
        .collect();
    assert!(
        emails.contains(&("grace@example.com".into(), "read".into())),
        "{emails:?}"
    );
    assert!(
        !emails.iter().any(|(email, _)| email == "bob@example.com"),
        "{emails:?}"
    );
    let teams = app.get(&ada, &format!("/v1/orgs/{org}/teams")).await;
    let team = teams.body["items"][0]["id"].as_str().expect("a team").to_owned();
    let in_team = app.get(&ada, &format!("/v1/orgs/{org}/teams/{team}/members")).await;
    assert_eq!(
        in_team.body["items"][0]["organization"]["user"]["email"],
        "grace@example.com"
    );
    // The team's grant, and what it gives Grace, as the API says it.
    let grace = members.body["items"]
        .as_array()
        .and_then(|items| items.iter().find(|m| m["user"]["email"] == "grace@example.com"))
        .and_then(|m| m["id"].as_str())
        .expect("Grace")
        .to_owned();
    let res = reqwest::Client::new()
        .get(format!("{}/v1/spaces/{space}/access/{grace}", app.base_url))
        .bearer_auth(&ada.token)
        .send()
        .await
        .expect("request");
    let explained: serde_json::Value = res.json().await.expect("JSON");
    assert_eq!(explained["role"], "edit", "{explained}");
    assert_eq!(explained["sources"][0]["kind"], "team", "{explained}");
    assert_eq!(explained["sources"][0]["team"]["title"], "Writers", "{explained}");
    // Nobody but the space's admins (and the person) may ask.
    let bob = app.user("Bob").await;
    let res = reqwest::Client::new()
        .get(format!("{}/v1/spaces/{space}/access/{grace}", app.base_url))
        .bearer_auth(&bob.token)
        .send()
        .await
        .expect("request");
    assert!(matches!(res.status().as_u16(), 403 | 404), "{}", res.status());
}

mod an_organization_is_run_from_the_browser {
    use crate::support::Backend;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::an_organization_is_run_from_the_browser(Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::an_organization_is_run_from_the_browser(Backend::Postgres).await
    }
}
