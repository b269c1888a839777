//! The export job: write the space's current content in GitBook's layout
//! as one commit on top of the ref, and push it.
//!
//! - Minimal diffs: only files whose bytes differ from the remote's are
//!   written (`quire_import::gitbook::export` keeps unchanged pages byte for
//!   byte); pages, files and includes that were synced before and are gone
//!   are deleted; git sees moves as renames. A merged change request
//!   exported on its own is one commit `GITBOOK-{number}: {subject}`.
//! - The remote moved since the last sync (or the push is refused because
//!   it just moved): its commit is imported as a standalone revision and
//!   merged into the space with the content engine's three-way merge (the
//!   base being the last synced revision), then the export goes on top of
//!   it. A real conflict opens a change request holding the remote's
//!   version, and nothing is pushed.
//! - After a push, the pages, files and includes that got a new place in
//!   the repository record it (one revision), so the next import matches
//!   them to the same ids.

use quire_core::SyncState;
use std::collections::{HashMap, HashSet};

use anyhow::Context;
use quire_adapters::git::{FileChange, GitError, blob_oid};
use quire_content::objects::GitBlob;
use quire_content::tree::PageKind;
use quire_engine::imports::{ImportedFile, ImportedPage, ImportedReusable, ImportedState, Target};
use quire_engine::{EngineError, Snapshot};
use quire_import::gitbook::Config;
use quire_import::gitbook::export::{
    self as layout, Content, ExportInclude, ExportItem, ExportKind, ExportPage, PreviousSummary,
};
use quire_store::git_syncs::{self, GitSyncRow};
use quire_store::{change_requests, spaces};
use serde::Serialize;

use super::import::{build_state, commit_json, read_repo};
use super::{GitExport, applied_event, finish};
use quire_app::App;

/// What an export did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    /// The commit pushed (or the remote's, when there was nothing to push).
    pub commit: Option<String>,
    /// Paths written and deleted.
    pub written: Vec<String>,
    pub deleted: Vec<String>,
    /// The remote's changes merged into the space first, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_remote: Option<String>,
    /// The change request opened for a conflict with the remote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_request: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

impl ExportReport {
    /// What the export did, as the space's Git Sync state shows it.
    fn summary(&self) -> String {
        serde_json::json!({
            "commit": self.commit,
            "written": self.written.len(),
            "deleted": self.deleted.len(),
            "changeRequest": self.change_request,
            "problems": [],
        })
        .to_string()
    }
}

/// Who commits exports; the author is the person the change came from (the
/// author of a merged change request exported alone, else who asked for
/// the export).
const COMMITTER: (&str, &str) = ("Quire", "quire@localhost");

pub(super) async fn run(app: &App, job: &GitExport) -> anyhow::Result<ExportReport> {
    if let Some(target) = &job.standalone {
        // A snapshot elsewhere: no sync state is read or kept.
        let row = GitSyncRow {
            space_id: job.space_id.clone(),
            url: target.url.clone(),
            git_ref: target.git_ref.clone(),
            project_directory: target.project_directory.clone(),
            tree_url: None,
            commit_url: None,
            last_event_at: None,
            last_commit: None,
            last_revision: None,
            summary_path: None,
            summary_text: None,
            operation_state: None,
            operation_direction: None,
            operation_started_at: None,
            operation_ended_at: None,
            operation_error: None,
            last_result: None,
            updated_at: app.now(),
        };
        return export(app, job, &row).await.map(|(report, _)| report);
    }
    let row = {
        let mut conn = app.db.read().await?;
        git_syncs::get(&mut conn, &job.space_id).await?
    };
    let Some(row) = row else {
        return Ok(ExportReport {
            ignored: Some("the space is no longer connected to a repository".into()),
            ..ExportReport::default()
        });
    };
    if let (Some(at), Some(last)) = (job.event_at, row.last_event_at)
        && at < last.0
    {
        return Ok(ExportReport {
            ignored: Some("an event newer than this one was applied".into()),
            ..ExportReport::default()
        });
    }
    match export(app, job, &row).await {
        Ok((report, synced)) => {
            finish(app, &job.space_id, |sync| {
                if report.change_request.is_some() {
                    sync.operation_state = Some(SyncState::Failure);
                    sync.operation_error = Some(
                        "the repository changed in a way that conflicts with the space: a change request holds its version"
                            .into(),
                    );
                } else {
                    sync.operation_state = Some(SyncState::Success);
                    sync.operation_error = None;
                }
                applied_event(sync, job.event_at);
                sync.last_result = Some(report.summary());
                if let Some(synced) = synced {
                    sync.last_commit = Some(synced.commit);
                    sync.last_revision = Some(synced.revision);
                    sync.summary_path = synced.summary.as_ref().map(|(p, _)| p.clone());
                    sync.summary_text = synced.summary.map(|(_, t)| t);
                }
            })
            .await?;
            Ok(report)
        }
        Err(err) => {
            let message = format!("{err:#}");
            finish(app, &job.space_id, |sync| {
                sync.operation_state = Some(SyncState::Failure);
                sync.operation_error = Some(message.clone());
            })
            .await?;
            Err(err)
        }
    }
}

