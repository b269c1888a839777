//! The `quire` binary as a user runs it: `token create` on a fresh data
//! directory (or database), `serve`, and `token create` again while the
//! server runs on the same data, whose token the server then accepts;
//! `backup` and `restore`; and the data directory and backups readable by
//! the running account alone.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_quire");

/// One HTTP/1.1 request on a connection of its own (`Connection: close`):
/// the status and the body. Plain `std`, so these tests build nothing the
/// binary does not.
fn http(method: &str, url: &str, token: Option<&str>, body: Option<&Value>) -> std::io::Result<(u16, String)> {
    let auth = token.map(|t| format!("Authorization: Bearer {t}"));
    let (status, _, body) = http_with(method, url, auth.as_deref(), body)?;
    Ok((status, body))
}

/// A request with one extra header line; the status, the head and the body.
fn http_with(
    method: &str,
    url: &str,
    header: Option<&str>,
    body: Option<&Value>,
) -> std::io::Result<(u16, String, String)> {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = match rest.split_once('/') {
        Some((host, path)) => (host, format!("/{path}")),
        None => (rest, "/".to_owned()),
    };
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(header) = header {
        head.push_str(&format!("{header}\r\n"));
    }
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(host)?;
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    Ok((status, head.to_owned(), body.to_owned()))
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

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
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if http("GET", &format!("{base}/health"), None, None).is_ok_and(|(status, _)| status == 200) {
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
    let user = format!("{base}/v1/user");
    for (token, email) in [
        (&first, "first@example.com"),
        (&again, "first@example.com"),
        (&second, "second@example.com"),
    ] {
        let (status, body) = http("GET", &user, Some(token), None).expect("GET /v1/user");
        assert_eq!(status, 200, "{body}");
        assert_eq!(json(&body)["email"], email);
    }
    let (status, _) = http("GET", &user, Some("quire_wrong"), None).expect("GET /v1/user");
    assert_eq!(status, 401);

    // A member of an organization that enforces single sign-on gets tokens
    // through it, not here, unless the operator insists.
    let (status, body) = http(
        "POST",
        &format!("{base}/v1/orgs"),
        Some(&second),
        Some(&serde_json::json!({ "title": "Strict" })),
    )
    .expect("POST an organization");
    assert_eq!(status, 201, "{body}");
    let org = json(&body);
    let org = org["id"].as_str().expect("its id");
    let (status, body) = http(
        "PATCH",
        &format!("{base}/v1/orgs/{org}"),
        Some(&second),
        Some(&serde_json::json!({ "sso": true })),
    )
    .expect("PATCH the organization");
    assert_eq!(status, 200, "{body}");
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
    let bypass_token = String::from_utf8_lossy(&bypass.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_owned();

    // `token list` shows ids, newest first, never a token; `token revoke`
    // ends one, which the server then refuses.
    let list = |email: &str| {
        let out = quire(&["token", "list", "--email", email], storage);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8 output")
    };
    let listed = list("second@example.com");
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(!listed.contains("quire_"), "a token was shown: {listed}");
    let newest = listed
        .lines()
        .next()
        .and_then(|l| l.split('\t').next())
        .expect("an id")
        .to_owned();
    let revoke = quire(
        &["token", "revoke", "--email", "second@example.com", "--id", &newest],
        storage,
    );
    assert!(revoke.status.success(), "{}", String::from_utf8_lossy(&revoke.stderr));
    assert_eq!(list("second@example.com").lines().count(), 1);
    let (status, _) = http("GET", &user, Some(&bypass_token), None).expect("GET /v1/user");
    assert_eq!(status, 401, "a revoked token is refused");
    let (status, _) = http("GET", &user, Some(&second), None).expect("GET /v1/user");
    assert_eq!(status, 200, "the other token still works");
    let again = quire(
        &["token", "revoke", "--email", "second@example.com", "--id", &newest],
        storage,
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not found"));
    let nobody = quire(&["token", "list", "--email", "nobody@example.com"], storage);
    assert!(!nobody.status.success());

    // The first admin on a laptop signs in with a one-time link the CLI
    // prints (the person is created on the way).
    let printed = quire(
        &[
            "sign-in-link",
            "--email",
            "admin@example.com",
            "--name",
            "First Admin",
            "--public-url",
            &base,
        ],
        storage,
    );
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    let url = String::from_utf8_lossy(&printed.stdout).trim().to_owned();
    let token = url
        .strip_prefix(&format!("{base}/sign-in/link#"))
        .unwrap_or_else(|| panic!("not a sign-in link: {url}"))
        .to_owned();
    let use_link = serde_json::json!({ "token": token });
    let (status, head, body) =
        http_with("POST", &format!("{base}/auth/links/use"), None, Some(&use_link)).expect("use the link");
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["user"]["displayName"], "First Admin");
    let cookie = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| l[11..].trim().to_owned())
        })
        .and_then(|c| c.split(';').next().map(str::to_owned))
        .expect("a session cookie");
    let (status, _, body) = http_with("GET", &user, Some(&format!("Cookie: {cookie}")), None).expect("GET /v1/user");
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["email"], "admin@example.com");
    let (status, _, _) =
        http_with("POST", &format!("{base}/auth/links/use"), None, Some(&use_link)).expect("use it again");
    assert_eq!(status, 401, "a link is used once");
    let no_account = quire(&["password-link", "--email", "nobody@example.com"], storage);
    assert!(!no_account.status.success());
    assert!(String::from_utf8_lossy(&no_account.stderr).contains("not found"));
    let reset = quire(
        &["password-link", "--email", "admin@example.com", "--public-url", &base],
        storage,
    );
    assert!(reset.status.success(), "{}", String::from_utf8_lossy(&reset.stderr));
    assert!(String::from_utf8_lossy(&reset.stderr).contains("a reset link"));
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

