//! Git Sync and imports: a space's content comes from a Git repository in
//! GitBook's layout and goes back to it; [`imports`] brings content in from
//! Git, websites and files once.
//!
//! `POST .../git/import` and `.../git/export` check the request and the
//! caller, record the repository on the space (`git_syncs`: the URL with
//! its credentials stays there, never in a job, a response or a log) and
//! queue a durable job ([`GitImport`], [`GitExport`]); the jobs do the work
//! ([`import`], [`export`]). Events carry a `timestamp`: one older than the
//! newest applied is ignored, so imports and exports apply in the order
//! they happened on either side.

mod export;
mod import;
mod import_routes;
pub mod imports;
mod routes;

use quire_core::{SyncDirection, SyncState};
use std::time::Duration;

use quire_adapters::GitError;
use quire_core::events::EventType;
use quire_core::{Role, Timestamp};
use quire_store::git_syncs::{self, GitSyncRow};
use quire_store::{audit, spaces, webhooks};
use serde::{Deserialize, Serialize};

use quire_app::error::{AppError, AppResult};
use quire_app::jobs::{self, Job, Registry};
use quire_app::{App, Caller, access};

pub use export::ExportReport;
pub use import::ImportReport;

/// The feature's `/v1` routes: Git Sync's and imports'.
pub fn router() -> axum::Router<quire_http::AppState> {
    routes::router().merge(import_routes::router())
}

/// `POST /v1/spaces/{spaceId}/git/import`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportRequest {
    pub url: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub repo_cache_id: Option<String>,
    #[serde(rename = "repoTreeURL")]
    pub repo_tree_url: Option<String>,
    #[serde(rename = "repoCommitURL")]
    pub repo_commit_url: Option<String>,
    pub repo_project_directory: Option<String>,
    pub timestamp: Option<String>,
    pub force: Option<bool>,
    pub standalone: Option<bool>,
    pub git_info: Option<serde_json::Value>,
}

/// `POST /v1/spaces/{spaceId}/git/export`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportRequest {
    pub url: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub commit_message: String,
    pub repo_cache_id: Option<String>,
    #[serde(rename = "repoTreeURL")]
    pub repo_tree_url: Option<String>,
    #[serde(rename = "repoCommitURL")]
    pub repo_commit_url: Option<String>,
    pub repo_project_directory: Option<String>,
    pub timestamp: Option<String>,
    pub force: Option<bool>,
    pub standalone: Option<bool>,
    pub git_info: Option<serde_json::Value>,
}

/// The queued import of a space's repository.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GitImport {
    pub space_id: String,
    pub user_id: String,
    /// The event's time (Unix ms), if it had one.
    pub event_at: Option<i64>,
    pub force: bool,
    pub standalone: bool,
}

/// The queued export of a space to its repository.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GitExport {
    pub space_id: String,
    pub user_id: String,
    pub event_at: Option<i64>,
    pub commit_message: String,
    pub force: bool,
    /// A standalone export (a snapshot of the content): where it goes. The
    /// space's own connection is left as it is, so this one travels with
    /// the job until it runs.
    #[serde(default)]
    pub standalone: Option<StandaloneTarget>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StandaloneTarget {
    pub url: String,
    pub git_ref: String,
    pub project_directory: String,
}

impl Job for GitImport {
    const KIND: &'static str = "git-import";
    /// A large repository's first sync fetches and stores thousands of files.
    const TIME_LIMIT: Duration = Duration::from_secs(30 * 60);
    const SOURCE: audit::Source = audit::Source::Integration;

    fn audit_target(&self) -> Option<audit::Target> {
        Some(audit::Target::new("space", &self.space_id))
    }

    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        let report = import::run(app, &self).await?;
        Ok(Some(serde_json::to_value(report)?))
    }
}

/// The search index of a space a Git import wrote, brought up to date
/// after the import (off its path): queued in the transaction that ends a
/// successful import.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexImported {
    pub space_id: String,
}

impl Job for IndexImported {
    const KIND: &'static str = "git-import-index";
    /// Indexing is bookkeeping, not a change of anyone's.
    const AUDITED: bool = false;

    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        let pages = quire_engine::search::catch_up(&app.engine.revisions, &self.space_id).await?;
        Ok(Some(serde_json::json!({ "pages": pages })))
    }
}

