//! Git repositories, through the `git` command: fetch a ref into a local
//! cache, list a commit's files, read blobs, write a commit on top of
//! another with some files changed, push it.
//!
//! Repository URLs come from users, so every operation goes through the
//! same policy as server-side HTTP fetches ([`crate::fetch`]):
//! - only `http(s)://` and `git://` URLs, whose host must resolve to public
//!   addresses unless the operator allows private networks; `file://` URLs
//!   only when private networks are allowed (they read the server's own
//!   disk); no `ssh`, `ext::` or other transports (`GIT_ALLOW_PROTOCOL`);
//! - no redirects, no proxies from the environment, no credential prompts,
//!   no user or system git configuration;
//! - a time limit per command.
//!
//! URLs may carry credentials, as basic-auth userinfo
//! (`https://user:token@host/repo`) or in the query string
//! (`...repo.git?access_token=...`). They are passed to git and to nothing
//! else: every message this module returns has them replaced by `***`
//! ([`redact`], `quire_core::secrets`).
//!
//! The cache is one bare repository per remote (keyed by the URL without
//! its credentials) under the cache directory; it only saves transfers, so
//! any node can lose it. Operations on one cached repository are serialized.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// Why a Git operation failed. Messages never hold credentials.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The URL is not allowed (scheme, private address, malformed).
    #[error("{0}")]
    Refused(String),
    /// The ref does not exist in the remote repository.
    #[error("the ref {0} does not exist in the repository{said}", said = branches_said(.1))]
    MissingRef(String, Branches),
    /// The push was refused because the branch moved.
    #[error("the branch moved on the remote: fetch it again")]
    Rejected,
    #[error("git took longer than {0} seconds")]
    Timeout(u64),
    /// git failed; its message, redacted.
    #[error("git failed: {0}")]
    Failed(String),
}

pub type GitResult<T> = Result<T, GitError>;

/// How the runner behaves.
#[derive(Debug, Clone)]
pub struct GitConfig {
    /// Where cached repositories live.
    pub cache_dir: PathBuf,
    /// Allow private addresses and `file://` URLs (`--allow-private-fetch`).
    pub allow_private_networks: bool,
    /// Time allowed for one git command.
    pub timeout: Duration,
}

/// A file of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// Path from the directory that was listed.
    pub path: String,
    pub oid: String,
    pub size: u64,
}

/// A fetched ref.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub repo: PathBuf,
    pub commit: String,
    pub message: String,
}

/// A change to a file of a commit: new bytes, or `None` to delete it.
pub type FileChange = (String, Option<Vec<u8>>);

/// A repository's branches, as `git ls-remote` tells them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Branches {
    /// The branch `HEAD` names (`refs/heads/main`), when the server says.
    pub default: Option<String>,
    /// Every branch, as full refs, sorted.
    pub names: Vec<String>,
}

/// What a missing ref's message adds: the branches there are.
fn branches_said(branches: &Branches) -> String {
    if branches.names.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = branches
        .names
        .iter()
        .take(20)
        .map(|n| n.trim_start_matches("refs/heads/"))
        .collect();
    let more = if branches.names.len() > 20 { ", …" } else { "" };
    match branches.default.as_deref().map(|d| d.trim_start_matches("refs/heads/")) {
        Some(default) => format!(
            "; its branches are {}{more} (the default is {default}: ref refs/heads/{default})",
            names.join(", ")
        ),
        None => format!("; its branches are {}{more}", names.join(", ")),
    }
}

impl Branches {
    /// Reads `ls-remote --symref` output: `ref: refs/heads/main\tHEAD` names
    /// the default, `<hash>\trefs/heads/x` each branch.
    pub fn parse(listing: &str) -> Branches {
        let mut branches = Branches::default();
        for line in listing.lines() {
            if let Some(symref) = line.strip_prefix("ref: ") {
                if let Some((target, "HEAD")) = symref.split_once('\t') {
                    branches.default = Some(target.to_owned());
                }
            } else if let Some((_, name)) = line.split_once('\t')
                && name.starts_with("refs/heads/")
            {
                branches.names.push(name.to_owned());
            }
        }
        branches.names.sort();
        branches.names.dedup();
        branches
    }
}

