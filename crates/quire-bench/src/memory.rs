//! `memory`: resident memory of the real `quire` binary around large
//! requests. The binary runs as a child process (with the allocator it ships
//! with) on a fresh SQLite data directory; its resident set is read from
//! `/proc` at rest, at the peak of each burst of large requests, right after
//! and a few seconds later.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use base64::Engine as _;
use serde_json::{Value, json};

use crate::Args;

/// A `quire serve` child process, killed when dropped.
pub(crate) struct Child_(pub(crate) Child);

impl Drop for Child_ {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The resident set of a process, in MiB.
pub(crate) fn rss_mib(pid: u32) -> anyhow::Result<f64> {
    status_mib(pid, "VmRSS")
}

/// A memory figure of `/proc/{pid}/status` (`VmRSS`, `VmHWM`, ...), in MiB.
pub(crate) fn status_mib(pid: u32, field: &str) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).context("read /proc status")?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("{field} in /proc status"))?;
    Ok(kib / 1024.0)
}

/// The `quire` binary next to this one (both built by the same `cargo build`).
fn quire_binary() -> anyhow::Result<std::path::PathBuf> {
    let here = std::env::current_exe().context("locate quire-bench")?;
    let bin = here.with_file_name("quire");
    ensure!(
        bin.exists(),
        "{} is missing: build it first (cargo build --release -p quire)",
        bin.display()
    );
    Ok(bin)
}

/// A `quire serve` child process on a fresh SQLite data directory, ready:
/// the process, its base URL and an API token.
pub(crate) struct Quire {
    pub(crate) server: Child_,
    pub(crate) base: String,
    pub(crate) token: String,
    _data: tempfile::TempDir,
}

impl Quire {
    pub(crate) fn pid(&self) -> u32 {
        self.server.0.id()
    }
}

/// Starts the `quire` binary (`envs` added to its environment).
pub(crate) async fn start_quire(envs: &[(&str, &str)]) -> anyhow::Result<Quire> {
    let bin = quire_binary()?;
    let dir = tempfile::tempdir().context("temporary directory")?;
    let data = dir.path().join("data");
    let token_out = Command::new(&bin)
        .args([
            "token",
            "create",
            "--email",
            "bench@example.com",
            "--name",
            "Bench",
            "--data-dir",
        ])
        .arg(&data)
        .env("QUIRE_LOG", "warn")
        .output()
        .context("quire token create")?;
    ensure!(token_out.status.success(), "token create failed");
    let token = String::from_utf8(token_out.stdout)?
        .lines()
        .last()
        .context("a token line")?
        .trim()
        .to_owned();
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let base = format!("http://127.0.0.1:{port}");
    let server = Child_(
        Command::new(&bin)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--data-dir"])
            .arg(&data)
            .env("QUIRE_LOG", "warn")
            .envs(envs.iter().copied())
            .stderr(Stdio::null())
            .spawn()
            .context("start quire serve")?,
    );
    let client = crate::http_client(&token)?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while client.get(format!("{base}/health")).send().await.is_err() {
        ensure!(Instant::now() < deadline, "quire serve did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(Quire {
        server,
        base,
        token,
        _data: dir,
    })
}

pub async fn run(_args: &Args) -> anyhow::Result<()> {
    let quire = start_quire(&[]).await?;
    let (base, token, pid) = (quire.base.clone(), quire.token.clone(), quire.pid());
    let client = crate::http_client(&token)?;
    let post = |path: String, body: Vec<u8>| {
        let client = client.clone();
        async move {
            let res = client
                .post(path)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await?;
            let status = res.status().as_u16();
            let body: Value = res.json().await.unwrap_or(Value::Null);
            anyhow::Ok((status, body))
        }
    };
    let (_, org) = post(
        format!("{base}/v1/orgs"),
        json!({ "title": "Memory" }).to_string().into_bytes(),
    )
    .await?;
    let org = org["id"].as_str().context("org id")?.to_owned();
    let (_, space) = post(format!("{base}/v1/orgs/{org}/spaces"), b"{}".to_vec()).await?;
    let space = space["id"].as_str().context("space id")?.to_owned();
    let (_, cr) = post(format!("{base}/v1/spaces/{space}/change-requests"), b"{}".to_vec()).await?;
    let cr = cr["id"].as_str().context("change request id")?.to_owned();
    let content = format!("{base}/v1/spaces/{space}/change-requests/{cr}/content");
    let page = |words: usize| {
        json!({ "changes": [{ "operation": "insert_page", "document": {
            "markdown": format!("# Page\n\n{}", "lorem ipsum dolor sit amet ".repeat(words))
        } }] })
        .to_string()
        .into_bytes()
    };
    for _ in 0..20 {
        post(content.clone(), page(10)).await?;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let baseline = rss_mib(pid)?;

    let files = json!({ "changes": [{ "operation": "insert_files", "files": (0..20).map(|i| json!({
        "name": format!("f{i}.bin"),
        "contentType": "application/octet-stream",
        "base64": base64::engine::general_purpose::STANDARD.encode(vec![i as u8; 1_000_000]),
    })).collect::<Vec<_>>() }] })
    .to_string()
    .into_bytes();
    let bursts: [(&str, Vec<u8>, u16); 3] = [
        ("a 31 MB page (refused: over 2 MiB of markdown)", page(1_200_000), 413),
        ("20 files of 1 MB in base64 (26 MB)", files, 200),
        ("a 1.8 MB page", page(70_000), 200),
    ];
    println!("Resident memory of the quire binary (SQLite), MiB; at rest before: {baseline:.0}\n");
    println!("| 5 requests of | status | peak | right after | 3 s later |");
    println!("|---|---|---|---|---|");
    for (what, body, expected) in bursts {
        let mut peak = 0f64;
        for _ in 0..5 {
            let sending = post(content.clone(), body.clone());
            tokio::pin!(sending);
            let (status, answer) = loop {
                tokio::select! {
                    done = &mut sending => break done?,
                    () = tokio::time::sleep(Duration::from_millis(5)) => peak = peak.max(rss_mib(pid)?),
                }
            };
            ensure!(
                status == expected,
                "{what}: expected {expected}, got {status}: {answer}"
            );
            peak = peak.max(rss_mib(pid)?);
        }
        let after = rss_mib(pid)?;
        tokio::time::sleep(Duration::from_secs(3)).await;
        let later = rss_mib(pid)?;
        println!("| {what} | {expected} | {peak:.0} | {after:.0} | {later:.0} |");
    }
    drop(quire);
    Ok(())
}
