//! `quire backup` and `quire restore`: a consistent copy of the database
//! and the blobs, taken while a server runs, into a directory of its own,
//! and that directory put back under an empty data directory or database.
//!
//! A backup directory holds `backup.json` (what it is), the database
//! (`quire.db`, SQLite's `VACUUM INTO`, one read transaction; or
//! `quire.pgdump`, `pg_dump`'s custom format, one snapshot) and `blobs/`
//! (a copy of the local blob directory). The database is copied first:
//! blobs are written before the rows that name them commit and are never
//! removed, so every blob the copied database names is in the blob
//! directory when it is copied after. Blobs in S3 are the bucket's to copy
//! (the README says how).
//!
//! A backup holds every secret the database does, so the backup directory
//! is 0700 and everything in it 0600 or 0700 ([`crate::owner_only`]); a
//! restore writes the data directory the same way.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};
use quire_store::Db;
use quire_store::blobs::BlobStore;
use serde_json::json;

use crate::owner_only;

/// The file that says what a backup directory holds.
const MANIFEST: &str = "backup.json";
const SQLITE_FILE: &str = "quire.db";
const POSTGRES_FILE: &str = "quire.pgdump";
const BLOBS: &str = "blobs";

/// Where a backup is read from or written to, and where the data lives.
pub struct Storage<'a> {
    pub data_dir: &'a Path,
    pub database_url: Option<&'a str>,
    pub blobs: BlobStore,
}

/// Copies the database and the local blobs into `to` (created; it must not
/// exist or be empty). `to` is made 0700 before anything is written in it,
/// and what is written is 0600 (directories 0700).
pub async fn backup(storage: &Storage<'_>, to: &Path) -> anyhow::Result<()> {
    ensure_empty(to)?;
    owner_only::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    owner_only::tighten(to).with_context(|| format!("making {} private", to.display()))?;
    let (database, database_file) = match storage.database_url {
        None => {
            let db = Db::open(&Db::sqlite_url_for_dir(storage.data_dir))
                .await
                .context("opening the SQLite database")?;
            let copied = db.copy_sqlite_into(&to.join(SQLITE_FILE)).await;
            db.close().await;
            copied.context("copying the SQLite database")?;
            ("sqlite", SQLITE_FILE)
        }
        Some(url) => {
            let mut command = Command::new("pg_dump");
            command
                .args(["--format=custom", "--no-owner", "--file"])
                .arg(to.join(POSTGRES_FILE));
            run(with_connection(&mut command, url), "pg_dump", url)?;
            ("postgresql", POSTGRES_FILE)
        }
    };
    // SQLite and pg_dump create the file under the umask; made sure of here.
    owner_only::tighten(&to.join(database_file))
        .with_context(|| format!("making {} private", to.join(database_file).display()))?;
    let blobs = match &storage.blobs {
        BlobStore::Local(dir) => {
            let copied = copy_tree(dir, &to.join(BLOBS))?;
            json!({ "copied": copied })
        }
        BlobStore::S3(_) => json!({ "copied": 0, "note": "blobs are in S3: copy the bucket (see the README)" }),
    };
    let manifest = json!({
        "quire": env!("CARGO_PKG_VERSION"),
        "database": database,
        "blobs": blobs,
        "createdAt": quire_core::Clock::now(&quire_core::SystemClock).to_rfc3339(),
    });
    let mut manifest_file =
        owner_only::create_new_file(&to.join(MANIFEST)).with_context(|| format!("writing {MANIFEST}"))?;
    manifest_file.write_all(&serde_json::to_vec_pretty(&manifest)?)?;
    Ok(())
}

