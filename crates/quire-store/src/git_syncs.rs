//! A space's connection to a Git repository (one row per space): where the
//! repository is, what was synced last, the latest operation.

use quire_core::{SyncDirection, SyncState, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{StoreError, StoreResult};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSyncRow {
    pub space_id: String,
    /// May hold credentials: never shown or logged as is.
    pub url: String,
    pub git_ref: String,
    /// Empty for the repository's root, else `docs` (no trailing slash).
    pub project_directory: String,
    pub tree_url: Option<String>,
    pub commit_url: Option<String>,
    pub last_event_at: Option<Timestamp>,
    pub last_commit: Option<String>,
    pub last_revision: Option<String>,
    pub summary_path: Option<String>,
    pub summary_text: Option<String>,
    pub operation_state: Option<SyncState>,
    pub operation_direction: Option<SyncDirection>,
    pub operation_started_at: Option<Timestamp>,
    pub operation_ended_at: Option<Timestamp>,
    pub operation_error: Option<String>,
    /// What the latest operation did (JSON, see migration 0019).
    pub last_result: Option<String>,
    pub updated_at: Timestamp,
}

pub(crate) const COLUMNS: &str = "space_id, url, git_ref, project_directory, tree_url, commit_url, last_event_at, last_commit, \
                       last_revision, summary_path, summary_text, operation_state, operation_direction, \
                       operation_started_at, operation_ended_at, operation_error, last_result, updated_at";

pub(crate) fn from_row(row: &AnyRow) -> StoreResult<GitSyncRow> {
    let stamp = |name: &str| row.try_get::<Option<i64>, _>(name).map(|v| v.map(Timestamp));
    Ok(GitSyncRow {
        space_id: row.try_get("space_id")?,
        url: row.try_get("url")?,
        git_ref: row.try_get("git_ref")?,
        project_directory: row.try_get("project_directory")?,
        tree_url: row.try_get("tree_url")?,
        commit_url: row.try_get("commit_url")?,
        last_event_at: stamp("last_event_at")?,
        last_commit: row.try_get("last_commit")?,
        last_revision: row.try_get("last_revision")?,
        summary_path: row.try_get("summary_path")?,
        summary_text: row.try_get("summary_text")?,
        operation_state: match row.try_get::<Option<String>, _>("operation_state")? {
            Some(text) => {
                Some(SyncState::parse(&text).ok_or_else(|| StoreError::Corrupt(format!("sync state {text:?}")))?)
            }
            None => None,
        },
        operation_direction: match row.try_get::<Option<String>, _>("operation_direction")? {
            Some(text) => Some(
                SyncDirection::parse(&text).ok_or_else(|| StoreError::Corrupt(format!("sync direction {text:?}")))?,
            ),
            None => None,
        },
        operation_started_at: stamp("operation_started_at")?,
        operation_ended_at: stamp("operation_ended_at")?,
        operation_error: row.try_get("operation_error")?,
        last_result: row.try_get("last_result")?,
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

pub async fn get(conn: &mut AnyConnection, space_id: &str) -> StoreResult<Option<GitSyncRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM git_syncs WHERE space_id = $1"
    )))
    .bind(space_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(from_row).transpose()
}

/// Inserts or rewrites the space's connection.
pub async fn put(conn: &mut AnyConnection, row: &GitSyncRow) -> StoreResult<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO git_syncs ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
         $16, $17, $18) ON CONFLICT (space_id) DO UPDATE SET url = excluded.url, git_ref = excluded.git_ref, \
         project_directory = excluded.project_directory, tree_url = excluded.tree_url, \
         commit_url = excluded.commit_url, last_event_at = excluded.last_event_at, \
         last_commit = excluded.last_commit, last_revision = excluded.last_revision, \
         summary_path = excluded.summary_path, summary_text = excluded.summary_text, \
         operation_state = excluded.operation_state, operation_direction = excluded.operation_direction, \
         operation_started_at = excluded.operation_started_at, operation_ended_at = excluded.operation_ended_at, \
         operation_error = excluded.operation_error, last_result = excluded.last_result, \
         updated_at = excluded.updated_at"
    )))
    .bind(&row.space_id)
    .bind(&row.url)
    .bind(&row.git_ref)
    .bind(&row.project_directory)
    .bind(&row.tree_url)
    .bind(&row.commit_url)
    .bind(row.last_event_at.map(|t| t.0))
    .bind(&row.last_commit)
    .bind(&row.last_revision)
    .bind(&row.summary_path)
    .bind(&row.summary_text)
    .bind(row.operation_state.map(SyncState::as_str))
    .bind(row.operation_direction.map(SyncDirection::as_str))
    .bind(row.operation_started_at.map(|t| t.0))
    .bind(row.operation_ended_at.map(|t| t.0))
    .bind(&row.operation_error)
    .bind(&row.last_result)
    .bind(row.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records the redirects the last import resolved (JSON, see migration 0014).
pub async fn set_redirects(conn: &mut AnyConnection, space_id: &str, redirects: Option<&str>) -> StoreResult<()> {
    sqlx::query("UPDATE git_syncs SET redirects = $2 WHERE space_id = $1")
        .bind(space_id)
        .bind(redirects)
        .execute(conn)
        .await?;
    Ok(())
}

/// The redirects the last import of the space resolved (JSON), if any.
pub async fn redirects(conn: &mut AnyConnection, space_id: &str) -> StoreResult<Option<String>> {
    let found: Option<Option<String>> = sqlx::query_scalar("SELECT redirects FROM git_syncs WHERE space_id = $1")
        .bind(space_id)
        .fetch_optional(conn)
        .await?;
    Ok(found.flatten())
}

/// Removes the space's connection; false when there was none.
pub async fn delete(conn: &mut AnyConnection, space_id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM git_syncs WHERE space_id = $1")
        .bind(space_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