/// The logs of a server that answered an authenticated read and an
/// authenticated write, read once it has stopped. Stderr is a file here,
/// never a terminal. Writes are logged at the default level, reads only at
/// `debug`.
fn logs_of_one_request(format: Option<&str>) -> String {
    let dir = tempfile::tempdir().expect("temporary directory");
    let storage = ["--data-dir".to_owned(), dir.path().join("data").display().to_string()];
    let token = token_create("logs@example.com", &storage);
    let log_path = dir.path().join("stderr.log");
    let log_file = std::fs::File::create(&log_path).expect("create the log file");
    let env: Vec<(&str, &str)> = format.map(|f| ("QUIRE_LOG_FORMAT", f)).into_iter().collect();
    let (server, base) = serve_with(&storage, &env, Stdio::from(log_file));
    let (status, body) = http("GET", &format!("{base}/v1/user"), Some(&token), None).expect("GET /v1/user");
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(
        "POST",
        &format!("{base}/v1/orgs"),
        Some(&token),
        Some(&serde_json::json!({ "title": "Logs" })),
    )
    .expect("POST /v1/orgs");
    assert_eq!(status, 201, "{body}");
    drop(server);
    let logs = std::fs::read_to_string(&log_path).expect("read the logs");
    assert!(!logs.contains(&token), "the token must never be logged");
    assert!(!logs.contains("/v1/user"), "reads are logged at debug only:\n{logs}");
    logs
}

#[test]
fn logs_are_plain_text_when_stderr_is_not_a_terminal() {
    let logs = logs_of_one_request(None);
    assert!(logs.contains("quire is listening"), "{logs}");
    assert!(!logs.contains('\u{1b}'), "ANSI escape codes in piped logs:\n{logs}");
    let request = logs
        .lines()
        .find(|l| l.contains("/v1/orgs") && l.contains("status=201"))
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
        .find(|l| l["status"] == 201 && l["span"]["path"] == "/v1/orgs")
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

/// The ids of the spaces of `org` (up to 1,000).
fn space_ids(base: &str, token: &str, org: &str) -> Vec<String> {
    let (status, body) = http(
        "GET",
        &format!("{base}/v1/orgs/{org}/spaces?limit=1000"),
        Some(token),
        None,
    )
    .expect("list spaces");
    assert_eq!(status, 200, "{body}");
    json(&body)["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_owned())
        .collect()
}

/// Sets this test process's umask to 0o022, the usual default, under which
/// what a process creates is readable by every account (files 0644,
/// directories 0755): the binary inherits it, so what it writes is private
/// only because it makes it so. Every test that calls this asks for the
/// same mask.
fn usual_umask() {
    #[cfg(unix)]
    // SAFETY: umask(2) only swaps the process's file-creation mask.
    unsafe {
        libc::umask(0o022);
    }
}

/// Permission bits as Unix has them (none elsewhere).
fn permission_bits(metadata: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        0
    }
}

/// A path's permission bits.
#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    permission_bits(&std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Sets a path's permission bits.
#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
}