/// What is the same on both sides after an export.
struct Synced {
    commit: String,
    revision: String,
    summary: Option<(String, String)>,
}

async fn export(app: &App, job: &GitExport, row: &GitSyncRow) -> anyhow::Result<(ExportReport, Option<Synced>)> {
    let git = &app.git;
    let mut report = ExportReport::default();
    // The remote commit whose changes are already in the space.
    let mut known_remote = row.last_commit.clone();
    let mut last_revision = row.last_revision.clone();
    for _attempt in 0..3 {
        let fetched = match git.fetch(&row.url, &row.git_ref).await {
            Ok(fetched) => Some(fetched),
            Err(GitError::MissingRef(..)) => None,
            Err(err) => return Err(err.into()),
        };
        let space = {
            let mut conn = app.db.read().await?;
            spaces::get_any(&mut conn, &job.space_id)
                .await
                .context("the space is gone")?
        };
        // The remote moved since the last sync: bring its changes in first.
        if let (Some(fetched), Some(known), Some(base)) = (&fetched, &known_remote, &last_revision)
            && fetched.commit != *known
            && !job.force
        {
            let repo = read_repo(app, fetched.clone(), &row.project_directory).await?;
            let base_snapshot = app.engine.revisions.snapshot(&space.id, base).await?;
            let (state, _, _) = build_state(app, &repo, &base_snapshot).await?;
            let git_json = commit_json(row, &fetched.commit, &fetched.message, false);
            let theirs = app
                .engine
                .imports
                .commit(
                    &space,
                    &base_snapshot,
                    state,
                    &job.user_id,
                    Some(git_json),
                    Target::Standalone,
                )
                .await?;
            match app
                .engine
                .merges
                .merge_revision(&space, base, &theirs.revision.id, &job.user_id)
                .await
            {
                Ok(merged) => {
                    report.merged_remote = Some(fetched.commit.clone());
                    known_remote = Some(fetched.commit.clone());
                    // The merge holds the remote's content: later diffs are
                    // against the remote as it is now.
                    last_revision = Some(theirs.revision.id.clone());
                    tracing::info!(space = %space.id, revision = %merged.revision.id, "merged the Git remote's changes");
                    continue;
                }
                Err(EngineError::Conflict(reason)) => {
                    let subject = format!("Changes from Git ({})", row.git_ref);
                    let cr = app
                        .engine
                        .change_requests
                        .open_with(&space, &subject, &job.user_id, base, &theirs.revision.id)
                        .await?;
                    tracing::warn!(space = %space.id, change_request = cr.number, %reason, "git export: conflicting remote changes");
                    report.change_request = Some(cr.id);
                    return Ok((report, None));
                }
                Err(err) => return Err(err.into()),
            }
        }
        let head = app.engine.revisions.snapshot(&space.id, &space.revision_id).await?;
        let repo = match &fetched {
            Some(fetched) => Some(read_repo(app, fetched.clone(), &row.project_directory).await?),
            None => None,
        };
        let config = repo.as_ref().map(|r| r.config.clone()).unwrap_or_default();
        let remote: HashMap<String, String> = repo
            .as_ref()
            .map(|r| r.entries.iter().map(|e| (e.path.clone(), e.oid.clone())).collect())
            .unwrap_or_default();
        let previous = match &last_revision {
            Some(id) => Some(app.engine.revisions.snapshot(&space.id, id).await?),
            None => None,
        };
        let written = write_layout(app, &head, &config, row).await?;
        let (changes, paths_written, paths_deleted) =
            changes(app, &head, &written, &remote, previous.as_deref(), row).await?;
        let parent = fetched.as_ref().map(|f| f.commit.clone());
        let (message, author_id) = commit_message(app, &head, previous.as_deref(), &job.commit_message).await?;
        let author = {
            let mut conn = app.db.read().await?;
            let id = author_id.as_deref().unwrap_or(&job.user_id);
            quire_store::users::get(&mut conn, id).await.ok()
        };
        let prefix = |path: &str| {
            if row.project_directory.is_empty() {
                path.to_owned()
            } else {
                format!("{}/{path}", row.project_directory)
            }
        };
        let full: Vec<FileChange> = changes.into_iter().map(|(p, b)| (prefix(&p), b)).collect();
        let repo_dir = match &fetched {
            Some(f) => f.repo.clone(),
            None => git.init_cache(&row.url).await?,
        };
        let commit = if full.is_empty() {
            parent.clone()
        } else {
            let author = author
                .as_ref()
                .map_or(COMMITTER, |user| (user.display_name.as_str(), user.email.as_str()));
            git.commit(&repo_dir, parent.as_deref(), &full, &message, author, COMMITTER)
                .await?
        };
        let Some(commit) = commit else {
            // Nothing to commit on an empty branch: nothing to push.
            return Ok((report, None));
        };
        if Some(&commit) != parent.as_ref() {
            match git.push(&repo_dir, &row.url, &commit, &row.git_ref, job.force).await {
                Ok(()) => {}
                Err(GitError::Rejected) => {
                    tracing::info!(space = %space.id, "git export: the branch moved, merging it first");
                    continue;
                }
                Err(err) => return Err(err.into()),
            }
        }
        report.commit = Some(commit.clone());
        report.written = paths_written;
        report.deleted = paths_deleted;
        if job.standalone.is_some() {
            // A snapshot: the space stays linked to what it was linked to.
            return Ok((report, None));
        }
        let revision = record_paths(app, &space, &head, &written, &job.user_id).await?;
        let summary = written.summary.clone();
        return Ok((
            report,
            Some(Synced {
                commit,
                revision,
                summary,
            }),
        ));
    }
    anyhow::bail!("the branch kept moving during the export; it will be tried again")
}

