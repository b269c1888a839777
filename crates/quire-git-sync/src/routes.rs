//! Git Sync of a space: import, export, state, and the legacy installation.

use crate::{ExportRequest, ImportRequest};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};

use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path};
use quire_http::state::AppState;
use quire_http::views::git::{self as views, GitSyncState};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/git/import", post(import))
        .route("/spaces/{spaceId}/git/export", post(export))
        .route("/spaces/{spaceId}/git/info", get(info))
        .route("/spaces/{spaceId}/git/branches", post(branches))
        .route(
            "/spaces/{spaceId}/git/legacy-installation",
            delete(remove_legacy_installation),
        )
}

async fn import(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<ImportRequest>,
) -> ApiResult<StatusCode> {
    crate::start_import(&state.app, &caller, &space_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn export(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<ExportRequest>,
) -> ApiResult<StatusCode> {
    crate::start_export(&state.app, &caller, &space_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn info(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<Json<GitSyncState>> {
    let row = crate::info(&state.app, &caller, &space_id).await?;
    Ok(Json(views::git_sync(row)))
}

/// What `POST .../git/branches` takes: the repository's URL (in the body,
/// since it may carry credentials).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BranchesRequest {
    url: String,
}

/// The repository's branches (Quire's addition, for choosing one before
/// connecting).
async fn branches(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<BranchesRequest>,
) -> ApiResult<Json<BranchesView>> {
    let branches = crate::branches(&state.app, &caller, &space_id, &body.url).await?;
    Ok(Json(BranchesView {
        default: branches.default,
        items: branches.names,
    }))
}

/// A repository's branches as full refs, sorted, and the one its `HEAD`
/// names (`null` when the server does not say).
#[derive(serde::Serialize)]
struct BranchesView {
    default: Option<String>,
    items: Vec<String>,
}

async fn remove_legacy_installation(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<StatusCode> {
    crate::remove_legacy_installation(&state.app, &caller, &space_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