/// Fails naming every directory and file at or under `root` that group or
/// others have any permission on (symbolic links are not followed; files
/// SQLite removes while this looks are skipped); the regular files seen.
fn assert_owner_only(root: &Path) -> usize {
    let mut readable_by_others = Vec::new();
    let mut files = 0;
    let mut pending = vec![root.to_path_buf()];
    while let Some(path) = pending.pop() {
        let metadata = match std::fs::symlink_metadata(&path) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && path != root => continue,
            Err(e) => panic!("{}: {e}", path.display()),
        };
        if metadata.file_type().is_symlink() {
            continue;
        }
        let mode = permission_bits(&metadata);
        if mode & 0o077 != 0 {
            readable_by_others.push(format!("{:o} {}", mode, path.display()));
        }
        if metadata.is_dir() {
            let entries = std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            pending.extend(entries.filter_map(Result::ok).map(|entry| entry.path()));
        } else {
            files += 1;
        }
    }
    assert!(
        readable_by_others.is_empty(),
        "readable by other accounts:\n{}",
        readable_by_others.join("\n")
    );
    files
}

/// The `--data-dir` among storage flags.
fn data_dir_of(storage: &[String]) -> PathBuf {
    storage
        .iter()
        .position(|flag| flag == "--data-dir")
        .and_then(|at| storage.get(at + 1))
        .map(PathBuf::from)
        .expect("a --data-dir flag")
}

