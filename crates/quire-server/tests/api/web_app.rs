//! The web application in a real browser, on each backend: Debian's
//! Chromium driven by playwright-core through `web/tests/e2e.mjs` (see its
//! header for what it covers), against a Quire server whose OpenID provider
//! is the certified `oidc-provider` (see `oidc`). The application's
//! packages are installed with `npm ci` from `web/package-lock.json` when
//! missing; screenshots of every screen land in
//! `target/browser-artifacts/web-app/<backend>/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::json;

use crate::official_client::run_node;
use crate::oidc::{free_port, quire, start_provider};
use crate::support::Backend;

/// `web/` with its packages installed (once per run).
pub(crate) fn web_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
        if !dir.join("node_modules/playwright-core/package.json").exists() {
            let out = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&dir)
                .output()
                .expect("run `npm ci` in web/ (Node.js and npm are needed for the browser test)");
            assert!(
                out.status.success(),
                "npm ci in web/ failed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        dir
    })
}

async fn the_web_app_in_chromium(backend: Backend) {
    let port = free_port();
    let app = quire(backend, port, &[]).await;
    let grace =
        json!({ "sub": "grace-1", "email": "grace@example.com", "email_verified": true, "name": "Grace Hopper" });
    let _provider = start_provider(port, &app.base_url, &grace);
    let link = quire_sign_in::links::sign_in_link_for_cli(
        &app.state.app,
        &app.base_url,
        "ada@example.com",
        Some("Ada Lovelace"),
    )
    .await
    .expect("a sign-in link");
    // Real content for the editor: a repository in GitBook's Git Sync
    // format (every kind of block GitBook writes), imported into a space of
    // Ada's.
    let ada = app.user("Ada").await;
    let org = app.org(&ada, "GitBook docs").await;
    let real = app.space(&ada, &org, "Widgets", None).await;
    let repo = crate::gitbook_fidelity::gitbook_written_repo();
    crate::git_sync::import(
        &app,
        &ada,
        &real,
        json!({ "url": repo.url(), "ref": "refs/heads/main" }),
    )
    .await;
    let name = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let artifacts =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/browser-artifacts/web-app/{name}"));
    let mut node = Command::new("node");
    node.arg("tests/e2e.mjs")
        .current_dir(web_dir())
        .env("QUIRE_URL", &app.base_url)
        .env("QUIRE_LINK", &link.url)
        .env("QUIRE_EMAIL", "ada@example.com")
        .env("QUIRE_REAL_SPACE", &real)
        .env("QUIRE_OIDC_NAME", "Test IdP")
        .env("QUIRE_OIDC_EMAIL", "grace@example.com")
        .env("ARTIFACTS", &artifacts);
    let out = run_node(node, "the web application's browser test").await;
    assert!(
        out.contains("ok   a review is requested, given with a comment and an approval"),
        "{out}"
    );
}

mod the_web_app_in_chromium {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::the_web_app_in_chromium(crate::support::Backend::Sqlite).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::the_web_app_in_chromium(crate::support::Backend::Postgres).await
    }
}

/// The web application's pure modules (`web/tests/*.test.mjs`: the review
/// screen's block, word and line diffs) under Node's own test runner.
#[test]
fn the_web_apps_unit_tests_pass() {
    let tests: Vec<String> = std::fs::read_dir(web_dir().join("tests"))
        .expect("web/tests")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".test.mjs"))
        .map(|name| format!("tests/{name}"))
        .collect();
    assert!(!tests.is_empty(), "no unit test found in web/tests");
    let out = Command::new("node")
        .arg("--test")
        .args(&tests)
        .current_dir(web_dir())
        .output()
        .expect("run node --test");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains("# fail 0"), "{report}");
}
