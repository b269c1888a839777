//! The `quire` binary as a user runs it: `token create` on a fresh data
//! directory (or database), `serve`, and `token create` again while the
//! server runs on the same data, whose token the server then accepts.

use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_quire");

/// A `quire serve` child process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn quire(args: &[&str], storage: &[String]) -> Output {
    Command::new(BIN)
        .args(args)
        .args(storage)
        .output()
        .expect("run the quire binary")
}

/// The token `quire token create` printed as its last stdout line.
fn token_create(email: &str, storage: &[String]) -> String {
    let out = quire(&["token", "create", "--email", email, "--name", "CLI User"], storage);
    assert!(
        out.status.success(),
        "token create failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    let token = stdout.lines().last().expect("a line on stdout").trim().to_owned();
    assert!(token.starts_with("quire_"), "unexpected token line {token:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains(&token),
        "the token must never be logged"
    );
    token
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind port 0")
        .local_addr()
        .expect("address")
        .port()
}

/// Starts `quire serve` and waits (bounded) until `/health` answers 200.
fn serve(storage: &[String]) -> (Server, String) {
    serve_with(storage, &[], Stdio::null())
}

/// Starts `quire serve` with extra environment variables and its logs
/// (stderr) going to `logs`.
fn serve_with(storage: &[String], env: &[(&str, &str)], logs: Stdio) -> (Server, String) {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let child = Command::new(BIN)
        .args(["serve", "--listen", &listen])
        .args(storage)
        .envs(env.iter().copied())
        .env_remove("QUIRE_LOG")
        .stdout(Stdio::null())
        .stderr(logs)
        .spawn()
        .expect("start quire serve");
    let server = Server(child);
    let base = format!("http://{listen}");
    let client = reqwest::blocking::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if client
            .get(format!("{base}/health"))
            .send()
            .is_ok_and(|r| r.status() == 200)
        {
            return (server, base);
        }
        assert!(
            Instant::now() < deadline,
            "quire serve did not become healthy on {listen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn scenario(storage: &[String]) {
    let first = token_create("first@example.com", storage);
    let again = token_create("first@example.com", storage);
    assert_ne!(first, again, "each call issues a new token");

    let migrate = quire(&["migrate"], storage);
    assert!(
        migrate.status.success(),
        "migrate failed: {}",
        String::from_utf8_lossy(&migrate.stderr)
    );

    let (_server, base) = serve(storage);
    let second = token_create("second@example.com", storage);
    let client = reqwest::blocking::Client::new();
    for (token, email) in [
        (&first, "first@example.com"),
        (&again, "first@example.com"),
        (&second, "second@example.com"),
    ] {
        let res = client
            .get(format!("{base}/v1/user"))
            .bearer_auth(token)
            .send()
            .expect("GET /v1/user");
        assert_eq!(res.status(), 200);
        let me: serde_json::Value = res.json().expect("JSON body");
        assert_eq!(me["email"], email);
    }
    let res = client
        .get(format!("{base}/v1/user"))
        .bearer_auth("quire_wrong")
        .send()
        .expect("GET /v1/user");
    assert_eq!(res.status(), 401);

    // A member of an organization that enforces single sign-on gets tokens
    // through it, not here, unless the operator insists.
    let org: serde_json::Value = client
        .post(format!("{base}/v1/orgs"))
        .bearer_auth(&second)
        .json(&serde_json::json!({ "title": "Strict" }))
        .send()
        .and_then(|r| r.json())
        .expect("an organization");
    let org = org["id"].as_str().expect("its id");
    let res = client
        .patch(format!("{base}/v1/orgs/{org}"))
        .bearer_auth(&second)
        .json(&serde_json::json!({ "sso": true }))
        .send()
        .expect("PATCH the organization");
    assert_eq!(res.status(), 200);
    let refused = quire(
        &["token", "create", "--email", "second@example.com", "--name", "CLI User"],
        storage,
    );
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("Strict enforces single sign-on"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let bypass = quire(
        &[
            "token",
            "create",
            "--email",
            "second@example.com",
            "--name",
            "CLI User",
            "--bypass-sso",
        ],
        storage,
    );
    assert!(bypass.status.success(), "{}", String::from_utf8_lossy(&bypass.stderr));
}

#[test]
fn cli_on_sqlite() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let data = dir.path().join("fresh-data-dir");
    scenario(&["--data-dir".to_owned(), data.display().to_string()]);
}

/// Runs one administrative statement on the PostgreSQL server.
fn admin_sql(admin: &str, sql: String) -> Result<(), quire_store::StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let db = quire_store::Db::connect(admin)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL is needed for this test and was not reachable at {admin}: {e}"));
        let result = db.execute_raw(&sql).await;
        db.close().await;
        result
    })
}