/// `quire backup` while a server runs and takes writes, then `quire
/// restore` into empty storage: a server on the restored data has every
/// write acknowledged before the backup began, nothing that never
/// happened, the same answers for what did not change, and the same tokens.
/// Under the usual umask, the data directories and the backup, the blobs
/// and the database dump in it, are readable by this account alone.
fn backup_and_restore(source: &[String], backup_dir: &std::path::Path, target: &[String]) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    usual_umask();
    let token = token_create("owner@example.com", source);
    let (server, base) = serve(source);
    let (status, body) = http(
        "POST",
        &format!("{base}/v1/orgs"),
        Some(&token),
        Some(&serde_json::json!({ "title": "Acme" })),
    )
    .expect("create org");
    assert_eq!(status, 201, "{body}");
    let org = json(&body)["id"].as_str().expect("org id").to_owned();
    let (status, body) = http(
        "POST",
        &format!("{base}/v1/orgs/{org}/spaces"),
        Some(&token),
        Some(&serde_json::json!({ "title": "Handbook" })),
    )
    .expect("create space");
    assert_eq!(status, 201, "{body}");
    let handbook = json(&body)["id"].as_str().expect("space id").to_owned();
    // A file, so there is a blob to back up.
    let (status, body) = http(
        "POST",
        &format!("{base}/v1/spaces/{handbook}/change-requests"),
        Some(&token),
        Some(&serde_json::json!({ "subject": "Notes" })),
    )
    .expect("open a change request");
    assert_eq!(status, 201, "{body}");
    let change_request = json(&body)["id"].as_str().expect("change request id").to_owned();
    let (status, body) = http(
        "POST",
        &format!("{base}/v1/spaces/{handbook}/change-requests/{change_request}/content?compat=false"),
        Some(&token),
        Some(&serde_json::json!({ "changes": [{
            "operation": "insert_files",
            "files": [{ "name": "notes.txt", "ref": "notes", "contentType": "text/plain", "base64": "aGVsbG8=" }]
        }] })),
    )
    .expect("upload a file");
    assert_eq!(status, 200, "{body}");
    let (_, handbook_before) =
        http("GET", &format!("{base}/v1/spaces/{handbook}"), Some(&token), None).expect("read space");

    // Writes keep coming while the backup runs.
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let writer = {
        let (stop, acknowledged, base, token, org) = (
            stop.clone(),
            acknowledged.clone(),
            base.clone(),
            token.clone(),
            org.clone(),
        );
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                let body = serde_json::json!({ "title": format!("Load {n}") });
                if let Ok((201, answer)) = http(
                    "POST",
                    &format!("{base}/v1/orgs/{org}/spaces"),
                    Some(&token),
                    Some(&body),
                ) {
                    acknowledged
                        .lock()
                        .unwrap()
                        .push(json(&answer)["id"].as_str().unwrap().to_owned());
                }
            }
        })
    };
    let wait_for = |count: usize| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while acknowledged.lock().unwrap().len() < count {
            assert!(Instant::now() < deadline, "the writes did not go through");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    wait_for(5);
    let before_backup = acknowledged.lock().unwrap().clone();
    let backup_dir_arg = backup_dir.display().to_string();
    let out = quire(&["backup", "--to", &backup_dir_arg], source);
    assert!(
        out.status.success(),
        "backup failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_owner_only(&data_dir_of(source));
    assert!(
        assert_owner_only(backup_dir) >= 3,
        "the manifest, the database and a blob are in the backup"
    );
    let manifest = json(&std::fs::read_to_string(backup_dir.join("backup.json")).expect("the manifest"));
    assert!(
        manifest["blobs"]["copied"].as_u64().is_some_and(|copied| copied >= 1),
        "the file's blob is copied: {manifest}"
    );
    wait_for(before_backup.len() + 3);
    stop.store(true, Ordering::SeqCst);
    writer.join().expect("the writer");
    let every_write = acknowledged.lock().unwrap().clone();
    drop(server);
    let again = quire(&["backup", "--to", &backup_dir_arg], source);
    assert!(!again.status.success(), "a backup never overwrites another");

    let out = quire(&["restore", "--from", &backup_dir_arg], target);
    assert!(
        out.status.success(),
        "restore failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = quire(&["restore", "--from", &backup_dir_arg], target);
    assert!(!again.status.success(), "a restore never overwrites a database");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    let (_restored, restored_base) = serve(target);
    assert_owner_only(&data_dir_of(target));
    let restored = space_ids(&restored_base, &token, &org);
    for id in &before_backup {
        assert!(
            restored.contains(id),
            "a write acknowledged before the backup is missing: {id}"
        );
    }
    for id in &restored {
        assert!(
            id == &handbook || every_write.contains(id),
            "the restore holds a space nobody made: {id}"
        );
    }
    let (status, handbook_after) = http(
        "GET",
        &format!("{restored_base}/v1/spaces/{handbook}"),
        Some(&token),
        None,
    )
    .expect("read space");
    assert_eq!(status, 200);
    assert_eq!(
        handbook_after.replace(&restored_base, "BASE"),
        handbook_before.replace(&base, "BASE"),
        "the same answer after the restore"
    );
}

#[test]
fn backup_and_restore_on_sqlite() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let data = |name: &str| vec!["--data-dir".to_owned(), dir.path().join(name).display().to_string()];
    backup_and_restore(&data("source"), &dir.path().join("backup"), &data("restored"));
}

#[test]
fn backup_and_restore_on_postgres() {
    let admin = std::env::var("QUIRE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let (base, _) = admin.rsplit_once('/').expect("database URL has a path");
    let databases: Vec<String> = (0..2)
        .map(|_| {
            format!(
                "quire_backup_{}",
                quire_core::id::random_alphanumeric(12).to_lowercase()
            )
        })
        .collect();
    for database in &databases {
        admin_sql(&admin, format!("CREATE DATABASE {database}")).expect("create a test database");
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let storage = |database: &str, name: &str| {
        vec![
            "--database-url".to_owned(),
            format!("{base}/{database}"),
            "--data-dir".to_owned(),
            dir.path().join(name).display().to_string(),
        ]
    };
    let result = std::panic::catch_unwind(|| {
        backup_and_restore(
            &storage(&databases[0], "source"),
            &dir.path().join("backup"),
            &storage(&databases[1], "restored"),
        )
    });
    for database in &databases {
        let _ = admin_sql(&admin, format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"));
    }
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// A data directory an older version left readable by everyone (0755, the
/// database and blobs 0644) is the running account's alone after the next
/// start, logged once; a file the operator put there is left as it was. A
/// backup into an existing, open, empty directory makes it 0700, and the
/// blobs it copies 0600 even when the originals were not.
#[cfg(unix)]
#[test]
fn an_open_data_directory_is_tightened() {
    usual_umask();
    let dir = tempfile::tempdir().expect("temporary directory");
    let data = dir.path().join("data");
    let storage = ["--data-dir".to_owned(), data.display().to_string()];
    let migrate = || {
        let out = Command::new(BIN)
            .arg("migrate")
            .args(&storage)
            .env_remove("QUIRE_LOG")
            .env_remove("QUIRE_LOG_FORMAT")
            .output()
            .expect("run quire migrate");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    migrate();

    // What an older version left behind.
    let blob_directory = data.join("blobs").join("2c");
    std::fs::create_dir_all(&blob_directory).expect("create a blob directory");
    let blob = blob_directory.join("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    std::fs::write(&blob, "hello").expect("write a blob");
    let operators_file = data.join("NOTES.txt");
    std::fs::write(&operators_file, "the operator's").expect("write the operator's file");
    for (path, mode) in [
        (&data, 0o755),
        (&data.join("quire.db"), 0o644),
        (&data.join("blobs"), 0o755),
        (&blob_directory, 0o755),
        (&blob, 0o644),
        (&operators_file, 0o644),
    ] {
        set_mode(path, mode);
    }

    let logs = migrate();
    assert!(
        logs.contains("the data directory was readable by other accounts"),
        "{logs}"
    );
    assert_eq!(mode_of(&data), 0o700);
    for path in [&data.join("quire.db"), &blob] {
        assert_eq!(mode_of(path), 0o600, "{}", path.display());
    }
    for path in [&data.join("blobs"), &blob_directory] {
        assert_eq!(mode_of(path), 0o700, "{}", path.display());
    }
    assert_eq!(mode_of(&operators_file), 0o644, "not Quire's to change");
    let logs = migrate();
    assert!(!logs.contains("readable by other accounts"), "logged once: {logs}");

    // A blob left open inside the now private data directory is copied
    // into a private file all the same.
    set_mode(&blob, 0o644);
    let backup = dir.path().join("backup");
    std::fs::create_dir(&backup).expect("create the backup directory");
    set_mode(&backup, 0o755);
    let backup_arg = backup.display().to_string();
    let out = quire(&["backup", "--to", &backup_arg], &storage);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode_of(&backup), 0o700);
    assert_eq!(assert_owner_only(&backup), 3, "the manifest, the database and the blob");
}

/// A local webhook endpoint on a thread of its own: every request's
/// `X-Quire-Delivery`, `X-Quire-Signature` and body, answered 204.
struct Endpoint {
    url: String,
    received: std::sync::Arc<std::sync::Mutex<Vec<(String, String, String)>>>,
}

impl Endpoint {
    fn start() -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the endpoint");
        let url = format!("http://{}/hook", listener.local_addr().expect("address"));
        let received: std::sync::Arc<std::sync::Mutex<Vec<(String, String, String)>>> = Default::default();
        let log = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut data = Vec::new();
                let mut buf = [0u8; 4096];
                let (head, body) = loop {
                    let n = stream.read(&mut buf).unwrap_or(0);
                    if n == 0 {
                        break (String::new(), String::new());
                    }
                    data.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&data).into_owned();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let length = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().to_owned())
                            })
                            .and_then(|v| v.parse::<usize>().ok())
                            .unwrap_or(0);
                        if body.len() >= length {
                            break (head.to_owned(), body.to_owned());
                        }
                    }
                };
                let header = |name: &str| {
                    head.lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
                        })
                        .unwrap_or_default()
                };
                if !head.is_empty() {
                    log.lock()
                        .unwrap()
                        .push((header("x-quire-delivery"), header("x-quire-signature"), body));
                }
                let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            }
        });
        Endpoint { url, received }
    }
}