/// Puts the backup in `from` back: the database into the configured, empty
/// one, the blobs into the local blob directory. The server migrates a
/// backup of an older version when it starts.
pub async fn restore(storage: &Storage<'_>, from: &Path) -> anyhow::Result<()> {
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(from.join(MANIFEST)).with_context(|| format!("{} is not a Quire backup", from.display()))?,
    )?;
    let database = manifest["database"].as_str().unwrap_or_default();
    match (database, storage.database_url) {
        ("sqlite", None) => {
            let target = storage.data_dir.join(SQLITE_FILE);
            ensure!(
                !target.exists(),
                "{} already holds a database: restore into an empty data directory",
                storage.data_dir.display()
            );
            owner_only::create_dir_all(storage.data_dir)?;
            owner_only::copy_file(&from.join(SQLITE_FILE), &target).context("copying the database")?;
        }
        ("postgresql", Some(url)) => {
            ensure_empty_postgres(url).await?;
            let mut command = Command::new("pg_restore");
            command
                .args(["--no-owner", "--exit-on-error"])
                .arg(from.join(POSTGRES_FILE));
            run(with_connection(&mut command, url), "pg_restore", url)?;
        }
        ("sqlite", Some(_)) => bail!("this backup is of a SQLite database: restore it without --database-url"),
        ("postgresql", None) => bail!("this backup is of a PostgreSQL database: restore it with --database-url"),
        (other, _) => bail!("unknown database kind {other:?} in the backup"),
    }
    if let BlobStore::Local(dir) = &storage.blobs {
        copy_tree(&from.join(BLOBS), dir)?;
    }
    Ok(())
}

/// Refuses a target that exists and holds anything.
fn ensure_empty(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
        ensure!(
            entries.next().is_none(),
            "{} is not empty: back up into a new directory",
            dir.display()
        );
    }
    Ok(())
}

/// Refuses a PostgreSQL database that already holds Quire's tables.
async fn ensure_empty_postgres(url: &str) -> anyhow::Result<()> {
    let db = Db::connect(url).await.context("connecting to the database")?;
    let holds_tables = db.holds_tables().await;
    db.close().await;
    ensure!(
        !holds_tables?,
        "the database already holds tables: restore into an empty database"
    );
    Ok(())
}

/// Names the database for `pg_dump` or `pg_restore`: the URL without its
/// password as `--dbname`, the password in `PGPASSWORD`, so it never shows
/// in the list of processes.
fn with_connection<'c>(command: &'c mut Command, url: &str) -> &'c mut Command {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let (userinfo, host) = match rest.split_once('@') {
        Some((userinfo, host)) if !userinfo.contains('/') => (Some(userinfo), host),
        _ => (None, rest),
    };
    match userinfo.and_then(|u| u.split_once(':')) {
        Some((user, password)) => command
            .env("PGPASSWORD", quire_core::percent::decode(password))
            .arg("--dbname")
            .arg(format!("{scheme}://{user}@{host}")),
        None => command.arg("--dbname").arg(url),
    }
}

/// Runs a command, failing with its own error output (nothing of the
/// database URL's secrets in it).
fn run(command: &mut Command, name: &str, url: &str) -> anyhow::Result<()> {
    let output = command
        .output()
        .with_context(|| format!("running {name} (is PostgreSQL's client installed?)"))?;
    ensure!(
        output.status.success(),
        "{name} failed: {}",
        quire_core::secrets::redact_quoting(String::from_utf8_lossy(&output.stderr).trim(), url)
    );
    Ok(())
}

/// Copies the files under `from` to the same places under `to`, leaving
/// files already there (blobs are named by their content); the files
/// copied. What it creates is the owner's alone: directories 0700, files
/// 0600 (directories that exist keep their mode).
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<u64> {
    if !from.exists() {
        return Ok(0);
    }
    let mut copied = 0;
    let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        owner_only::create_dir_all(&to.join(&relative))
            .with_context(|| format!("creating {}", to.join(&relative).display()))?;
        for entry in std::fs::read_dir(from.join(&relative))? {
            let entry = entry?;
            let path = relative.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else if !to.join(&path).exists() {
                owner_only::copy_file(&from.join(&path), &to.join(&path))
                    .with_context(|| format!("copying {}", from.join(&path).display()))?;
                copied += 1;
            }
        }
    }
    Ok(copied)
}
