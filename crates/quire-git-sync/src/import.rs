//! The import job: fetch the repository's ref, read its GitBook layout
//! (`quire_import::gitbook::plan`), and commit what it holds as a new
//! revision of the space.
//!
//! Imports are incremental: a page keeps its id when a page of the space
//! has the same Git path (a group or link page, the same title under the
//! same parent), so comments, links and change requests survive; markdown
//! is stored as the file says it (an unchanged file is the same document
//! object); a file whose blob did not change keeps its file object. What
//! cannot be imported (bad YAML, a summary entry without its file, a file
//! too large) is skipped, logged and listed in the job's result.

use quire_core::SyncState;
use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use quire_adapters::git::{Fetched, TreeEntry};
use quire_content::objects::GitBlob;
use quire_content::tree::{PageKind, PageMeta};
use quire_engine::Snapshot;
use quire_engine::imports::{ImportedFile, ImportedPage, ImportedReusable, ImportedState, Target};
use quire_import::gitbook::{self, Config, ImportPlan, PlannedKind, RepoFile};
use quire_store::git_syncs::{self, GitSyncRow};
use quire_store::spaces;
use serde::Serialize;

use super::{GitImport, applied_event, finish, finish_then};
use quire_app::App;

/// What an import did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// The new revision; `None` when nothing was imported.
    pub revision: Option<String>,
    pub commit: Option<String>,
    pub pages: usize,
    pub files: usize,
    pub skipped: Vec<SkippedItem>,
    /// What pages say that Quire does not understand (block tags it does
    /// not know, links to other GitBook spaces), a note each.
    pub notes: Vec<PageNote>,
    /// Why nothing was imported, when nothing was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