/// The space written as files, with the text of each and the Git blob id.
struct Written {
    exported: layout::Exported,
    /// The summary file's path and text, when one was written.
    summary: Option<(String, String)>,
}

async fn write_layout(app: &App, head: &Snapshot, config: &Config, row: &GitSyncRow) -> anyhow::Result<Written> {
    let order: Vec<String> = head.tree.walk().into_iter().map(|(id, _)| id).collect();
    let hashes: Vec<String> = order
        .iter()
        .filter_map(|id| head.tree.pages[id].meta.document.clone())
        .chain(head.reusable.iter().map(|(_, r)| r.document.clone()))
        .collect();
    let documents = app.engine.revisions.documents(&hashes).await?;
    let empty: std::sync::Arc<str> = "".into();
    let text_of = |hash: Option<&String>| hash.and_then(|h| documents.get(h)).unwrap_or(&empty).clone();
    let texts: Vec<std::sync::Arc<str>> = order
        .iter()
        .map(|id| text_of(head.tree.pages[id].meta.document.as_ref()))
        .collect();
    let pages: Vec<ExportPage<'_>> = order
        .iter()
        .zip(&texts)
        .map(|(id, text)| {
            let page = &head.tree.pages[id];
            let meta = &page.meta;
            ExportPage {
                id,
                parent: page.parent.as_deref(),
                title: &meta.title,
                link_title: meta.link_title.as_deref(),
                slug: &meta.slug,
                kind: match &meta.kind {
                    PageKind::Document => ExportKind::Document { markdown: text },
                    PageKind::Group => ExportKind::Group,
                    PageKind::Link { target } => ExportKind::Link { url: target },
                },
                git_path: meta.git.as_ref().map(|g| g.path.as_str()),
                description: meta.description.as_deref(),
                hidden: meta.hidden,
                condition: meta.condition.as_deref(),
            }
        })
        .collect();
    let files: Vec<ExportItem<'_>> = head
        .files
        .iter()
        .map(|(_, f)| ExportItem {
            id: &f.id,
            name: &f.name,
            git_path: f.git.as_ref().map(|g| g.path.as_str()),
        })
        .collect();
    let include_texts: Vec<std::sync::Arc<str>> =
        head.reusable.iter().map(|(_, r)| text_of(Some(&r.document))).collect();
    let includes: Vec<ExportInclude<'_>> = head
        .reusable
        .iter()
        .zip(&include_texts)
        .map(|((_, r), text)| ExportInclude {
            id: &r.id,
            title: &r.title,
            git_path: r.git.as_ref().map(|g| g.path.as_str()),
            markdown: text,
        })
        .collect();
    let previous = match (&row.summary_path, &row.summary_text) {
        (Some(path), Some(text)) => Some(PreviousSummary { path, text }),
        _ => None,
    };
    let exported = layout::export(&pages, &files, &includes, config, previous);
    let summary_path = previous.map_or_else(|| format!("{}{}", config.root, config.summary), |p| p.path.to_owned());
    let summary = exported.files.iter().find_map(|(path, content)| match content {
        Content::Text(text) if *path == summary_path => Some((path.clone(), text.clone())),
        _ => None,
    });
    Ok(Written { exported, summary })
}