#[test]
fn cli_on_postgres() {
    let admin = std::env::var("QUIRE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let database = format!("quire_cli_{}", quire_core::id::random_alphanumeric(12).to_lowercase());
    admin_sql(&admin, format!("CREATE DATABASE {database}")).expect("create the test database");
    let (base, _) = admin.rsplit_once('/').expect("database URL has a path");
    let dir = tempfile::tempdir().expect("temporary directory");
    let result = std::panic::catch_unwind(|| {
        scenario(&[
            "--database-url".to_owned(),
            format!("{base}/{database}"),
            "--data-dir".to_owned(),
            dir.path().display().to_string(),
        ])
    });
    let _ = admin_sql(&admin, format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"));
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// The logs of a server that answered one authenticated request, read once
/// it has stopped. Stderr is a file here, never a terminal.
fn logs_of_one_request(format: Option<&str>) -> String {
    let dir = tempfile::tempdir().expect("temporary directory");
    let storage = ["--data-dir".to_owned(), dir.path().join("data").display().to_string()];
    let token = token_create("logs@example.com", &storage);
    let log_path = dir.path().join("stderr.log");
    let log_file = std::fs::File::create(&log_path).expect("create the log file");
    let env: Vec<(&str, &str)> = format.map(|f| ("QUIRE_LOG_FORMAT", f)).into_iter().collect();
    let (server, base) = serve_with(&storage, &env, Stdio::from(log_file));
    let res = reqwest::blocking::Client::new()
        .get(format!("{base}/v1/user"))
        .bearer_auth(&token)
        .send()
        .expect("GET /v1/user");
    assert_eq!(res.status(), 200);
    drop(server);
    let logs = std::fs::read_to_string(&log_path).expect("read the logs");
    assert!(!logs.contains(&token), "the token must never be logged");
    logs
}

#[test]
fn logs_are_plain_text_when_stderr_is_not_a_terminal() {
    let logs = logs_of_one_request(None);
    assert!(logs.contains("quire is listening"), "{logs}");
    assert!(!logs.contains('\u{1b}'), "ANSI escape codes in piped logs:\n{logs}");
    let request = logs
        .lines()
        .find(|l| l.contains("/v1/user") && l.contains("status=200"))
        .expect("a request line");
    let latency = request
        .split("latency_ms=")
        .nth(1)
        .expect("latency_ms")
        .split_whitespace()
        .next()
        .unwrap_or_default();
    assert!(
        latency.parse::<f64>().is_ok_and(|ms| ms >= 0.0 && latency.len() <= 12),
        "latency {latency:?} in {request}"
    );
}

#[test]
fn json_logs_are_one_object_per_line() {
    let logs = logs_of_one_request(Some("json"));
    let lines: Vec<serde_json::Value> = logs
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    assert!(lines.iter().any(|l| l["message"] == "quire is listening"), "{logs}");
    let request = lines
        .iter()
        .find(|l| l["status"] == 200 && l["span"]["path"] == "/v1/user")
        .unwrap_or_else(|| panic!("no request line in {logs}"));
    assert!(request["latency_ms"].is_f64(), "{request}");
    assert!(request["span"]["id"].is_string(), "{request}");
}

#[test]
fn an_unknown_log_format_is_refused() {
    let out = Command::new(BIN)
        .args(["migrate", "--data-dir"])
        .arg(tempfile::tempdir().expect("temporary directory").path())
        .env("QUIRE_LOG_FORMAT", "xml")
        .output()
        .expect("run quire");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("QUIRE_LOG_FORMAT"));
}