impl ImportReport {
    /// What the import did, as the space's Git Sync state shows it: the
    /// skipped files and the pages' notes are its problems.
    fn summary(&self) -> String {
        let problems: Vec<_> = self
            .skipped
            .iter()
            .map(|s| serde_json::json!({ "path": s.path, "problem": s.reason }))
            .chain(
                self.notes
                    .iter()
                    .map(|n| serde_json::json!({ "path": n.path, "problem": n.note })),
            )
            .collect();
        serde_json::json!({
            "commit": self.commit,
            "pages": self.pages,
            "files": self.files,
            "ignored": self.ignored,
            "problems": problems,
        })
        .to_string()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedItem {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PageNote {
    pub path: String,
    pub note: String,
}

/// A ref of the repository, read: its commit, files and configuration.
pub(super) struct RepoState {
    pub fetched: Fetched,
    /// Files of the project directory (paths from it).
    pub entries: Vec<TreeEntry>,
    pub config: Config,
    /// The text of every markdown file small enough to be a page.
    pub texts: HashMap<String, String>,
    pub skipped: Vec<SkippedItem>,
}

/// Reads `commit` of the fetched repository under the project directory.
pub(super) async fn read_repo(app: &App, fetched: Fetched, project_directory: &str) -> anyhow::Result<RepoState> {
    let git = &app.git;
    let entries = git.tree(&fetched.repo, &fetched.commit, project_directory).await?;
    let mut skipped = Vec::new();
    let config_entry = entries.iter().find(|e| e.path == ".gitbook.yaml");
    let wanted: Vec<String> = entries
        .iter()
        .filter(|e| (e.path.ends_with(".md") && e.size <= gitbook::MAX_PAGE_BYTES) || Some(*e) == config_entry)
        .map(|e| e.oid.clone())
        .collect();
    let blobs = git.blobs(&fetched.repo, &wanted).await?;
    let config = match config_entry.and_then(|e| blobs.get(&e.oid)) {
        Some(bytes) => match Config::parse(&String::from_utf8_lossy(bytes)) {
            Ok(config) => config,
            Err(reason) => {
                skipped.push(SkippedItem {
                    path: ".gitbook.yaml".into(),
                    reason: format!("{reason}; read with the default configuration"),
                });
                Config::default()
            }
        },
        None => Config::default(),
    };
    let texts = entries
        .iter()
        .filter(|e| e.path.ends_with(".md"))
        .filter_map(|e| {
            let bytes = blobs.get(&e.oid)?;
            Some((e.path.clone(), String::from_utf8(bytes.clone()).ok()?))
        })
        .collect();
    Ok(RepoState {
        fetched,
        entries,
        config,
        texts,
        skipped,
    })
}

/// The Git commit a revision names (the `git` of the official revision).
pub(super) fn commit_json(row: &GitSyncRow, commit: &str, message: &str, by_quire: bool) -> String {
    let mut git = serde_json::json!({
        "oid": commit,
        "message": message,
        "ref": row.git_ref,
        "createdByGitBook": by_quire,
    });
    if let Some(prefix) = &row.commit_url {
        git["url"] = serde_json::Value::String(format!("{prefix}{commit}"));
    }
    git.to_string()
}

/// The `.gitbook.yaml` redirects whose target is a page of `snapshot`, as
/// JSON `{"old/path": "<page id>"}` (old paths without slashes around them
/// or `.md`); `None` when there are none. A target is a page's file, or,
/// as GitBook reads it, a path without `.md` or a folder (`guide/`, its
/// `README.md`).
fn redirects(config: &quire_import::gitbook::Config, snapshot: &quire_engine::Snapshot) -> Option<String> {
    let mut out = serde_json::Map::new();
    for (from, to) in &config.redirects {
        let to = to.trim_start_matches("./").trim_start_matches('/');
        let path = format!("{}{to}", config.root);
        let page = match snapshot.by_git_path(&path) {
            Some(quire_engine::GitTarget::Page(id)) => Some(id.clone()),
            Some(_) => None,
            None => snapshot.page_by_git_path(&path),
        };
        if let Some(id) = page {
            let from = from.trim_matches('/');
            let from = from.strip_suffix(".md").unwrap_or(from);
            out.insert(from.to_owned(), serde_json::Value::String(id));
        }
    }
    (!out.is_empty()).then(|| serde_json::Value::Object(out).to_string())
}

pub(super) async fn run(app: &App, job: &GitImport) -> anyhow::Result<ImportReport> {
    let row = {
        let mut conn = app.db.read().await?;
        git_syncs::get(&mut conn, &job.space_id).await?
    };
    let Some(row) = row else {
        return Ok(ignored("the space is no longer connected to a repository"));
    };
    if let (Some(at), Some(last)) = (job.event_at, row.last_event_at)
        && at < last.0
    {
        return Ok(ignored("an event newer than this one was applied"));
    }
    match import(app, job, &row).await {
        Ok(report) => {
            let applied = report.revision.clone();
            let summary = report.commit.clone();
            let result = report.summary();
            finish_then(
                app,
                &job.space_id,
                |sync| {
                    sync.operation_state = Some(SyncState::Success);
                    sync.operation_error = None;
                    sync.last_result = Some(result);
                    applied_event(sync, job.event_at);
                    if !job.standalone && applied.is_some() {
                        sync.last_revision = applied.clone();
                        sync.last_commit = summary.clone();
                    }
                },
                !job.standalone,
            )
            .await?;
            for item in &report.skipped {
                tracing::warn!(space = %job.space_id, path = %item.path, reason = %item.reason, "git import skipped a file");
            }
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

fn ignored(why: &str) -> ImportReport {
    ImportReport {
        revision: None,
        commit: None,
        pages: 0,
        files: 0,
        skipped: Vec::new(),
        notes: Vec::new(),
        ignored: Some(why.to_owned()),
    }
}

async fn import(app: &App, job: &GitImport, row: &GitSyncRow) -> anyhow::Result<ImportReport> {
    let started = std::time::Instant::now();
    let fetched = app.git.fetch(&row.url, &row.git_ref).await?;
    let fetched_in = started.elapsed();
    if row.last_commit.as_deref() == Some(fetched.commit.as_str()) && !job.force && !job.standalone {
        return Ok(ImportReport {
            commit: Some(fetched.commit.clone()),
            ..ignored("the ref did not move since the last sync")
        });
    }
    let repo = read_repo(app, fetched, &row.project_directory).await?;
    let read_in = started.elapsed();
    let space = {
        let mut conn = app.db.read().await?;
        spaces::get_any(&mut conn, &job.space_id)
            .await
            .context("the space is gone")?
    };
    let base = app.engine.revisions.snapshot(&space.id, &space.revision_id).await?;
    let (state, plan, mut skipped) = build_state(app, &repo, &base).await?;
    let planned_in = started.elapsed();
    skipped.splice(0..0, repo.skipped.iter().cloned());
    let (pages, files) = (state.pages.len(), state.files.len());
    let git = commit_json(row, &repo.fetched.commit, &repo.fetched.message, false);
    let target = if job.standalone {
        Target::Standalone
    } else {
        Target::SpaceIndexedLater
    };
    let snapshot = app
        .engine
        .imports
        .commit(&space, &base, state, &job.user_id, Some(git), target)
        .await?;
    tracing::info!(
        space = %space.id,
        commit = %repo.fetched.commit,
        pages,
        files,
        fetch_ms = fetched_in.as_millis() as u64,
        read_ms = (read_in - fetched_in).as_millis() as u64,
        plan_ms = (planned_in - read_in).as_millis() as u64,
        commit_ms = (started.elapsed() - planned_in).as_millis() as u64,
        "git import done"
    );
    // Remember the summary the tree came from, to keep it on export.
    let summary = plan
        .summary
        .as_ref()
        .map(|path| (path.clone(), repo.texts.get(path).cloned()));
    if !job.standalone {
        let mut tx = app.db.write().await?;
        if let Some(mut sync) = git_syncs::get(&mut tx, &space.id).await? {
            sync.summary_path = summary.as_ref().map(|(p, _)| p.clone());
            sync.summary_text = summary.and_then(|(_, t)| t);
            git_syncs::put(&mut tx, &sync).await?;
            let redirects = redirects(&repo.config, &snapshot);
            git_syncs::set_redirects(&mut tx, &space.id, redirects.as_deref()).await?;
        }
        tx.commit().await?;
    }
    Ok(ImportReport {
        revision: Some(snapshot.revision.id.clone()),
        commit: Some(repo.fetched.commit.clone()),
        pages,
        files,
        skipped,
        notes: notes(&repo),
        ignored: None,
    })
}

/// What each markdown file of the repository says that Quire does not
/// understand, in path order (files under `.gitbook/` but reusable content
/// are no pages).
fn notes(repo: &RepoState) -> Vec<PageNote> {
    let mut paths: Vec<&String> = repo
        .texts
        .keys()
        .filter(|p| !p.contains(".gitbook/") || p.contains(".gitbook/includes/"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .flat_map(|path| {
            quire_content::markdown::not_understood(&repo.texts[path])
                .into_iter()
                .map(|note| PageNote {
                    path: path.clone(),
                    note,
                })
        })
        .collect()
}

/// The space's content after importing `repo` over `base`.
pub(super) async fn build_state(
    app: &App,
    repo: &RepoState,
    base: &Snapshot,
) -> anyhow::Result<(ImportedState, ImportPlan, Vec<SkippedItem>)> {
    let listing: Vec<RepoFile> = repo
        .entries
        .iter()
        .map(|e| RepoFile {
            path: e.path.clone(),
            oid: e.oid.clone(),
            size: e.size,
        })
        .collect();
    let plan = gitbook::plan(&listing, &repo.config, &repo.texts);
    let mut skipped: Vec<SkippedItem> = plan
        .skipped
        .iter()
        .map(|s| SkippedItem {
            path: s.path.clone(),
            reason: s.reason.clone(),
        })
        .collect();
    let oid_of: HashMap<&str, &str> = repo.entries.iter().map(|e| (e.path.as_str(), e.oid.as_str())).collect();
    let blob = |path: &str| GitBlob {
        oid: oid_of.get(path).copied().unwrap_or_default().to_owned(),
        path: path.to_owned(),
    };

    // Pages, matched to the base's by Git path (others by title and place).
    let by_path: HashMap<&str, &str> = base
        .tree
        .pages
        .iter()
        .filter_map(|(id, p)| Some((p.meta.git.as_ref()?.path.as_str(), id.as_str())))
        .collect();
    let mut ids: Vec<String> = Vec::with_capacity(plan.pages.len());
    let mut state = ImportedState::default();
    let mut used = std::collections::HashSet::new();
    for planned in &plan.pages {
        let parent = planned.parent.map(|i| ids[i].clone());
        let matched = match &planned.kind {
            PlannedKind::Document { path } => by_path.get(path.as_str()).map(|id| (*id).to_owned()),
            _ => base
                .tree
                .children_of(parent.as_deref())
                .iter()
                .find(|id| {
                    let page = &base.tree.pages[*id];
                    page.meta.title == planned.title && page.meta.git.is_none() && !used.contains(*id)
                })
                .cloned(),
        };
        let id = matched
            .filter(|id| used.insert(id.clone()))
            .unwrap_or_else(quire_core::id::new_id);
        used.insert(id.clone());
        let (kind, git, markdown) = match &planned.kind {
            PlannedKind::Document { path } => (PageKind::Document, Some(blob(path)), repo.texts.get(path).cloned()),
            PlannedKind::Group => (PageKind::Group, None, None),
            PlannedKind::Link { url } => (PageKind::Link { target: url.clone() }, None, None),
        };
        let condition = match planned.condition.as_deref() {
            Some(c) if quire_core::expression::check_condition(c).is_err() => {
                skipped.push(SkippedItem {
                    path: git.as_ref().map(|g| g.path.clone()).unwrap_or_default(),
                    reason: format!("the `if` condition {c:?} does not parse: the page is imported without it"),
                });
                None
            }
            other => other.map(str::to_owned),
        };
        state.pages.push(ImportedPage {
            id: id.clone(),
            parent,
            meta: PageMeta {
                title: planned.title.chars().take(200).collect(),
                slug: planned.slug.clone(),
                description: planned.description.clone(),
                emoji: None,
                hidden: planned.hidden,
                condition,
                git,
                link_title: planned.link_title.clone(),
                kind,
                document: None,
            },
            markdown,
        });
        ids.push(id);
    }

    // Files: kept when their blob did not change.
    let by_file_path: HashMap<&str, &quire_content::objects::FileObject> = base
        .files
        .iter()
        .filter_map(|(_, f)| Some((f.git.as_ref()?.path.as_str(), f)))
        .collect();
    // A file whose blob is already a file of the space (at the same path,
    // or moved) keeps that file's object and id.
    let mut kept_ids = std::collections::HashSet::new();
    let mut to_read = Vec::new();
    for path in &plan.files {
        let oid = oid_of.get(path.as_str()).copied().unwrap_or_default();
        let same_blob = |f: &quire_content::objects::FileObject| f.git.as_ref().is_some_and(|g| g.oid == oid);
        let existing = by_file_path
            .get(path.as_str())
            .copied()
            .filter(|f| same_blob(f))
            .or_else(|| by_file_path.values().copied().find(|f| same_blob(f)))
            .filter(|f| !kept_ids.contains(&f.id));
        match existing {
            Some(file) => {
                kept_ids.insert(file.id.clone());
                let mut kept = file.clone();
                kept.git = Some(blob(path));
                state.files.push(ImportedFile::Kept(kept));
            }
            None => to_read.push(path.clone()),
        }
    }
    let oids: Vec<String> = to_read
        .iter()
        .filter_map(|p| oid_of.get(p.as_str()).map(|o| (*o).to_owned()))
        .collect();
    let mut bytes = read_blobs(app, &repo.fetched.repo, &oids).await?;
    for path in to_read {
        let oid = oid_of.get(path.as_str()).copied().unwrap_or_default();
        let Some(content) = bytes.get(oid).cloned() else {
            skipped.push(SkippedItem {
                path,
                reason: "its blob could not be read".into(),
            });
            continue;
        };
        let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
        state.files.push(ImportedFile::New {
            id: quire_core::id::new_id(),
            content_type: quire_import::content_type_of(&name).to_owned(),
            name,
            bytes: content,
            git: Some(blob(&path)),
        });
    }
    bytes.clear();

    // Reusable content, matched by Git path.
    let by_include_path: HashMap<&str, &str> = base
        .reusable
        .iter()
        .filter_map(|(_, r)| Some((r.git.as_ref()?.path.as_str(), r.id.as_str())))
        .collect();
    for include in &plan.includes {
        state.reusable.push(ImportedReusable {
            id: by_include_path
                .get(include.path.as_str())
                .map(|id| (*id).to_owned())
                .unwrap_or_else(quire_core::id::new_id),
            title: include.title.clone(),
            markdown: repo.texts.get(&include.path).cloned().unwrap_or_default(),
            git: Some(blob(&include.path)),
        });
    }
    Ok((state, plan, skipped))
}

async fn read_blobs(app: &App, repo: &Path, oids: &[String]) -> anyhow::Result<HashMap<String, Vec<u8>>> {
    let mut out = HashMap::new();
    // Bounded batches keep memory near the size of one batch of files.
    for chunk in oids.chunks(200) {
        out.extend(app.git.blobs(repo, chunk).await?);
    }
    Ok(out)
}