/// The files to write (those whose bytes differ from the remote's) and to
/// delete (synced before, gone now).
async fn changes(
    app: &App,
    head: &Snapshot,
    written: &Written,
    remote: &HashMap<String, String>,
    previous: Option<&Snapshot>,
    row: &GitSyncRow,
) -> anyhow::Result<(Vec<FileChange>, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    let mut paths_written = Vec::new();
    for (path, content) in &written.exported.files {
        let bytes = match content {
            Content::Text(text) => {
                if remote.get(path).is_some_and(|oid| *oid == blob_oid(text.as_bytes())) {
                    continue;
                }
                text.as_bytes().to_vec()
            }
            Content::File(id) => {
                let Some(file) = head.file(id) else { continue };
                if let (Some(git), Some(oid)) = (&file.git, remote.get(path))
                    && git.oid == *oid
                {
                    continue;
                }
                let bytes = app.engine.files.bytes(file).await?;
                if remote.get(path).is_some_and(|oid| *oid == blob_oid(&bytes)) {
                    continue;
                }
                bytes
            }
        };
        paths_written.push(path.clone());
        out.push((path.clone(), Some(bytes)));
    }
    // Deletions: what the last sync wrote or read, no longer written.
    let now: HashSet<&str> = written.exported.files.iter().map(|(p, _)| p.as_str()).collect();
    let mut before: HashSet<String> = HashSet::new();
    if let Some(previous) = previous {
        before.extend(
            previous
                .tree
                .pages
                .values()
                .filter_map(|p| p.meta.git.as_ref().map(|g| g.path.clone())),
        );
        before.extend(
            previous
                .files
                .iter()
                .filter_map(|(_, f)| f.git.as_ref().map(|g| g.path.clone())),
        );
        before.extend(
            previous
                .reusable
                .iter()
                .filter_map(|(_, r)| r.git.as_ref().map(|g| g.path.clone())),
        );
        before.extend(row.summary_path.clone());
    }
    let mut paths_deleted: Vec<String> = before
        .into_iter()
        .filter(|p| !now.contains(p.as_str()) && remote.contains_key(p))
        .collect();
    paths_deleted.sort();
    out.extend(paths_deleted.iter().map(|p| (p.clone(), None)));
    Ok((out, paths_written, paths_deleted))
}

