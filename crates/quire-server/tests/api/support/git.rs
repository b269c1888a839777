//! Real Git repositories for the Git Sync tests: a bare "remote" with a
//! working clone to commit from (reached by `file://`), and a smart-HTTP
//! server on 127.0.0.1 (`git http-backend` behind a small CGI bridge, with
//! basic authentication).

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

/// Runs git in `dir`; its trimmed stdout. Panics on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Tester")
        .env("GIT_AUTHOR_EMAIL", "tester@example.com")
        .env("GIT_COMMITTER_NAME", "Tester")
        .env("GIT_COMMITTER_EMAIL", "tester@example.com")
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A bare repository with a working clone on branch `main`.
pub struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().expect("temporary directory");
        git(
            dir.path(),
            &["init", "--quiet", "--bare", "--initial-branch=main", "origin.git"],
        );
        git(dir.path(), &["init", "--quiet", "--initial-branch=main", "work"]);
        git(&dir.path().join("work"), &["remote", "add", "origin", "../origin.git"]);
        Repo { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn bare(&self) -> PathBuf {
        self.dir.path().join("origin.git")
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// `file://` URL of the bare repository.
    pub fn url(&self) -> String {
        format!("file://{}", self.bare().display())
    }

    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) -> &Repo {
        let file = self.work().join(path);
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("folders");
        std::fs::write(file, content).expect("write a file");
        self
    }

    pub fn remove(&self, path: &str) -> &Repo {
        std::fs::remove_file(self.work().join(path)).expect("remove a file");
        self
    }

    /// Commits everything and pushes it to `main`; the new commit.
    pub fn commit(&self, message: &str) -> String {
        let work = self.work();
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "--quiet", "-m", message]);
        git(&work, &["push", "--quiet", "origin", "HEAD:refs/heads/main"]);
        git(&work, &["rev-parse", "HEAD"])
    }

    /// Brings the working clone up to the remote's `main` (after Quire
    /// pushed).
    pub fn pull(&self) {
        let work = self.work();
        git(&work, &["fetch", "--quiet", "origin"]);
        git(&work, &["reset", "--quiet", "--hard", "origin/main"]);
    }

    /// The commit `main` points at on the remote.
    pub fn head(&self) -> String {
        git(&self.bare(), &["rev-parse", "refs/heads/main"])
    }

    /// A file of `main` on the remote.
    pub fn read(&self, path: &str) -> Option<String> {
        let out = Command::new("git")
            .current_dir(self.bare())
            .args(["show", &format!("refs/heads/main:{path}")])
            .output()
            .expect("git runs");
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Every file of `main` on the remote.
    pub fn files(&self) -> Vec<String> {
        let listing = git(&self.bare(), &["ls-tree", "-r", "--name-only", "refs/heads/main"]);
        listing.lines().map(str::to_owned).collect()
    }

    /// The commit messages of `main`, newest first.
    pub fn log(&self) -> Vec<String> {
        git(&self.bare(), &["log", "--format=%s", "refs/heads/main"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The author and committer (`name <email>`) of the newest commit of `main`.
    pub fn signatures(&self) -> (String, String) {
        let line = git(
            &self.bare(),
            &["log", "-1", "--format=%an <%ae>%x09%cn <%ce>", "refs/heads/main"],
        );
        let (author, committer) = line.trim().split_once('\t').unwrap_or_default();
        (author.to_owned(), committer.to_owned())
    }

    /// `git diff --name-status` between two commits.
    pub fn changes(&self, from: &str, to: &str) -> Vec<String> {
        git(&self.bare(), &["diff", "--name-status", "-M", from, to])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// A smart-HTTP Git server for the repositories under `root`, asking for
/// `user:password` when `credentials` are given.
pub struct HttpServer {
    pub base_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Clone)]
struct Backend {
    root: PathBuf,
    authorization: Option<String>,
}

impl HttpServer {
    pub async fn start(root: &Path, credentials: Option<(&str, &str)>) -> HttpServer {
        use base64::Engine as _;
        let backend = Backend {
            root: root.to_owned(),
            authorization: credentials.map(|(user, password)| {
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
                )
            }),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let router = axum::Router::new().fallback(cgi).with_state(backend);
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.expect("git server runs");
        });
        HttpServer { base_url, task }
    }
}

async fn cgi(State(backend): State<Backend>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(expected) = &backend.authorization
        && headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str())
    {
        return (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", "Basic realm=\"git\"")],
            "authentication required",
        )
            .into_response();
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let mut child = tokio::process::Command::new("git")
        .arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", &backend.root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REMOTE_USER", "tester")
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("REQUEST_METHOD", method.as_str())
        .env("PATH_INFO", uri.path())
        .env("QUERY_STRING", uri.query().unwrap_or_default())
        .env("CONTENT_TYPE", header("content-type"))
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("HTTP_CONTENT_ENCODING", header("content-encoding"))
        .env("GIT_PROTOCOL", header("git-protocol"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("git http-backend runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let _ = stdin.write_all(&body).await;
    });
    let output = child.wait_with_output().await.expect("git http-backend output");
    let _ = writer.await;
    let raw = output.stdout;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|p| (p, 4))
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|p| (p, 2)));
    let Some((end, gap)) = split else {
        return (StatusCode::BAD_GATEWAY, "bad CGI output").into_response();
    };
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut response = Response::new(Body::from(raw[end + gap..].to_vec()));
    for line in head.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value
                .split_whitespace()
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or(500);
            *response.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        } else if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(name.trim().as_bytes()),
            axum::http::HeaderValue::from_str(value),
        ) {
            response.headers_mut().append(name, value);
        }
    }
    response
}
