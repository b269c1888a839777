//! Running an organization in the browser (`web/tests/admin.mjs`, Debian's
//! Chromium), on each backend: settings, members invited by email and by
//! link, roles, removal, teams; checked afterwards through the API.

use std::process::Command;

use crate::official_client::run_node;
use crate::support::{Backend, TestApp};

async fn an_organization_is_run_from_the_browser(backend: Backend) {
    let app = TestApp::start(backend).await;
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "Acme").await;
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
        emails.contains(&("grace@example.com".into(), "review".into())),
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
