//! Test support: a real Quire server on 127.0.0.1 over a fresh database
//! (SQLite in a temporary directory, or a new PostgreSQL database), users
//! with API tokens, and an HTTP client whose every response is checked
//! against the official API contract.

pub mod contract;
pub mod git;

use std::sync::Arc;

use quire_adapters::{FetchConfig, Fetcher};
use quire_app::{App, accounts};
use quire_core::ManualClock;
use quire_server::AppState;
use quire_store::Db;
use reqwest::Method;
use serde_json::Value;
use tokio::sync::oneshot;

/// Runs each scenario once per backend: `name::sqlite` and `name::postgres`.
/// A scenario may start its server differently with `#[app(option, ...)]`,
/// naming [`TestAppBuilder`] methods (`#[app(deny_private_fetch)]`).
macro_rules! both_backends {
    ($($(#[doc = $doc:expr])* $(#[app($($option:ident),*)])? async fn $name:ident($app:ident: TestApp) $body:block)*) => {
        $(
            $(#[doc = $doc])*
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn scenario($app: crate::support::TestApp) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    let app = crate::support::TestApp::builder(crate::support::Backend::Sqlite)
                        $($(.$option())*)?
                        .start()
                        .await;
                    scenario(app).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    let app = crate::support::TestApp::builder(crate::support::Backend::Postgres)
                        $($(.$option())*)?
                        .start()
                        .await;
                    scenario(app).await
                }
            }
        )*
    };
}
pub(crate) use both_backends;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server tests create their databases on.
fn postgres_admin_url() -> String {
    std::env::var("QUIRE_TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

enum Storage {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { admin_url: String, database: String },
}

pub struct TestApp {
    pub base_url: String,
    pub state: AppState,
    pub db: Db,
    pub clock: ManualClock,
    client: reqwest::Client,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
    storage: Storage,
    _blob_dir: tempfile::TempDir,
}

#[derive(Debug, Clone)]
pub struct TestUser {
    pub id: String,
    pub email: String,
    pub token: String,
}

/// How a [`TestApp`] starts; [`TestApp::start`] takes the defaults.
pub struct TestAppBuilder {
    backend: Backend,
    allow_private_fetch: bool,
    public_url: Option<String>,
    settings: quire_app::Settings,
    rate_limits: quire_server::limits::RateLimits,
}

impl TestAppBuilder {
    /// Server-side fetches refuse loopback and private addresses, as in
    /// production (test servers allow them by default, since everything a
    /// test serves is on 127.0.0.1).
    pub fn deny_private_fetch(mut self) -> Self {
        self.allow_private_fetch = false;
        self
    }

    /// The server says it is reached at `https://docs.quire.test` (as
    /// behind a TLS proxy), while tests still call it on 127.0.0.1.
    pub fn behind_https(mut self) -> Self {
        self.public_url = Some("https://docs.quire.test".into());
        self
    }

    /// The operator named an `xmlsec1` command that does not exist (as on
    /// a machine without Debian's `xmlsec1`).
    pub fn without_xmlsec1(mut self) -> Self {
        self.settings.xmlsec1 = "/nonexistent/xmlsec1".into();
        self
    }

    /// Requests are limited to a few a minute (none by default): 5 per
    /// token, 3 per address without valid credentials, 4 per address on
    /// sites, 2 sign-ins per address.
    pub fn tight_rate_limits(mut self) -> Self {
        self.rate_limits = quire_server::limits::RateLimits {
            per_token: 5,
            per_address: 3,
            sites_per_address: 4,
            sign_in_per_address: 2,
        };
        self
    }

    /// People may sign in with this OpenID provider.
    pub fn oidc(mut self, settings: quire_app::settings::OidcSettings) -> Self {
        self.settings.oidc = Some(settings);
        self
    }

    pub async fn start(self) -> TestApp {
        TestApp::start_with(self).await
    }
}

impl TestApp {
    pub fn builder(backend: Backend) -> TestAppBuilder {
        TestAppBuilder {
            backend,
            allow_private_fetch: true,
            public_url: None,
            settings: quire_app::Settings::default(),
            rate_limits: quire_server::limits::RateLimits::OFF,
        }
    }

    pub async fn start(backend: Backend) -> TestApp {
        TestApp::builder(backend).start().await
    }

    async fn start_with(options: TestAppBuilder) -> TestApp {
        let (url, storage) = match options.backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temporary directory");
                (Db::sqlite_url_for_dir(dir.path()), Storage::Sqlite(dir))
            }
            Backend::Postgres => {
                let admin_url = postgres_admin_url();
                let database = format!("quire_test_{}", quire_core::id::random_alphanumeric(16).to_lowercase());
                let admin = Db::connect(&admin_url).await.unwrap_or_else(|e| {
                    panic!(
                        "PostgreSQL is required for the postgres tests and was not reachable at {admin_url} \
                         (set QUIRE_TEST_POSTGRES_URL): {e}"
                    )
                });
                admin
                    .execute_raw(&format!("CREATE DATABASE {database}"))
                    .await
                    .expect("create test database");
                admin.close().await;
                let (base, _) = admin_url.rsplit_once('/').expect("database URL has a path");
                (format!("{base}/{database}"), Storage::Postgres { admin_url, database })
            }
        };
        let db = Db::open(&url).await.expect("open and migrate the test database");
        let blob_dir = tempfile::tempdir().expect("temporary blob directory");
        let blobs = quire_store::blobs::BlobStore::Local(blob_dir.path().to_owned());
        let clock = ManualClock::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
        let base_url = format!("http://{}", listener.local_addr().expect("local address"));
        let fetcher = Fetcher::new(FetchConfig {
            allow_private_networks: options.allow_private_fetch,
            connect_timeout: std::time::Duration::from_secs(5),
            timeout: std::time::Duration::from_secs(10),
            ..FetchConfig::default()
        })
        .expect("fetch client");
        let app = App::with_settings(db.clone(), blobs, fetcher, Arc::new(clock.clone()), options.settings);
        let state = AppState {
            limiter: Arc::new(quire_server::limits::Limiter::new(options.rate_limits)),
            metrics: true,
            ..AppState::new(app, options.public_url.as_deref().unwrap_or(&base_url))
        };
        let (shutdown, server) = serve(listener, &state);
        TestApp {
            base_url,
            state,
            db,
            clock,
            client: reqwest::Client::new(),
            shutdown: Some(shutdown),
            server: Some(server),
            storage,
            _blob_dir: blob_dir,
        }
    }

    /// A user with an API token, created the way `quire token create` does.
    pub async fn user(&self, name: &str) -> TestUser {
        let email = format!("{}@example.com", name.to_lowercase().replace(' ', "."));
        let user = accounts::ensure_user(&self.state.app, &email, name)
            .await
            .expect("create user");
        let token = accounts::create_token(&self.state.app, &user.id, None)
            .await
            .expect("create token");
        TestUser {
            id: user.id,
            email,
            token,
        }
    }

    /// Runs the background jobs that are due now (the server under test runs
    /// no worker of its own, so tests decide when jobs run).
    pub async fn run_due_jobs(&self) -> usize {
        let registry = quire_server::features::job_registry();
        quire_app::jobs::run_due(&self.state.app, &registry, "test-worker")
            .await
            .expect("jobs run")
    }

    /// The newest job of `kind`: its state, result (JSON) and last error.
    pub async fn latest_job(&self, kind: &str) -> (String, Value, Option<String>) {
        let mut conn = self.state.app.db.read().await.expect("a connection");
        let (state, result, error) = quire_store::jobs::latest(&mut conn, kind)
            .await
            .expect("read jobs")
            .unwrap_or_else(|| panic!("no {kind} job"));
        let result = result
            .map(|r| serde_json::from_str(&r).expect("JSON result"))
            .unwrap_or(Value::Null);
        (state, result, error)
    }

    /// Starts a request to `path` (which starts with `/v1`).
    pub fn request(&self, method: Method, path: &str) -> TestRequest<'_> {
        TestRequest {
            app: self,
            method,
            path: path.to_owned(),
            token: None,
            body: None,
            raw: None,
            content_type: Some("application/json".into()),
        }
    }

    pub async fn get(&self, user: &TestUser, path: &str) -> TestResponse {
        self.request(Method::GET, path).as_user(user).send().await
    }

    pub async fn post(&self, user: &TestUser, path: &str, body: Value) -> TestResponse {
        self.request(Method::POST, path).as_user(user).json(body).send().await
    }

    pub async fn put(&self, user: &TestUser, path: &str, body: Value) -> TestResponse {
        self.request(Method::PUT, path).as_user(user).json(body).send().await
    }

    pub async fn patch(&self, user: &TestUser, path: &str, body: Value) -> TestResponse {
        self.request(Method::PATCH, path).as_user(user).json(body).send().await
    }

    pub async fn delete(&self, user: &TestUser, path: &str) -> TestResponse {
        self.request(Method::DELETE, path).as_user(user).send().await
    }

    /// Creates an organization owned (as admin) by `owner`; returns its id.
    pub async fn org(&self, owner: &TestUser, title: &str) -> String {
        let res = self
            .post(owner, "/v1/orgs", serde_json::json!({ "title": title }))
            .await;
        res.assert_status(201);
        res.id()
    }

    /// Creates a space in `org_id` (inside `parent` when given); returns its id.
    pub async fn space(&self, user: &TestUser, org_id: &str, title: &str, parent: Option<&str>) -> String {
        let mut body = serde_json::json!({ "title": title });
        if let Some(parent) = parent {
            body["parent"] = parent.into();
        }
        let res = self.post(user, &format!("/v1/orgs/{org_id}/spaces"), body).await;
        res.assert_status(201);
        res.id()
    }

    /// Creates a collection in `org_id` (inside `parent` when given); returns its id.
    pub async fn collection(&self, user: &TestUser, org_id: &str, title: &str, parent: Option<&str>) -> String {
        let mut body = serde_json::json!({ "title": title });
        if let Some(parent) = parent {
            body["parent"] = parent.into();
        }
        let res = self.post(user, &format!("/v1/orgs/{org_id}/collections"), body).await;
        res.assert_status(201);
        res.id()
    }

    /// Opens a change request on the space; returns its id.
    pub async fn change_request(&self, user: &TestUser, space: &str, subject: &str) -> String {
        let res = self
            .post(
                user,
                &format!("/v1/spaces/{space}/change-requests"),
                serde_json::json!({ "subject": subject }),
            )
            .await;
        res.assert_status(201);
        res.id()
    }

    /// Sends a batch of content changes to a change request.
    pub async fn write(&self, user: &TestUser, space: &str, cr: &str, changes: Value) -> TestResponse {
        self.post(
            user,
            &format!("/v1/spaces/{space}/change-requests/{cr}/content"),
            serde_json::json!({ "changes": changes }),
        )
        .await
    }

    /// The markdown of a page of the space's current content.
    pub async fn markdown(&self, user: &TestUser, space: &str, page: &str) -> String {
        let res = self
            .get(user, &format!("/v1/spaces/{space}/content/page/{page}?format=markdown"))
            .await;
        res.assert_status(200);
        res.body["markdown"].as_str().expect("markdown").to_owned()
    }

    /// Titles of the space's pages in tree order (depth-first), indented by depth.
    pub async fn outline(&self, user: &TestUser, path: &str) -> Vec<String> {
        fn walk(pages: &Value, depth: usize, out: &mut Vec<String>) {
            for page in pages.as_array().into_iter().flatten() {
                out.push(format!(
                    "{}{}",
                    "  ".repeat(depth),
                    page["title"].as_str().unwrap_or("?")
                ));
                walk(&page["pages"], depth + 1, out);
            }
        }
        let res = self.get(user, path).await;
        res.assert_status(200);
        let mut out = Vec::new();
        walk(&res.body["pages"], 0, &mut out);
        out
    }

    /// The ids of a list response's items, in order.
    pub async fn ids(&self, user: &TestUser, path: &str) -> Vec<String> {
        let res = self.get(user, path).await;
        res.assert_status(200);
        res.items()
            .iter()
            .map(|i| i["id"].as_str().expect("item id").to_owned())
            .collect()
    }

    /// Applies `changes` to the space's main content through a merged
    /// change request; returns the page ids by `ref`.
    pub async fn publish(&self, user: &TestUser, space: &str, changes: serde_json::Value) -> serde_json::Value {
        let cr = self.change_request(user, space, "Edits").await;
        let res = self
            .post(
                user,
                &format!("/v1/spaces/{space}/change-requests/{cr}/content?compat=false"),
                serde_json::json!({ "changes": changes }),
            )
            .await;
        res.assert_status(200);
        self.post(
            user,
            &format!("/v1/spaces/{space}/change-requests/{cr}/merge"),
            serde_json::json!(null),
        )
        .await
        .assert_status(200);
        let mut ids = serde_json::json!({});
        for change in res.body["changes"].as_array().into_iter().flatten() {
            if let Some(name) = change["ref"].as_str() {
                ids[name] = change["page"]["id"].clone();
            }
        }
        ids
    }

    /// Makes `user` a member of `org_id` with `role` (a role name or JSON
    /// null): `admin` invites them and they accept (a member already is
    /// left as they are).
    pub async fn add_member(&self, admin: &TestUser, org_id: &str, user: &TestUser, role: Value) {
        let res = self
            .post(
                admin,
                &format!("/v1/orgs/{org_id}/invites"),
                serde_json::json!({ "emails": [{ "email": user.email, "role": role }] }),
            )
            .await;
        res.assert_status(200);
        // Someone already a member is not invited again.
        if res.body["invited"] != 0 {
            self.accept_invitation(user, org_id).await;
        }
    }

    /// `user` accepts their invitation into `org_id`.
    pub async fn accept_invitation(&self, user: &TestUser, org_id: &str) {
        let invitations = self.get(user, "/v1/user/invites").await;
        invitations.assert_status(200);
        let invitation = invitations
            .items()
            .iter()
            .find(|i| i["organization"]["id"] == org_id)
            .unwrap_or_else(|| panic!("no invitation into {org_id} for {}: {}", user.email, invitations.body))
            .clone();
        let id = invitation["id"].as_str().expect("invitation id");
        self.post(user, &format!("/v1/orgs/{org_id}/invites/{id}"), serde_json::json!({}))
            .await
            .assert_status(200);
    }
}