/// A repository URL that passed the policy, and how git reaches it: at the
/// address its host resolved to when it was checked, so that a second
/// resolution (a rebinding DNS answer) cannot lead git to another address.
/// Over http(s) curl is told that address (`http.curloptResolve`); over
/// `git://` the URL names it. Unpinned when private networks are allowed
/// (every address is then allowed anyway).
#[derive(Debug, Clone)]
pub struct Remote {
    /// The URL git is given.
    url: String,
    /// `host:port:address` for curl.
    resolve: Option<String>,
}

impl Remote {
    fn pinned(url: &str, scheme: &str, host_port: &str, host: &str, port: u16, ip: IpAddr) -> Remote {
        let address = match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("[{v6}]"),
        };
        if scheme == "git" {
            let url = url.replacen(host_port, &format!("{address}:{port}"), 1);
            return Remote { url, resolve: None };
        }
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_owned()
        };
        Remote {
            url: url.to_owned(),
            resolve: Some(format!("{host}:{port}:{address}")),
        }
    }
}

pub use quire_core::secrets::redact_url as redact;

/// Runs git for Quire.
pub struct Git {
    config: GitConfig,
    locks: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

impl Git {
    pub fn new(config: GitConfig) -> Git {
        Git {
            config,
            locks: Mutex::new(HashMap::new()),
        }
    }

