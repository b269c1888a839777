//! Git Sync as the official `GitSyncState` (`gitSync` of a space and
//! `GET .../git/info`). The repository URL is shown without credentials.

use quire_core::Timestamp;
use quire_core::secrets::redact_url as redact;
use quire_store::git_syncs::GitSyncRow;
use serde::Serialize;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitSyncState {
    pub repo_name: String,
    pub installation_status: &'static str,
    pub installation_provider: &'static str,
    pub installation_id: String,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<GitSyncOperation>,
    pub updated_at: Timestamp,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitSyncOperation {
    pub state: &'static str,
    pub direction: &'static str,
    pub started_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the operation did once it ended (Quire's addition): the commit,
    /// pages and files written, and its `problems` (`path`, `problem`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
}

pub fn git_sync(row: GitSyncRow) -> GitSyncState {
    let shown = redact(&row.url);
    let repo_name = shown
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .trim_end_matches(".git")
        .to_owned();
    // The official providers are GitHub and GitLab; any other host is
    // reported as GitHub-style.
    let provider = if shown.contains("gitlab") { "gitlab" } else { "github" };
    let operation = match (row.operation_state, row.operation_direction, row.operation_started_at) {
        (Some(state), Some(direction), Some(started_at)) => Some(GitSyncOperation {
            state: state.as_str(),
            direction: direction.as_str(),
            started_at,
            ended_at: row.operation_ended_at,
            error: row.operation_error,
            result: row.last_result.as_deref().and_then(|r| serde_json::from_str(r).ok()),
        }),
        _ => None,
    };
    GitSyncState {
        repo_name,
        installation_status: "active",
        installation_provider: provider,
        installation_id: row.space_id,
        url: row.tree_url.unwrap_or(shown),
        operation,
        updated_at: row.updated_at,
    }
}