/// `GITBOOK-{number}: {subject}` when the export carries exactly one
/// merged change request since the last sync, else the request's message.
/// The export commit's message, and who wrote what it carries when that is
/// one person: for a merged change request exported alone, its author.
async fn commit_message(
    app: &App,
    head: &Snapshot,
    previous: Option<&Snapshot>,
    requested: &str,
) -> anyhow::Result<(String, Option<String>)> {
    let revision = &head.revision;
    let alone = previous.is_some_and(|p| revision.parents.first() == Some(&p.revision.id));
    if let (true, "merge", Some(cr_id)) = (alone, revision.kind.as_str(), &revision.merged_from) {
        let mut conn = app.db.read().await?;
        if let Ok(cr) = change_requests::get(&mut conn, &revision.space_id, cr_id).await {
            return Ok((format!("GITBOOK-{}: {}", cr.number, cr.subject), Some(cr.created_by)));
        }
    }
    Ok((requested.to_owned(), None))
}

/// Records where pages, files and includes are in the repository now (and
/// the text written for pages whose file says more than their markdown),
/// as one revision when anything changed; the revision the space is synced
/// at.
async fn record_paths(
    app: &App,
    space: &quire_store::spaces::SpaceRow,
    head: &Snapshot,
    written: &Written,
    user_id: &str,
) -> anyhow::Result<String> {
    let texts: HashMap<&str, &str> = written
        .exported
        .files
        .iter()
        .filter_map(|(p, c)| match c {
            Content::Text(t) => Some((p.as_str(), t.as_str())),
            Content::File(_) => None,
        })
        .collect();
    let blob_at = |id: &str| -> Option<GitBlob> {
        let path = written.exported.paths.get(id)?;
        let oid = texts.get(path.as_str()).map(|t| blob_oid(t.as_bytes()))?;
        Some(GitBlob {
            oid,
            path: path.clone(),
        })
    };
    let mut changed = false;
    let order: Vec<String> = head.tree.walk().into_iter().map(|(id, _)| id).collect();
    let hashes: Vec<String> = order
        .iter()
        .filter_map(|id| head.tree.pages[id].meta.document.clone())
        .collect();
    let documents = app.engine.revisions.documents(&hashes).await?;
    let mut state = ImportedState::default();
    for id in &order {
        let page = &head.tree.pages[id];
        let mut meta = page.meta.clone();
        let mut markdown = meta
            .document
            .take()
            .and_then(|h| documents.get(&h).map(|t| t.to_string()));
        if matches!(meta.kind, PageKind::Document) {
            let git = blob_at(id);
            if git != meta.git {
                changed = true;
                meta.git = git;
            }
            // The page holds what its file says (a new heading, links by
            // path, front matter), so the next import changes nothing.
            let file_text = written
                .exported
                .paths
                .get(id.as_str())
                .and_then(|p| texts.get(p.as_str()));
            if let Some(text) = file_text
                && markdown.as_deref() != Some(*text)
            {
                changed = true;
                markdown = Some((*text).to_owned());
            }
        }
        state.pages.push(ImportedPage {
            id: id.clone(),
            parent: page.parent.clone(),
            meta,
            markdown,
        });
    }
    for (_, file) in &head.files {
        let mut kept = file.clone();
        if let Some(path) = written.exported.paths.get(&file.id)
            && kept.git.as_ref().map(|g| &g.path) != Some(path)
        {
            changed = true;
            let bytes = app.engine.files.bytes(file).await?;
            kept.git = Some(GitBlob {
                oid: blob_oid(&bytes),
                path: path.clone(),
            });
        }
        state.files.push(ImportedFile::Kept(kept));
    }
    for (_, reusable) in &head.reusable {
        let git = blob_at(&reusable.id);
        if git.as_ref().map(|g| &g.path) != reusable.git.as_ref().map(|g| &g.path) {
            changed = true;
        }
        let markdown = app.engine.revisions.document(&reusable.document).await?.to_string();
        state.reusable.push(ImportedReusable {
            id: reusable.id.clone(),
            title: reusable.title.clone(),
            markdown,
            git: git.or_else(|| reusable.git.clone()),
        });
    }
    if !changed {
        return Ok(head.revision.id.clone());
    }
    let snapshot = app
        .engine
        .imports
        .commit(space, head, state, user_id, head.revision.git.clone(), Target::Space)
        .await?;
    Ok(snapshot.revision.id.clone())
}