    /// Checks a repository URL against the policy (scheme, then the
    /// addresses its host resolves to); how git must then reach it.
    pub async fn check_url(&self, url: &str) -> GitResult<Remote> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| GitError::Refused("the repository URL must be an http(s), git or file URL".into()))?;
        let unpinned = Remote {
            url: url.to_owned(),
            resolve: None,
        };
        match scheme {
            "file" => {
                if self.config.allow_private_networks {
                    Ok(unpinned)
                } else {
                    Err(GitError::Refused(
                        "file:// repositories are refused unless the server allows private fetches".into(),
                    ))
                }
            }
            "http" | "https" | "git" => {
                let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
                let host_port = authority.rsplit('@').next().unwrap_or_default();
                let default_port = match scheme {
                    "git" => 9418,
                    "https" => 443,
                    _ => 80,
                };
                let (host, port) = split_host_port(host_port, default_port);
                if host.is_empty() {
                    return Err(GitError::Refused("the repository URL has no host".into()));
                }
                if self.config.allow_private_networks {
                    return Ok(unpinned);
                }
                let addrs: Vec<IpAddr> = match host.parse::<IpAddr>() {
                    Ok(ip) => vec![ip],
                    Err(_) => tokio::net::lookup_host((host.as_str(), port))
                        .await
                        .map_err(|_| GitError::Refused(format!("the host {host:?} could not be resolved")))?
                        .map(|a| a.ip())
                        .collect(),
                };
                for ip in &addrs {
                    if let Some(kind) = crate::fetch::classify(*ip) {
                        return Err(GitError::Refused(format!(
                            "the repository's host is a {kind} address, which server-side fetches may not reach"
                        )));
                    }
                }
                let ip = addrs
                    .first()
                    .ok_or_else(|| GitError::Refused(format!("the host {host:?} could not be resolved")))?;
                Ok(Remote::pinned(url, scheme, host_port, &host, port, *ip))
            }
            other => Err(GitError::Refused(format!(
                "{other}:// repositories are not supported: use an http(s), git or file URL"
            ))),
        }
    }

    fn cache_path(&self, url: &str) -> PathBuf {
        // The first 128 bits name the folder.
        let name = quire_core::digest::sha256_hex(redact(url).as_bytes());
        self.config.cache_dir.join(&name[..32])
    }

    fn lock(&self, repo: &Path) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
        locks.entry(repo.to_owned()).or_default().clone()
    }

    /// A git command that reaches `remote`, pinned to its checked address.
    fn remote_command(&self, repo: &Path, remote: &Remote) -> Command {
        let mut cmd = self.command(repo);
        if let Some(resolve) = &remote.resolve {
            cmd.args(["-c", &format!("http.curloptResolve={resolve}")]);
        }
        cmd
    }

    /// A git command in `repo` with the policy's environment.
    fn command(&self, repo: &Path) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(repo)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.config.cache_dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ASKPASS", "/bin/false")
            .env(
                "GIT_ALLOW_PROTOCOL",
                if self.config.allow_private_networks {
                    "http:https:git:file"
                } else {
                    "http:https:git"
                },
            )
            .env("LC_ALL", "C")
            .args([
                "-c",
                "http.followRedirects=false",
                "-c",
                "credential.helper=",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }

    /// Runs a command, feeding it `input`; its stdout, or its redacted
    /// stderr as the error.
    async fn run(&self, mut cmd: Command, input: Option<Vec<u8>>, secrets: &[&str]) -> GitResult<Vec<u8>> {
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| GitError::Failed(format!("cannot run git: {e}")))?;
        let writer = match (input, child.stdin.take()) {
            (Some(bytes), Some(mut stdin)) => Some(tokio::spawn(async move {
                let _ = stdin.write_all(&bytes).await;
                drop(stdin);
            })),
            _ => None,
        };
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let work = async {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let (a, b) = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
            a.and(b).map_err(|e| GitError::Failed(e.to_string()))?;
            let status = child.wait().await.map_err(|e| GitError::Failed(e.to_string()))?;
            Ok::<_, GitError>((status, out, err))
        };
        let (status, out, err) = tokio::time::timeout(self.config.timeout, work)
            .await
            .map_err(|_| GitError::Timeout(self.config.timeout.as_secs()))??;
        if let Some(writer) = writer {
            let _ = writer.await;
        }
        if status.success() {
            return Ok(out);
        }
        let mut message = String::from_utf8_lossy(&err).trim().to_owned();
        for secret in secrets {
            message = quire_core::secrets::redact_quoting(&message, secret);
        }
        Err(GitError::Failed(message))
    }

    /// The cached repository for `url`, created empty when there is none.
    pub async fn init_cache(&self, url: &str) -> GitResult<PathBuf> {
        let repo = self.cache_path(url);
        let lock = self.lock(&repo);
        let _guard = lock.lock().await;
        self.ensure_repo(&repo).await?;
        Ok(repo)
    }

    async fn ensure_repo(&self, repo: &Path) -> GitResult<()> {
        if !repo.join("HEAD").exists() {
            std::fs::create_dir_all(repo).map_err(|e| GitError::Failed(format!("cache directory: {e}")))?;
            let mut init = self.command(repo);
            init.args(["init", "--quiet", "--bare", "."]);
            self.run(init, None, &[]).await?;
        }
        Ok(())
    }

    /// Fetches `refname` of the repository at `url` into the cache; the
    /// commit it points at.
    pub async fn fetch(&self, url: &str, refname: &str) -> GitResult<Fetched> {
        let remote = self.check_url(url).await?;
        self.fetch_from(url, &remote, refname).await
    }

    async fn fetch_from(&self, url: &str, remote: &Remote, refname: &str) -> GitResult<Fetched> {
        check_ref(refname)?;
        let repo = self.cache_path(url);
        let lock = self.lock(&repo);
        let _guard = lock.lock().await;
        self.ensure_repo(&repo).await?;
        let mut fetch = self.remote_command(&repo, remote);
        fetch.args([
            "fetch",
            "--quiet",
            "--no-tags",
            "--force",
            "--depth=1",
            "--",
            &remote.url,
        ]);
        fetch.arg(format!("+{refname}:refs/quire/fetched"));
        if let Err(err) = self.run(fetch, None, &[url, &remote.url]).await {
            return Err(match err {
                GitError::Failed(message) if message.contains("couldn't find remote ref") => {
                    // Say which branches there are (GitBook-era repositories
                    // often have `master`, not `main`), when they can be read.
                    let branches = match self.branches_of(url, &repo, remote).await {
                        Ok(branches) => branches,
                        Err(_) => Branches::default(),
                    };
                    GitError::MissingRef(refname.to_owned(), branches)
                }
                other => other,
            });
        }
        let commit = self.rev_parse(&repo, "refs/quire/fetched^{commit}").await?;
        let message = self.commit_message(&repo, &commit).await?;
        Ok(Fetched { repo, commit, message })
    }

    /// The branches of the repository at `url` (`refs/heads/...`, sorted)
    /// and the one its `HEAD` names, when it says.
    pub async fn branches(&self, url: &str) -> GitResult<Branches> {
        let remote = self.check_url(url).await?;
        let repo = self.cache_path(url);
        let lock = self.lock(&repo);
        let _guard = lock.lock().await;
        self.ensure_repo(&repo).await?;
        self.branches_of(url, &repo, &remote).await
    }

    /// [`Git::branches`] run in the cache repository `repo`, whose lock the
    /// caller holds.
    async fn branches_of(&self, url: &str, repo: &Path, remote: &Remote) -> GitResult<Branches> {
        let mut cmd = self.remote_command(repo, remote);
        cmd.args(["ls-remote", "--symref", "--", &remote.url, "HEAD", "refs/heads/*"]);
        let out = self.run(cmd, None, &[url, &remote.url]).await?;
        Ok(Branches::parse(&String::from_utf8_lossy(&out)))
    }

    async fn rev_parse(&self, repo: &Path, rev: &str) -> GitResult<String> {
        let mut cmd = self.command(repo);
        cmd.args(["rev-parse", "--verify", "--quiet", rev]);
        let out = self.run(cmd, None, &[]).await?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    async fn commit_message(&self, repo: &Path, commit: &str) -> GitResult<String> {
        let mut cmd = self.command(repo);
        cmd.args(["log", "-1", "--format=%B", commit]);
        let out = self.run(cmd, None, &[]).await?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// The blobs of `commit` under `dir` (empty for the whole tree), with
    /// paths from `dir`. Submodules and symbolic links are left out.
    pub async fn tree(&self, repo: &Path, commit: &str, dir: &str) -> GitResult<Vec<TreeEntry>> {
        let mut cmd = self.command(repo);
        cmd.args(["ls-tree", "-r", "-l", "-z", "--full-tree", commit]);
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", dir.trim_end_matches('/'))
        };
        if !prefix.is_empty() {
            cmd.args(["--", &prefix]);
        }
        let out = self.run(cmd, None, &[]).await?;
        let mut entries = Vec::new();
        for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let record = String::from_utf8_lossy(record);
            let Some((meta, path)) = record.split_once('\t') else {
                continue;
            };
            let fields: Vec<&str> = meta.split_whitespace().collect();
            let [mode, kind, oid, size] = fields.as_slice() else {
                continue;
            };
            if *kind != "blob" || *mode == "120000" {
                continue;
            }
            let Some(path) = path.strip_prefix(prefix.as_str()) else {
                continue;
            };
            entries.push(TreeEntry {
                path: path.to_owned(),
                oid: (*oid).to_owned(),
                size: size.parse().unwrap_or_default(),
            });
        }
        Ok(entries)
    }

    /// The bytes of blobs, by object id.
    pub async fn blobs(&self, repo: &Path, oids: &[String]) -> GitResult<HashMap<String, Vec<u8>>> {
        if oids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut cmd = self.command(repo);
        cmd.args(["cat-file", "--batch"]);
        let input: Vec<u8> = oids.iter().flat_map(|o| format!("{o}\n").into_bytes()).collect();
        let out = self.run(cmd, Some(input), &[]).await?;
        let mut blobs = HashMap::with_capacity(oids.len());
        let mut rest = out.as_slice();
        while !rest.is_empty() {
            let Some(line_end) = rest.iter().position(|b| *b == b'\n') else {
                break;
            };
            let header = String::from_utf8_lossy(&rest[..line_end]).into_owned();
            rest = &rest[line_end + 1..];
            let fields: Vec<&str> = header.split(' ').collect();
            let [oid, _kind, size] = fields.as_slice() else {
                // `<oid> missing`
                continue;
            };
            let size: usize = size
                .parse()
                .map_err(|_| GitError::Failed(format!("cat-file: {header}")))?;
            if rest.len() < size {
                return Err(GitError::Failed("cat-file: short output".into()));
            }
            blobs.insert((*oid).to_owned(), rest[..size].to_vec());
            rest = rest.get(size + 1..).unwrap_or_default();
        }
        Ok(blobs)
    }

    /// Writes a commit: `parent`'s tree (or an empty one) with `changes`
    /// applied; `None` when that is `parent`'s tree already.
    pub async fn commit(
        &self,
        repo: &Path,
        parent: Option<&str>,
        changes: &[FileChange],
        message: &str,
        author: (&str, &str),
        committer: (&str, &str),
    ) -> GitResult<Option<String>> {
        let lock = self.lock(repo);
        let _guard = lock.lock().await;
        let work = tempfile::tempdir().map_err(|e| GitError::Failed(format!("temporary directory: {e}")))?;
        let index = work.path().join("index");
        let with_index = |git: &Git| {
            let mut cmd = git.command(repo);
            cmd.env("GIT_INDEX_FILE", &index);
            cmd
        };
        let mut read = with_index(self);
        match parent {
            Some(parent) => read.args(["read-tree", parent]),
            None => read.args(["read-tree", "--empty"]),
        };
        self.run(read, None, &[]).await?;
        // New blobs, written through files named by their position.
        let mut paths_input = String::new();
        let mut written = Vec::new();
        for (i, (path, bytes)) in changes.iter().enumerate() {
            if let Some(bytes) = bytes {
                let file = work.path().join(format!("blob-{i}"));
                std::fs::write(&file, bytes).map_err(|e| GitError::Failed(format!("temporary file: {e}")))?;
                paths_input.push_str(&format!("{}\n", file.display()));
                written.push(path.clone());
            }
        }
        let mut index_info = String::new();
        if !written.is_empty() {
            let mut hash = with_index(self);
            hash.args(["hash-object", "-w", "--no-filters", "--stdin-paths"]);
            let out = self.run(hash, Some(paths_input.into_bytes()), &[]).await?;
            let oids = String::from_utf8_lossy(&out).into_owned();
            for (path, oid) in written.iter().zip(oids.lines()) {
                index_info.push_str(&format!("100644 {oid}\t{path}\n"));
            }
        }
        for (path, bytes) in changes {
            if bytes.is_none() {
                index_info.push_str(&format!("0 {}\t{path}\n", "0".repeat(40)));
            }
        }
        let mut update = with_index(self);
        update.args(["update-index", "--index-info"]);
        self.run(update, Some(index_info.into_bytes()), &[]).await?;
        let mut write_tree = with_index(self);
        write_tree.args(["write-tree"]);
        let tree = String::from_utf8_lossy(&self.run(write_tree, None, &[]).await?)
            .trim()
            .to_owned();
        if let Some(parent) = parent
            && self.rev_parse(repo, &format!("{parent}^{{tree}}")).await? == tree
        {
            return Ok(None);
        }
        let mut commit = self.command(repo);
        commit
            .env("GIT_AUTHOR_NAME", author.0)
            .env("GIT_AUTHOR_EMAIL", author.1)
            .env("GIT_COMMITTER_NAME", committer.0)
            .env("GIT_COMMITTER_EMAIL", committer.1)
            .args(["commit-tree", &tree, "-F", "-"]);
        if let Some(parent) = parent {
            commit.args(["-p", parent]);
        }
        let out = self.run(commit, Some(message.as_bytes().to_vec()), &[]).await?;
        Ok(Some(String::from_utf8_lossy(&out).trim().to_owned()))
    }

    /// Pushes `commit` to `refname` of the repository at `url`.
    pub async fn push(&self, repo: &Path, url: &str, commit: &str, refname: &str, force: bool) -> GitResult<()> {
        let remote = self.check_url(url).await?;
        check_ref(refname)?;
        let lock = self.lock(repo);
        let _guard = lock.lock().await;
        let mut push = self.remote_command(repo, &remote);
        push.args(["push", "--porcelain", "--quiet"]);
        if force {
            push.arg("--force");
        }
        push.args(["--", &remote.url, &format!("{commit}:{refname}")]);
        match self.run(push, None, &[url, &remote.url]).await {
            Ok(_) => Ok(()),
            Err(GitError::Failed(message))
                if message.contains("[rejected]")
                    || message.contains("non-fast-forward")
                    || message.contains("fetch first") =>
            {
                Err(GitError::Rejected)
            }
            Err(other) => Err(other),
        }
    }
}

