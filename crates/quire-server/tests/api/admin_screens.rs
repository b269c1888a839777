//! Running an organization in the browser (Debian's Chromium), on each
//! backend, checked afterwards through the API:
//! - `web/tests/admin.mjs`: settings, members invited by email and by
//!   link, roles, removal, teams, a space shared with a team and why a
//!   member holds her role there, an invitation kept as Reviewer, listed
//!   as pending and revoked;
//! - `web/tests/admin-sites.mjs`: a site published with a share link and
//!   read through it, its look with the live preview, visitor
//!   authentication and the adaptive schema; Git Sync connected and
//!   imported, with the import's problems; a translation run against a
//!   local provider; an OpenAPI spec added and its operations seen; SAML
//!   single sign-on configured against a real identity provider; one's API
//!   tokens; PDFs of a space and a change request; a collection shared.

use std::process::Command;

use quire_adapters::translate::ProviderKind;
use serde_json::json;

use crate::official_client::run_node;
use crate::support::git::Repo;
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
    let mut node = Command::new("node");
    node.arg("tests/admin.mjs")
        .current_dir(crate::web_app::web_dir())
        .env("QUIRE_URL", &app.base_url)
        .env("QUIRE_ORG", &org)
        .env("QUIRE_SPACE", &space)
        .env("QUIRE_LINK", link("ada@example.com").await)
        .env("QUIRE_BOB_LINK", link("bob@example.com").await)
        .env("ARTIFACTS", artifacts("admin", backend));
    let out = run_node(node, "the administration browser test").await;
    assert!(
        out.contains("ok   someone with an account invited by email joins only once they accept"),
        "{out}"
    );
    assert!(
        out.contains("ok   an invitation keeps its role in the picker, is listed as pending, and is revoked"),
        "{out}"
    );
    // The revoked invitation is gone, and nobody else is waiting.
    let pending = app.get(&ada, &format!("/v1/orgs/{org}/invites")).await;
    pending.assert_status(200);
    assert_eq!(pending.body["items"], json!([]), "{}", pending.body);
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
        emails.contains(&("bob@example.com".into(), "comment".into())),
        "removed, then invited again and accepted: {emails:?}"
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

/// Where a browser test keeps its screenshots.
fn artifacts(name: &str, backend: Backend) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../../target/browser-artifacts/{name}/{}",
        match backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    ))
}