/// Serves `state` on `listener` until the returned sender is used (or
/// dropped).
fn serve(listener: tokio::net::TcpListener, state: &AppState) -> (oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let (shutdown, stop) = oneshot::channel::<()>();
    let served = state.clone();
    let server = tokio::spawn(async move {
        quire_server::serve(listener, served, async {
            let _ = stop.await;
        })
        .await
        .expect("server runs");
    });
    (shutdown, server)
}

/// Another node of the same deployment: its own server, pool and bus on
/// the first node's PostgreSQL database and blob directory.
pub struct Node {
    pub base_url: String,
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
}

impl TestApp {
    pub async fn second_node(&self) -> Node {
        let Storage::Postgres { admin_url, database } = &self.storage else {
            panic!("nodes share a PostgreSQL database");
        };
        let (base, _) = admin_url.rsplit_once('/').expect("database URL has a path");
        let db = Db::open(&format!("{base}/{database}"))
            .await
            .expect("the second node's database");
        let blobs = quire_store::blobs::BlobStore::Local(self._blob_dir.path().to_owned());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
        let base_url = format!("http://{}", listener.local_addr().expect("local address"));
        let fetcher = Fetcher::new(FetchConfig::default()).expect("fetch client");
        let app = App::with_clock(db, blobs, fetcher, Arc::new(self.clock.clone()));
        let state = AppState {
            limiter: Arc::new(quire_server::limits::Limiter::new(self.state.limiter.limits())),
            ..AppState::new(app, &base_url)
        };
        let (shutdown, server) = serve(listener, &state);
        Node {
            base_url,
            state,
            shutdown: Some(shutdown),
            server: Some(server),
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(server) = self.server.take() {
            server.abort();
        }
        if let Storage::Postgres { admin_url, database } = &self.storage {
            // Dropping the database needs async I/O and every connection
            // closed; do it on a thread of its own so Drop can wait for it.
            let (admin_url, database, db) = (admin_url.clone(), database.clone(), self.db.clone());
            let _ = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                runtime.block_on(async move {
                    db.close().await;
                    if let Ok(admin) = Db::connect(&admin_url).await {
                        let _ = admin
                            .execute_raw(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
                            .await;
                        admin.close().await;
                    }
                });
            })
            .join();
        }
    }
}