impl Job for GitExport {
    const KIND: &'static str = "git-export";
    /// A large repository's first sync fetches and stores thousands of files.
    const TIME_LIMIT: Duration = Duration::from_secs(30 * 60);
    const SOURCE: audit::Source = audit::Source::Integration;

    fn audit_target(&self) -> Option<audit::Target> {
        Some(audit::Target::new("space", &self.space_id))
    }

    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        let report = export::run(app, &self).await?;
        Ok(Some(serde_json::to_value(report)?))
    }
}

pub fn register_jobs(registry: &mut Registry) {
    registry.register::<GitImport>();
    registry.register::<IndexImported>();
    registry.register::<GitExport>();
}

/// A Git failure as the API answers it: the policy's refusals and bad refs
/// are the caller's to fix.
pub(crate) fn git_error(err: GitError) -> AppError {
    match err {
        GitError::Refused(message) => AppError::invalid(message),
        missing @ GitError::MissingRef(..) => AppError::invalid(missing.to_string()),
        other => AppError::Internal(anyhow::anyhow!(other)),
    }
}

/// The branches of the repository at `url` and the one its `HEAD` names,
/// to choose a branch before connecting a space (editors and above; the
/// network policy applies as to an import). Nothing is recorded.
pub async fn branches(
    app: &App,
    caller: &Caller,
    space_id: &str,
    url: &str,
) -> AppResult<quire_adapters::git::Branches> {
    let mut conn = app.db.read().await?;
    let (_, access) = access::space(&mut conn, caller, space_id, None).await?;
    access.require(Role::Edit, "connect the space to Git")?;
    drop(conn);
    if url.trim().is_empty() {
        return Err(AppError::invalid("url is required"));
    }
    app.git.branches(url).await.map_err(|err| match err {
        GitError::Refused(message) => AppError::invalid(message),
        // git's own message, its secrets redacted: what the repository said.
        GitError::Failed(message) => AppError::invalid(format!("the repository could not be read: {message}")),
        GitError::Timeout(seconds) => {
            AppError::invalid(format!("the repository did not answer within {seconds} seconds"))
        }
        other => git_error(other),
    })
}

/// What every event says about the repository, checked.
struct Connection {
    url: String,
    git_ref: String,
    project_directory: String,
    tree_url: Option<String>,
    commit_url: Option<String>,
    event_at: Option<Timestamp>,
}

/// The fields every import and export event carries.
struct EventFields<'a> {
    url: &'a str,
    git_ref: &'a str,
    project_directory: Option<&'a str>,
    tree_url: Option<&'a str>,
    commit_url: Option<&'a str>,
    timestamp: Option<&'a str>,
}

/// Checks an event's fields (syntax first, the network policy last).
async fn connection(app: &App, fields: EventFields<'_>) -> AppResult<Connection> {
    let EventFields {
        url,
        git_ref,
        project_directory,
        tree_url,
        commit_url,
        timestamp,
    } = fields;
    if url.trim().is_empty() {
        return Err(AppError::invalid("url is required"));
    }
    if !git_ref.starts_with("refs/") {
        return Err(AppError::invalid("ref must be a full ref such as refs/heads/main"));
    }
    let project_directory = match project_directory {
        Some(dir) => quire_import::gitbook::clean_path(dir)
            .ok_or_else(|| AppError::invalid("repoProjectDirectory must be a folder inside the repository"))?,
        None => String::new(),
    };
    for (field, value) in [("repoTreeURL", tree_url), ("repoCommitURL", commit_url)] {
        if let Some(v) = value {
            quire_app::input::http_url(field, v)?;
        }
    }
    let event_at = match timestamp {
        Some(t) => Some(
            Timestamp::parse_rfc3339(t).ok_or_else(|| AppError::invalid("timestamp must be an RFC 3339 date-time"))?,
        ),
        None => None,
    };
    app.git.check_url(url).await.map_err(git_error)?;
    Ok(Connection {
        url: url.to_owned(),
        git_ref: git_ref.to_owned(),
        project_directory,
        tree_url: tree_url.map(str::to_owned),
        commit_url: commit_url.map(str::to_owned),
        event_at,
    })
}

