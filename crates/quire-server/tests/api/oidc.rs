//! Signing in with OpenID Connect against a real, certified provider: the
//! `oidc-provider` npm package (`tests/oidc-provider/`, installed with
//! `npm ci` from its lockfile into `target/tmp/`), which logs one account
//! in at once. The whole authorization code flow runs over HTTP: Quire's
//! redirect, the provider's login and consent, the code exchange with the
//! client secret and PKCE, the ID token's signature checked against the
//! provider's keys.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use quire_app::settings::OidcSettings;
use serde_json::{Value, json};

use crate::sign_in::Browser;
use crate::support::{Backend, TestApp};

pub(crate) const CLIENT_ID: &str = "quire";
pub(crate) const CLIENT_SECRET: &str = "a-client-secret-long-enough-for-hs256-use";

/// The provider's folder with its packages installed (once per run).
fn provider_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oidc-provider");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oidc-provider");
        std::fs::create_dir_all(&dir).expect("a folder for the provider");
        let mut changed = false;
        for file in ["package.json", "package-lock.json", "provider.mjs"] {
            let bytes = std::fs::read(source.join(file)).expect("the provider's files");
            if std::fs::read(dir.join(file)).ok().as_deref() != Some(bytes.as_slice()) {
                std::fs::write(dir.join(file), bytes).expect("copy the provider");
                changed = true;
            }
        }
        if changed || !dir.join("node_modules/oidc-provider/package.json").exists() {
            let out = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&dir)
                .output()
                .expect("run `npm ci` (Node.js and npm are needed for the OpenID provider)");
            assert!(
                out.status.success(),
                "npm ci failed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        dir
    })
}

/// A running provider, stopped when dropped.
pub(crate) struct Provider(Child);

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Starts the provider on `port` for Quire at `base_url`, logging in as
/// `account` (its claims).
pub(crate) fn start_provider(port: u16, base_url: &str, account: &Value) -> Provider {
    let mut child = Command::new("node")
        .arg("provider.mjs")
        .current_dir(provider_dir())
        .env("PORT", port.to_string())
        .env("OIDC_ACCOUNT", account.to_string())
        .env("OIDC_CLIENT_ID", CLIENT_ID)
        .env("OIDC_CLIENT_SECRET", CLIENT_SECRET)
        .env("OIDC_REDIRECT_URI", format!("{base_url}/auth/oidc/callback"))
        .stdout(Stdio::piped())
        // Its start-up warnings (an in-memory store, development keys) are
        // what a test provider is.
        .stderr(Stdio::null())
        .spawn()
        .expect("start node");
    let stdout = child.stdout.take().expect("its output");
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).expect("read its output");
    assert!(
        line.starts_with("ready "),
        "the OpenID provider did not start: {line:?}"
    );
    // Its later notices go on stdout: keep reading, or it dies of a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    Provider(child)
}

/// Quire configured for the provider on `port`.
pub(crate) async fn quire(backend: Backend, port: u16, allowed_domains: &[&str]) -> TestApp {
    TestApp::builder(backend)
        .oidc(OidcSettings {
            issuer: format!("http://127.0.0.1:{port}"),
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
            name: "Test IdP".into(),
            allowed_domains: allowed_domains.iter().map(|d| d.to_string()).collect(),
            trust_email: false,
        })
        .start()
        .await
}

/// Goes through the whole flow: where the browser lands and the answer.
async fn sign_in(browser: &mut Browser, return_to: &str) -> (String, Value) {
    let (url, answer) = browser.follow(&format!("/auth/oidc/start?returnTo={return_to}")).await;
    (url, answer.body)
}