pub struct TestRequest<'a> {
    app: &'a TestApp,
    method: Method,
    path: String,
    token: Option<String>,
    body: Option<Value>,
    raw: Option<Vec<u8>>,
    /// `None`: no `Content-Type` header at all.
    content_type: Option<String>,
}

impl TestRequest<'_> {
    /// Sends the request with `user`'s token (a builder step, hence `self`).
    #[allow(clippy::wrong_self_convention)]
    pub fn as_user(mut self, user: &TestUser) -> Self {
        self.token = Some(user.token.clone());
        self
    }

    pub fn token(mut self, token: &str) -> Self {
        self.token = Some(token.to_owned());
        self
    }

    pub fn json(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    /// A body sent as is (for malformed-input tests).
    pub fn raw_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.raw = Some(body.into());
        self
    }

    /// Sends the body with this `Content-Type` (JSON by default).
    pub fn content_type(mut self, value: &str) -> Self {
        self.content_type = Some(value.to_owned());
        self
    }

    /// Sends no `Content-Type` header.
    pub fn no_content_type(mut self) -> Self {
        self.content_type = None;
        self
    }

    /// Sends the request and checks the response against the contract.
    pub async fn send(self) -> TestResponse {
        let url = format!("{}{}", self.app.base_url, self.path);
        let mut req = self.app.client.request(self.method.clone(), &url);
        if let Some(token) = &self.token {
            req = req.bearer_auth(token);
        }
        if let Some(content_type) = &self.content_type {
            req = req.header("content-type", content_type);
        }
        if let Some(body) = &self.body {
            req = req.body(body.to_string());
        }
        if let Some(raw) = self.raw {
            req = req.body(raw);
        }
        let res = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("{} {url}: {e}", self.method));
        let status = res.status().as_u16();
        let text = res.text().await.expect("response body");
        let body: Value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} {}: body is not JSON ({e}): {text}", self.method, self.path))
        };
        let path = self.path.split('?').next().unwrap_or_default();
        contract::contract().check(self.method.as_str(), path, status, &body);
        TestResponse {
            status,
            body,
            method: self.method,
            path: self.path,
        }
    }
}