/// A ref name git accepts, and only that (`refs/heads/main`).
fn check_ref(refname: &str) -> GitResult<()> {
    let ok = refname.starts_with("refs/")
        && !refname.contains("..")
        && !refname.ends_with('/')
        && !refname.ends_with(".lock")
        && refname.chars().all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c));
    if ok {
        Ok(())
    } else {
        Err(GitError::Refused(format!(
            "{refname:?} is not a ref such as refs/heads/main"
        )))
    }
}

fn split_host_port(host_port: &str, default_port: u16) -> (String, u16) {
    if let Some(rest) = host_port.strip_prefix('[') {
        let (host, after) = rest.split_once(']').unwrap_or((rest, ""));
        let port = after
            .strip_prefix(':')
            .and_then(|p| p.parse().ok())
            .unwrap_or(default_port);
        return (host.to_owned(), port);
    }
    match host_port.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) && !port.is_empty() => {
            (host.to_owned(), port.parse().unwrap_or(default_port))
        }
        _ => (host_port.to_owned(), default_port),
    }
}

/// The object id git gives these bytes as a blob (SHA-1 of `blob <len>\0`).
pub fn blob_oid(bytes: &[u8]) -> String {
    use sha1::Digest;
    let mut hasher = sha1::Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_are_read_from_ls_remote_with_the_default_head_names() {
        let listing = "ref: refs/heads/master\tHEAD\n1111\tHEAD\n2222\trefs/heads/master\n3333\trefs/heads/gh-pages\n4444\trefs/tags/v1\n";
        let branches = Branches::parse(listing);
        assert_eq!(branches.default.as_deref(), Some("refs/heads/master"));
        assert_eq!(branches.names, ["refs/heads/gh-pages", "refs/heads/master"]);
        let missing = GitError::MissingRef("refs/heads/main".into(), branches).to_string();
        assert_eq!(
            missing,
            "the ref refs/heads/main does not exist in the repository; its branches are gh-pages, master (the default is master: ref refs/heads/master)"
        );
        assert_eq!(
            GitError::MissingRef("refs/heads/main".into(), Branches::default()).to_string(),
            "the ref refs/heads/main does not exist in the repository"
        );
    }

    #[test]
    fn remotes_are_pinned_to_the_checked_address() {
        let ip: IpAddr = "93.184.216.34".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]));
        let https = Remote::pinned(
            "https://t@git.example.com/r.git",
            "https",
            "git.example.com",
            "git.example.com",
            443,
            ip,
        );
        assert_eq!(https.url, "https://t@git.example.com/r.git");
        assert_eq!(https.resolve.as_deref(), Some("git.example.com:443:93.184.216.34"));
        let daemon = Remote::pinned(
            "git://git.example.com/r.git",
            "git",
            "git.example.com",
            "git.example.com",
            9418,
            ip,
        );
        assert_eq!(daemon.url, "git://93.184.216.34:9418/r.git");
        assert_eq!(daemon.resolve, None);
    }

    /// git connects where the pin says, not where the name resolves: a name
    /// that resolves nowhere reaches this listener only through the pin.
    #[tokio::test]
    async fn git_connects_to_the_pinned_address() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        let accepted = tokio::spawn(async move { listener.accept().await.is_ok() });
        let cache_dir = std::env::temp_dir().join(format!("quire-pin-{}", quire_core::id::new_id()));
        let git = Git::new(GitConfig {
            cache_dir: cache_dir.clone(),
            allow_private_networks: false,
            timeout: Duration::from_secs(20),
        });
        let authority = format!("quire-pin.invalid:{port}");
        let url = format!("http://{authority}/r.git");
        let remote = Remote::pinned(
            &url,
            "http",
            &authority,
            "quire-pin.invalid",
            port,
            IpAddr::from([127, 0, 0, 1]),
        );
        let fetched = git.fetch_from(&url, &remote, "refs/heads/main").await;
        assert!(fetched.is_err(), "the listener serves no repository");
        // git fails only once the listener dropped the connection it took.
        assert!(accepted.is_finished(), "git did not connect to the pinned address");
        accepted.abort();
        let _ = std::fs::remove_dir_all(cache_dir);
    }

    #[test]
    fn blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(blob_oid(b"hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
    }

    #[tokio::test]
    async fn the_policy_refuses_what_it_should() {
        let git = Git::new(GitConfig {
            cache_dir: std::env::temp_dir(),
            allow_private_networks: false,
            timeout: Duration::from_secs(5),
        });
        for url in [
            "file:///etc",
            "ssh://git@example.com/r.git",
            "ext::sh -c touch% /tmp/pwned",
            "http://127.0.0.1/r.git",
            "https://[::1]:8443/r.git",
            "git://10.0.0.1/r.git",
            "http://user:pw@169.254.169.254/latest",
        ] {
            assert!(matches!(git.check_url(url).await, Err(GitError::Refused(_))), "{url}");
        }
        assert!(check_ref("refs/heads/main").is_ok());
        for bad in ["main", "refs/heads/../x", "refs/heads/a b", "--upload-pack=x"] {
            assert!(check_ref(bad).is_err(), "{bad}");
        }
    }
}