/// Starts an event: the caller must be able to change the space's content
/// (checked before anything reaches the network), then its fields are
/// checked; the write transaction and the space, access checked again.
async fn begin(
    app: &App,
    caller: &Caller,
    space_id: &str,
    fields: EventFields<'_>,
    action: &str,
) -> AppResult<(Connection, quire_store::WriteTx, quire_store::spaces::SpaceRow)> {
    {
        let mut conn = app.db.read().await?;
        let (_, access) = access::space(&mut conn, caller, space_id, None).await?;
        access.require(Role::Edit, action)?;
    }
    let connection = connection(app, fields).await?;
    let mut tx = app.db.write().await?;
    let (space, access) = access::space(&mut tx, caller, space_id, None).await?;
    access.require(Role::Edit, action)?;
    Ok((connection, tx, space))
}

/// Records the repository on the space (keeping what was synced when it is
/// the same repository, ref and folder) and marks an operation pending;
/// `None` when the event is older than the newest applied.
async fn record(
    tx: &mut quire_store::Conn,
    space_id: &str,
    connection: &Connection,
    direction: SyncDirection,
    now: Timestamp,
) -> AppResult<Option<()>> {
    let existing = git_syncs::get(tx, space_id).await?;
    if let (Some(row), Some(at)) = (&existing, connection.event_at)
        && row.last_event_at.is_some_and(|last| at < last)
    {
        return Ok(None);
    }
    let same = existing.as_ref().is_some_and(|row| {
        row.url == connection.url
            && row.git_ref == connection.git_ref
            && row.project_directory == connection.project_directory
    });
    let previous = existing.filter(|_| same);
    let row = GitSyncRow {
        space_id: space_id.to_owned(),
        url: connection.url.clone(),
        git_ref: connection.git_ref.clone(),
        project_directory: connection.project_directory.clone(),
        tree_url: connection.tree_url.clone(),
        commit_url: connection.commit_url.clone(),
        last_event_at: previous.as_ref().and_then(|p| p.last_event_at),
        last_commit: previous.as_ref().and_then(|p| p.last_commit.clone()),
        last_revision: previous.as_ref().and_then(|p| p.last_revision.clone()),
        summary_path: previous.as_ref().and_then(|p| p.summary_path.clone()),
        summary_text: previous.as_ref().and_then(|p| p.summary_text.clone()),
        operation_state: Some(SyncState::Running),
        operation_direction: Some(direction),
        operation_started_at: Some(now),
        operation_ended_at: None,
        operation_error: None,
        last_result: None,
        updated_at: now,
    };
    git_syncs::put(tx, &row).await?;
    Ok(Some(()))
}

/// Queues an import of the space's repository (editors and above).
pub async fn start_import(app: &App, caller: &Caller, space_id: &str, request: ImportRequest) -> AppResult<()> {
    let fields = EventFields {
        url: &request.url,
        git_ref: &request.git_ref,
        project_directory: request.repo_project_directory.as_deref(),
        tree_url: request.repo_tree_url.as_deref(),
        commit_url: request.repo_commit_url.as_deref(),
        timestamp: request.timestamp.as_deref(),
    };
    let (connection, mut tx, space) = begin(app, caller, space_id, fields, "import content from Git").await?;
    let now = app.now();
    if record(&mut tx, &space.id, &connection, SyncDirection::Import, now)
        .await?
        .is_none()
    {
        tracing::info!(space = %space.id, "git import ignored: an event newer than it was applied");
        return Ok(());
    }
    let job = GitImport {
        space_id: space.id.clone(),
        user_id: caller.id().to_owned(),
        event_at: connection.event_at.map(Timestamp::millis),
        force: request.force.unwrap_or(false),
        standalone: request.standalone.unwrap_or(false),
    };
    jobs::enqueue(&mut tx, &space.organization_id, &job, now, now).await?;
    tx.commit().await?;
    Ok(())
}