#[derive(Debug)]
pub struct TestResponse {
    pub status: u16,
    pub body: Value,
    method: Method,
    path: String,
}

impl TestResponse {
    #[track_caller]
    pub fn assert_status(&self, status: u16) -> &Self {
        assert_eq!(
            self.status, status,
            "{} {}: expected {status}, got {} with {}",
            self.method, self.path, self.status, self.body
        );
        self
    }

    /// The `id` field of the body.
    #[track_caller]
    pub fn id(&self) -> String {
        self.body["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no id in {}", self.body))
            .to_owned()
    }

    /// The `items` of a list body.
    #[track_caller]
    pub fn items(&self) -> &Vec<Value> {
        self.body["items"]
            .as_array()
            .unwrap_or_else(|| panic!("not a list: {}", self.body))
    }

    /// The `next.page` cursor of a list body, if any.
    pub fn next_page(&self) -> Option<String> {
        self.body
            .pointer("/next/page")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// The ids of the users whose email the body shows, anywhere in it
    /// (sorted, once each): every user view with an `email`.
    pub fn emails_shown(&self) -> Vec<String> {
        fn walk(value: &Value, out: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    if map.get("object").and_then(Value::as_str) == Some("user") && map.contains_key("email") {
                        out.push(map["id"].as_str().unwrap_or_default().to_owned());
                    }
                    map.values().for_each(|v| walk(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out.sort();
        out.dedup();
        out
    }

    /// The error message of an error body.
    pub fn message(&self) -> &str {
        self.body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// A job worker polling the queue every 100 ms, as on a server, until
/// [`JobWorker::stop`] (jobs such as imports and exports run by
/// themselves while a browser test drives the app).
pub struct JobWorker {
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl JobWorker {
    pub fn start(app: &TestApp) -> JobWorker {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(quire_app::jobs::work(
            app.state.app.clone(),
            Arc::new(quire_server::features::job_registry()),
            quire_app::jobs::Workers {
                poll_interval: std::time::Duration::from_millis(100),
                ..quire_app::jobs::Workers::default()
            },
            async {
                let _ = stopped.await;
            },
        ));
        JobWorker { stop, task }
    }

    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}
