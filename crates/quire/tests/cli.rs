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
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let child = Command::new(BIN)
        .args(["serve", "--listen", &listen])
        .args(storage)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
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