/// Checks `t=...,v1=...` against HMAC-SHA256 of `{t}.{body}` with `secret`.
fn signed_with(secret: &str, signature: &str, body: &str) -> bool {
    use hmac::{Hmac, KeyInit, Mac};
    let Some((t, v1)) = signature.strip_prefix("t=").and_then(|s| s.split_once(",v1=")) else {
        return false;
    };
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("any key");
    mac.update(format!("{t}.{body}").as_bytes());
    let expected: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    v1 == expected
}

/// Events whose changes were acknowledged reach their endpoint even when
/// the node is killed (SIGKILL) right after answering, before it could send
/// them: the deliveries were written with the changes, and the restarted
/// node sends every one. The audit stream writes each change as a JSON
/// line on standard output, the command line's included.
#[test]
fn webhook_deliveries_survive_kill_9() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let storage = ["--data-dir".to_owned(), dir.path().join("data").display().to_string()];
    let token = token_create("ops@example.com", &storage);
    let endpoint = Endpoint::start();
    let env = [("QUIRE_ALLOW_PRIVATE_FETCH", "1"), ("QUIRE_AUDIT_LOG_STREAM", "1")];
    let stdout = dir.path().join("audit.jsonl");

    let start = |stdout: &std::path::Path| {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let child = Command::new(BIN)
            .args(["serve", "--listen", &listen])
            .args(&storage)
            .envs(env)
            .stdout(std::fs::File::create(stdout).expect("stdout file"))
            .stderr(Stdio::null())
            .spawn()
            .expect("start quire serve");
        let server = Server(child);
        let base = format!("http://{listen}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while !http("GET", &format!("{base}/health"), None, None).is_ok_and(|(s, _)| s == 200) {
            assert!(Instant::now() < deadline, "quire serve did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        (server, base)
    };
    let (mut server, base) = start(&stdout);
    let post = |path: &str, body: Value| {
        let (status, body) = http("POST", &format!("{base}{path}"), Some(&token), Some(&body)).expect("POST");
        assert!(status == 200 || status == 201, "{path}: {status} {body}");
        json(&body)
    };
    let org = post("/v1/orgs", serde_json::json!({ "title": "Acme" }))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let space = post(
        &format!("/v1/orgs/{org}/spaces"),
        serde_json::json!({ "title": "Docs" }),
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let hook = post(
        &format!("/v1/orgs/{org}/webhooks"),
        serde_json::json!({ "url": endpoint.url, "events": ["change_request_opened"] }),
    );
    let secret = hook["secret"].as_str().expect("the secret").to_owned();
    let mut opened = Vec::new();
    for i in 0..20 {
        let cr = post(
            &format!("/v1/spaces/{space}/change-requests"),
            serde_json::json!({ "subject": format!("Change {i}") }),
        );
        opened.push(cr["id"].as_str().unwrap().to_owned());
    }
    // SIGKILL right after the last acknowledgement.
    server.0.kill().expect("kill -9");
    server.0.wait().expect("reaped");
    let before_restart = endpoint.received.lock().unwrap().len();

    let (_server, _) = start(&dir.path().join("after.jsonl"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let received = endpoint.received.lock().unwrap().clone();
        let mut heard: Vec<String> = received
            .iter()
            .filter(|(_, signature, body)| signed_with(&secret, signature, body))
            .filter_map(|(_, _, body)| json(body)["changeRequestId"].as_str().map(str::to_owned))
            .collect();
        heard.sort();
        heard.dedup();
        if heard.len() == opened.len() {
            let mut expected = opened.clone();
            expected.sort();
            assert_eq!(heard, expected);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} events arrived ({before_restart} before the kill)",
            heard.len(),
            opened.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // The audit stream: one JSON line per change, no token in it.
    let lines = std::fs::read_to_string(&stdout).expect("the audit stream");
    let entries: Vec<Value> = lines.lines().map(json).collect();
    assert!(
        entries
            .iter()
            .any(|e| e["audit"]["action"] == "POST /orgs/{organizationId}/webhooks")
    );
    assert_eq!(
        entries
            .iter()
            .filter(|e| e["audit"]["action"] == "POST /spaces/{spaceId}/change-requests")
            .count(),
        20
    );
    assert!(!lines.contains(&token) && !lines.contains(&secret));
}