async fn a_verified_person_signs_in_and_keeps_their_account(backend: Backend) {
    let port = free_port();
    let app = quire(backend, port, &[]).await;
    let account = json!({ "sub": "ada-1", "email": "ada@example.com", "email_verified": true, "name": "Ada Lovelace" });
    let _provider = start_provider(port, &app.base_url, &account);

    // Invited before she ever signed in: she joins on the way.
    let admin = app.user("Admin").await;
    let org = app.org(&admin, "Docs").await;
    app.post(
        &admin,
        &format!("/v1/orgs/{org}/invites"),
        json!({ "emails": ["ada@example.com"] }),
    )
    .await
    .assert_status(200);

    let mut browser = Browser::new(&app.base_url);
    let methods = browser.get("/auth/methods").await.expect(200);
    assert_eq!(methods.body["oidc"]["name"], "Test IdP");
    assert_eq!(
        methods.body["oidc"]["redirectUri"],
        format!("{}/auth/oidc/callback", app.base_url)
    );
    let (landed, _) = sign_in(&mut browser, "/o/somewhere").await;
    assert_eq!(
        landed,
        format!("{}/o/somewhere", app.base_url),
        "back where she was going"
    );
    let session = browser.get("/auth/session").await.expect(200);
    assert_eq!(session.body["method"], "oidc");
    assert_eq!(session.body["user"]["displayName"], "Ada Lovelace");
    assert_eq!(session.body["user"]["email"], "ada@example.com");
    let orgs = browser.get("/v1/orgs").await.expect(200);
    assert_eq!(orgs.body["items"][0]["id"], org.as_str());

    // Again, in another browser: the same person (by the provider's subject).
    let mut other = Browser::new(&app.base_url);
    sign_in(&mut other, "/").await;
    let again = other.get("/auth/session").await.expect(200);
    assert_eq!(again.body["user"]["id"], session.body["user"]["id"]);

    // The callback is used once: replaying it signs nobody in.
    let mut thief = Browser::new(&app.base_url);
    let start = thief.get("/auth/oidc/start").await.expect(303);
    let authorize = start.headers["location"].to_str().expect("a Location").to_owned();
    assert!(authorize.contains("code_challenge_method=S256"), "{authorize}");
    assert!(
        !authorize.contains(CLIENT_SECRET),
        "the secret never goes through the browser"
    );
    let forged = thief
        .get("/auth/oidc/callback?code=made-up&state=made-up")
        .await
        .expect(303);
    let to = forged.headers["location"].to_str().expect("a Location");
    assert!(to.starts_with("/sign-in?error="), "{to}");
    assert!(!thief.cookies.contains_key("quire_session"));
}

async fn unverified_or_unallowed_emails_get_no_account(backend: Backend) {
    let port = free_port();
    let app = quire(backend, port, &["example.com"]).await;
    {
        let account = json!({ "sub": "eve-1", "email": "eve@example.com", "email_verified": false, "name": "Eve" });
        let _provider = start_provider(port, &app.base_url, &account);
        let mut browser = Browser::new(&app.base_url);
        let (landed, _) = sign_in(&mut browser, "/").await;
        assert!(landed.contains("/sign-in?error="), "{landed}");
        assert!(landed.contains("not%20verified"), "{landed}");
        assert!(!browser.cookies.contains_key("quire_session"));
    }
    let port2 = free_port();
    let app2 = quire(backend, port2, &["example.com"]).await;
    let account = json!({ "sub": "mallory-1", "email": "mallory@elsewhere.test", "email_verified": true });
    let _provider = start_provider(port2, &app2.base_url, &account);
    let mut browser = Browser::new(&app2.base_url);
    let (landed, _) = sign_in(&mut browser, "/").await;
    assert!(landed.contains("cannot%20be%20created"), "{landed}");
    browser.get("/auth/session").await.expect(401);
    drop(app);
}

macro_rules! on_both_backends {
    ($($name:ident),*) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name(crate::support::Backend::Sqlite).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name(crate::support::Backend::Postgres).await
                }
            }
        )*
    };
}

on_both_backends!(
    a_verified_person_signs_in_and_keeps_their_account,
    unverified_or_unallowed_emails_get_no_account
);
