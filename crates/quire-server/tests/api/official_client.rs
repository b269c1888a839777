//! The official npm client (`@gitbook/api`) against a real Quire server:
//! `tests/official-client/smoke.mjs` drives users, organizations, invites,
//! member lists and teams through the client, `content.mjs` change
//! requests, pages, files, merges and conflicts, `search.mjs` search in a
//! space and an organization, `discussions.mjs` a threaded, resolved
//! discussion with reactions on a change request, `sites.mjs` a site of
//! two spaces with sections, customized, published, given redirects (the
//! six redirect operations, followed on the published site) and read as a
//! reader and an agent would, and `saml.mjs` (run by `saml.rs`) an identity provider
//! registered and a token from the account page used; each asserts what
//! comes back.
//!
//! The client is installed once with npm into `target/tmp/` and the script is
//! copied next to its `node_modules`, so Node resolves the ESM import there.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::support::both_backends;

const PACKAGE: &str = "@gitbook/api@0.202.0";

/// Installs the client (once per test process, reused across runs) and
/// copies the scripts beside it; returns the directory.
pub(crate) fn client_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gitbook-api-client-0.202.0");
        let installed = dir.join("node_modules/@gitbook/api/package.json");
        if !installed.exists() {
            std::fs::create_dir_all(&dir).expect("create client cache directory");
            let install = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
                .arg(&dir)
                .arg(PACKAGE)
                .output()
                .expect("run `npm install` (Node.js and npm are needed for the official client test)");
            assert!(
                install.status.success(),
                "npm install {PACKAGE} failed:\n{}{}",
                String::from_utf8_lossy(&install.stdout),
                String::from_utf8_lossy(&install.stderr)
            );
        }
        for script in [
            "harness.mjs",
            "smoke.mjs",
            "content.mjs",
            "search.mjs",
            "discussions.mjs",
            "sites.mjs",
            "saml.mjs",
        ] {
            let source = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/official-client")
                .join(script);
            std::fs::copy(&source, dir.join(script)).expect("copy the script beside the client");
        }
        dir
    })
}

/// Runs a script with node off the runtime's workers (the server under test
/// runs on them) and fails with its output unless it exits 0; its stdout.
pub(crate) async fn run_node(mut node: Command, name: &str) -> String {
    let output = tokio::task::spawn_blocking(move || node.output())
        .await
        .expect("node runner")
        .expect("run node (Node.js is needed for the official client test)");
    assert!(
        output.status.success(),
        "{name} failed ({}):\n--- stdout\n{}--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

both_backends! {
    async fn official_client_drives_orgs_members_and_teams(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob Builder").await;
        let mut node = Command::new("node");
        node.arg(client_dir().join("smoke.mjs"))
            .env("QUIRE_URL", &app.base_url)
            .env("QUIRE_TOKEN", &ada.token)
            .env("QUIRE_USER_ID", &ada.id)
            .env("QUIRE_SECOND_ID", &bob.id)
            .env("QUIRE_SECOND_EMAIL", &bob.email)
            .env("QUIRE_SECOND_TOKEN", &bob.token);
        run_node(node, "smoke.mjs").await;
    }

    async fn official_client_drives_change_requests_and_content(app: TestApp) {
        let ada = app.user("Ada").await;
        let mut node = Command::new("node");
        node.arg(client_dir().join("content.mjs")).env("QUIRE_URL", &app.base_url).env("QUIRE_TOKEN", &ada.token);
        run_node(node, "content.mjs").await;
    }

    async fn official_client_searches_a_space_and_an_organization(app: TestApp) {
        let ada = app.user("Ada").await;
        let mut node = Command::new("node");
        node.arg(client_dir().join("search.mjs")).env("QUIRE_URL", &app.base_url).env("QUIRE_TOKEN", &ada.token);
        run_node(node, "search.mjs").await;
    }

    async fn official_client_builds_and_publishes_a_site(app: TestApp) {
        let ada = app.user("Ada").await;
        let mut node = Command::new("node");
        node.arg(client_dir().join("sites.mjs")).env("QUIRE_URL", &app.base_url).env("QUIRE_TOKEN", &ada.token);
        run_node(node, "sites.mjs").await;
    }

    async fn official_client_holds_a_discussion_on_a_change_request(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob Builder").await;
        let mut node = Command::new("node");
        node.arg(client_dir().join("discussions.mjs"))
            .env("QUIRE_URL", &app.base_url)
            .env("QUIRE_TOKEN", &ada.token)
            .env("QUIRE_SECOND_TOKEN", &bob.token)
            .env("QUIRE_SECOND_ID", &bob.id)
            .env("QUIRE_SECOND_EMAIL", &bob.email);
        run_node(node, "discussions.mjs").await;
    }
}
