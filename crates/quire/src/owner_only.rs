//! Files and directories only the account running Quire can read: 0700
//! directories, 0600 files. The data directory and backups hold Git Sync
//! credentials, webhook secrets, visitor-authentication keys and password
//! and token hashes, so nobody else on the machine may read them.
//!
//! Three parts: the process's umask is 0o077 from its first line, so what
//! Quire and its children (`pg_dump`, `git`) create is private whatever
//! umask it was started with; copies are made private explicitly
//! (`std::fs::copy` gives the copy the source's mode, umask or not); and a
//! data directory an older version left readable is tightened at start.
//! Nothing else the operator names is changed (a `--blob-url` directory,
//! the parents of the data directory or of a backup).

use std::fs::{self, File};
use std::io;
use std::path::Path;

use anyhow::Context;

/// The mode of every directory Quire creates or tightens.
pub const DIRECTORY_MODE: u32 = 0o700;
/// The mode of every file Quire creates or tightens.
pub const FILE_MODE: u32 = 0o600;

/// What `quire_store::Db::sqlite_url_for_dir` keeps in the data directory:
/// the database and SQLite's files beside it (which SQLite creates with the
/// database's own mode).
const DATABASE_FILES: [&str; 4] = ["quire.db", "quire.db-wal", "quire.db-shm", "quire.db-journal"];
/// The default local blob directory in the data directory.
const BLOB_DIRECTORY: &str = "blobs";

/// Makes everything this process and its children create from now on the
/// owner's alone (umask 0o077). Called first in `main`, before any file is
/// created.
pub fn restrict_umask() {
    #[cfg(unix)]
    // SAFETY: umask(2) only swaps the process's file-creation mask; it
    // cannot fail and reads or writes no memory of ours.
    unsafe {
        libc::umask(0o077);
    }
}

/// `path` and its missing parents created as 0700 directories (the
/// directories that exist already keep their mode).
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIRECTORY_MODE);
    builder.create(path)
}

/// A new 0600 file at `path`, open for writing; an error if it exists.
pub fn create_new_file(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options.open(path)
}

/// Copies the file `from` to a new 0600 file `to`; the bytes copied.
pub fn copy_file(from: &Path, to: &Path) -> io::Result<u64> {
    let mut source = File::open(from)?;
    let mut copy = create_new_file(to)?;
    io::copy(&mut source, &mut copy)
}

/// Takes `path` (followed if a symbolic link) to 0700 if a directory, 0600
/// otherwise, when group or others have any permission on it; its mode
/// before when it was changed.
pub fn tighten(path: &Path) -> io::Result<Option<u32>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let metadata = fs::metadata(path)?;
        let mode = metadata.permissions().mode() & 0o7777;
        if mode & 0o077 == 0 {
            return Ok(None);
        }
        let private = if metadata.is_dir() { DIRECTORY_MODE } else { FILE_MODE };
        fs::set_permissions(path, fs::Permissions::from_mode(private))?;
        Ok(Some(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(None)
    }
}

/// Makes the data directory private: created as 0700 when missing and
/// `create`; when it exists, tightened to 0700 with the database files and
/// the blob directory Quire keeps in it. When the directory itself was
/// readable by others (as older versions left it), every directory and
/// file under its blob directory is tightened too: one pass on the first
/// start after an upgrade; after it, the 0700 data directory keeps everyone
/// else out and new blobs are 0600 by the umask. Logged once, at info.
pub fn secure_data_dir(dir: &Path, create: bool) -> anyhow::Result<()> {
    let context = || format!("making the data directory {} private", dir.display());
    if !dir.exists() {
        if create {
            create_dir_all(dir).with_context(context)?;
        }
        return Ok(());
    }
    let directory_was = tighten(dir).with_context(context)?;
    let mut tightened = 0_u64;
    for name in DATABASE_FILES {
        let path = dir.join(name);
        if is_regular_file(&path) && tighten(&path).with_context(context)?.is_some() {
            tightened += 1;
        }
    }
    let blobs = dir.join(BLOB_DIRECTORY);
    if fs::symlink_metadata(&blobs).is_ok_and(|m| m.is_dir()) {
        tightened += if directory_was.is_some() {
            tighten_tree(&blobs).with_context(context)?
        } else {
            u64::from(tighten(&blobs).with_context(context)?.is_some())
        };
    }
    match directory_was {
        Some(mode) => tracing::info!(
            data_dir = %dir.display(),
            was = format!("{mode:o}"),
            now = format!("{DIRECTORY_MODE:o}"),
            entries_tightened = tightened,
            "the data directory was readable by other accounts: only this one can read it now"
        ),
        None if tightened > 0 => tracing::info!(
            data_dir = %dir.display(),
            entries_tightened = tightened,
            "files in the data directory were readable by other accounts: only this one can read them now"
        ),
        None => {}
    }
    Ok(())
}

/// Whether `path` is a regular file itself (not a link to one).
fn is_regular_file(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Tightens `root` and every directory and file under it (symbolic links
/// are neither followed nor changed); how many were changed.
fn tighten_tree(root: &Path) -> io::Result<u64> {
    let mut tightened = u64::from(tighten(root)?.is_some());
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                continue;
            }
            let path = entry.path();
            tightened += u64::from(tighten(&path)?.is_some());
            if kind.is_dir() {
                pending.push(path);
            }
        }
    }
    Ok(tightened)
}
