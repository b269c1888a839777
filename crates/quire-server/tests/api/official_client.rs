//! The official npm client (`@gitbook/api`) against a real Quire server:
//! `tests/official-client/smoke.mjs` drives users, organizations, invites,
//! member lists and teams through the client and asserts what comes back.
//!
//! The client is installed once with npm into `target/tmp/` and the script is
//! copied next to its `node_modules`, so Node resolves the ESM import there.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::support::both_backends;

const PACKAGE: &str = "@gitbook/api@0.202.0";

/// Installs the client (once per test process, reused across runs) and
/// copies the smoke script beside it; returns the script's path.
fn smoke_script() -> &'static Path {
    static SCRIPT: OnceLock<PathBuf> = OnceLock::new();
    SCRIPT.get_or_init(|| {
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
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/official-client/smoke.mjs");
        let script = dir.join("smoke.mjs");
        std::fs::copy(&source, &script).expect("copy the smoke script beside the client");
        script
    })
}

both_backends! {
    async fn official_client_drives_orgs_members_and_teams(app: TestApp) {
        let ada = app.user("Ada").await;
        let bob = app.user("Bob Builder").await;
        let script = smoke_script();

        let mut node = Command::new("node");
        node.arg(script)
            .env("QUIRE_URL", &app.base_url)
            .env("QUIRE_TOKEN", &ada.token)
            .env("QUIRE_USER_ID", &ada.id)
            .env("QUIRE_SECOND_ID", &bob.id)
            .env("QUIRE_SECOND_EMAIL", &bob.email);
        // The server runs on this runtime: wait for node off its workers.
        let output = tokio::task::spawn_blocking(move || node.output())
            .await
            .expect("node runner")
            .expect("run node (Node.js is needed for the official client test)");
        assert!(
            output.status.success(),
            "smoke.mjs failed ({}):\n--- stdout\n{}--- stderr\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