async fn sites_and_integrations_are_run_from_the_browser(backend: Backend) {
    let app = TestApp::start(backend).await;
    let ada = app.user("Ada").await;
    let bob = app.user("Bob").await;
    let org = app.org(&ada, "Acme").await;
    app.add_member(&ada, &org, &bob, json!("read")).await;
    let handbook = app.space(&ada, &org, "Handbook", None).await;
    app.publish(
        &ada,
        &handbook,
        json!([
            { "operation": "insert_page", "title": "Welcome", "document": { "markdown": "Read this first.\n" } },
            { "operation": "insert_page", "title": "Install", "document": { "markdown": "Run the binary.\n" } },
        ]),
    )
    .await;
    let imported = app.space(&ada, &org, "Guides", None).await;
    let collection = app.collection(&ada, &org, "Product", None).await;
    let cr = app.change_request(&ada, &handbook, "Clearer install").await;
    app.write(
        &ada,
        &handbook,
        &cr,
        json!([
            { "operation": "insert_page", "title": "Upgrade", "document": { "markdown": "Stop, replace, start.\n" } },
        ]),
    )
    .await
    .assert_status(200);
    let number = app
        .get(&ada, &format!("/v1/spaces/{handbook}/change-requests/{cr}"))
        .await
        .body["number"]
        .to_string();
    // A repository in GitBook's layout, with one problem: a summary entry
    // whose file is missing.
    let repo = Repo::new();
    repo.write(
        ".gitbook.yaml",
        "root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n",
    )
    .write("README.md", "# Guides\n\nStart here.\n")
    .write("setup.md", "# Setup\n\nInstall it.\n")
    .write(
        "SUMMARY.md",
        "# Table of contents\n\n* [Guides](README.md)\n* [Setup](setup.md)\n* [Missing](missing.md)\n",
    )
    .commit("Guides");
    let (provider, _provided, _provider_task) = crate::translations::provider(ProviderKind::OpenAi).await;
    app.state.app.set_translation_provider(Some(provider));
    let idp = crate::saml::start_idp().await;
    // Jobs (imports, translations, specs) run as on a server: a worker
    // polls the queue for the whole test.
    let worker = crate::support::JobWorker::start(&app);
    let spec = std::env::temp_dir().join(format!("quire-pets-{}.yaml", quire_core::id::new_id()));
    std::fs::write(&spec, crate::openapi::PETS).expect("the spec file");
    let link = quire_sign_in::links::sign_in_link_for_cli(&app.state.app, &app.base_url, "ada@example.com", None)
        .await
        .expect("a sign-in link")
        .url;
    let mut node = Command::new("node");
    node.arg("tests/admin-sites.mjs")
        .current_dir(crate::web_app::web_dir())
        .env("QUIRE_URL", &app.base_url)
        .env("QUIRE_ORG", &org)
        .env("QUIRE_SPACE", &handbook)
        .env("QUIRE_IMPORTED", &imported)
        .env("QUIRE_COLLECTION", &collection)
        .env("QUIRE_CR", &number)
        .env("QUIRE_REPO", repo.url())
        .env("QUIRE_SPEC_FILE", &spec)
        .env("QUIRE_IDP_ENTITY", &idp.entity_id)
        .env("QUIRE_IDP_SSO", &idp.sso_url)
        .env("QUIRE_IDP_CERTIFICATE", &idp.certificate)
        .env("QUIRE_LINK", link)
        .env("ARTIFACTS", artifacts("admin-sites", backend));
    let out = run_node(node, "the sites and integrations browser test").await;
    let _ = std::fs::remove_file(&spec);
    worker.stop().await;
    assert!(out.contains("ok   a collection is shared with a member"), "{out}");

    // What the screens did, read back through the API.
    let sites = app.get(&ada, &format!("/v1/orgs/{org}/sites")).await;
    let site = &sites.body["items"][0];
    assert_eq!(site["published"], true, "{site}");
    assert_eq!(site["visibility"], "visitor-auth", "{site}");
    let site_id = site["id"].as_str().expect("a site");
    let look = app
        .get(&ada, &format!("/v1/orgs/{org}/sites/{site_id}/customization"))
        .await;
    assert_eq!(look.body["title"], "Acme Docs", "{}", look.body);
    assert_eq!(
        look.body["styling"]["primaryColor"]["light"], "#aa3300",
        "{}",
        look.body
    );
    let links = app
        .get(&ada, &format!("/v1/orgs/{org}/sites/{site_id}/share-links"))
        .await;
    assert_eq!(links.body["items"][0]["name"], "Partners", "{}", links.body);
    let schema = app
        .get(&ada, &format!("/v1/orgs/{org}/sites/{site_id}/adaptive-schema"))
        .await;
    assert_eq!(
        schema.body["jsonSchema"]["properties"]["unsigned"]["properties"]["plan"]["type"], "string",
        "{}",
        schema.body
    );
    let git = app.get(&ada, &format!("/v1/spaces/{imported}/git/info")).await;
    let result = &git.body["operation"]["result"];
    assert_eq!(result["pages"], 2, "{}", git.body);
    assert!(
        result["problems"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p["path"] == "missing.md")),
        "{}",
        git.body
    );
    assert_eq!(
        app.outline(&ada, &format!("/v1/spaces/{imported}/content")).await,
        ["Guides", "Setup"]
    );
    let translations = app.get(&ada, &format!("/v1/orgs/{org}/translations")).await;
    let translation = &translations.body["items"][0];
    assert_eq!(translation["status"], "completed", "{translation}");
    let translated = translation["result"]["space"].as_str().expect("a translated space");
    let pages = app.outline(&ada, &format!("/v1/spaces/{translated}/content")).await;
    assert!(pages.iter().all(|title| title.starts_with("FR ")), "{pages:?}");
    let specs = app.get(&ada, &format!("/v1/orgs/{org}/openapi")).await;
    assert_eq!(specs.body["items"][0]["slug"], "pets");
    assert_eq!(specs.body["items"][0]["processingState"], "complete");
    let providers = app.get(&ada, &format!("/v1/orgs/{org}/saml")).await;
    assert_eq!(providers.body["items"][0]["status"], "active", "{}", providers.body);
    assert_eq!(providers.body["items"][0]["entityID"], idp.entity_id.as_str());
    let shared = app
        .get(&ada, &format!("/v1/collections/{collection}/permissions/users"))
        .await;
    assert!(
        shared
            .items()
            .iter()
            .any(|u| u["user"]["id"] == bob.id.as_str() && u["permission"] == "edit"),
        "{}",
        shared.body
    );
}

mod sites_and_integrations_are_run_from_the_browser {
    use crate::support::Backend;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::sites_and_integrations_are_run_from_the_browser(Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::sites_and_integrations_are_run_from_the_browser(Backend::Postgres).await
    }
}