/// Queues an export of the space to its repository (editors and above).
pub async fn start_export(app: &App, caller: &Caller, space_id: &str, request: ExportRequest) -> AppResult<()> {
    if request.commit_message.trim().is_empty() {
        return Err(AppError::invalid("commitMessage is required"));
    }
    let fields = EventFields {
        url: &request.url,
        git_ref: &request.git_ref,
        project_directory: request.repo_project_directory.as_deref(),
        tree_url: request.repo_tree_url.as_deref(),
        commit_url: request.repo_commit_url.as_deref(),
        timestamp: request.timestamp.as_deref(),
    };
    let (connection, mut tx, space) = begin(app, caller, space_id, fields, "export content to Git").await?;
    let now = app.now();
    let standalone = request.standalone.unwrap_or(false).then(|| StandaloneTarget {
        url: connection.url.clone(),
        git_ref: connection.git_ref.clone(),
        project_directory: connection.project_directory.clone(),
    });
    if standalone.is_none()
        && record(&mut tx, &space.id, &connection, SyncDirection::Export, now)
            .await?
            .is_none()
    {
        tracing::info!(space = %space.id, "git export ignored: an event newer than it was applied");
        return Ok(());
    }
    let job = GitExport {
        space_id: space.id.clone(),
        user_id: caller.id().to_owned(),
        event_at: connection.event_at.map(Timestamp::millis),
        commit_message: request.commit_message,
        force: request.force.unwrap_or(false),
        standalone,
    };
    jobs::enqueue(&mut tx, &space.organization_id, &job, now, now).await?;
    tx.commit().await?;
    Ok(())
}

/// The space's Git Sync state, to anyone who can see the space.
pub async fn info(app: &App, caller: &Caller, space_id: &str) -> AppResult<GitSyncRow> {
    let mut conn = app.db.read().await?;
    let (space, _) = access::space(&mut conn, caller, space_id, None).await?;
    git_syncs::get(&mut conn, &space.id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("space {space_id:?} has no Git Sync set up")))
}

/// The Git Sync state of spaces, for their views (one query).
/// `DELETE .../git/legacy-installation`: Quire has no legacy installations,
/// so there is never anything to remove (admins of the space only).
pub async fn remove_legacy_installation(app: &App, caller: &Caller, space_id: &str) -> AppResult<()> {
    let mut conn = app.db.read().await?;
    let (_, access) = access::space(&mut conn, caller, space_id, None).await?;
    access.require(Role::Admin, "remove a Git installation")?;
    Ok(())
}

/// Remembers the newest event applied (events older than it are ignored).
fn applied_event(sync: &mut GitSyncRow, event_at: Option<i64>) {
    if let Some(at) = event_at {
        let newest = sync.last_event_at.map_or(at, |last| last.0.max(at));
        sync.last_event_at = Some(Timestamp(newest));
    }
}

/// Records how an operation ended.
async fn finish(app: &App, space_id: &str, update: impl FnOnce(&mut GitSyncRow)) -> anyhow::Result<()> {
    finish_then(app, space_id, update, false).await
}

/// [`finish`], and with `index`, the import's search indexing queued in the
/// same transaction ([`IndexImported`]).
async fn finish_then(
    app: &App,
    space_id: &str,
    update: impl FnOnce(&mut GitSyncRow),
    index: bool,
) -> anyhow::Result<()> {
    let mut tx = app.db.write().await?;
    if let Some(mut row) = git_syncs::get(&mut tx, space_id).await? {
        update(&mut row);
        row.operation_ended_at = Some(app.now());
        row.updated_at = app.now();
        git_syncs::put(&mut tx, &row).await?;
        if let Some(state @ (SyncState::Success | SyncState::Failure)) = row.operation_state {
            let data = serde_json::json!({
                "spaceId": space_id,
                "state": state.as_str(),
                "direction": row.operation_direction.map(|d| d.as_str()),
                "revisionId": row.last_revision,
                "commitId": row.last_commit,
                "error": row.operation_error,
            });
            let origin = webhooks::Origin::Space(space_id);
            webhooks::emit(&mut tx, origin, EventType::SpaceGitSyncCompleted, data, app.now()).await?;
        }
    }
    if index {
        let space = spaces::get_any(&mut tx, space_id).await?;
        let job = IndexImported {
            space_id: space_id.to_owned(),
        };
        jobs::enqueue(&mut tx, &space.organization_id, &job, app.now(), app.now()).await?;
    }
    tx.commit().await?;
    Ok(())
}
