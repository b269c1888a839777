//! Git Sync of a space: import, export, state, and the legacy installation.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use quire_app::git_sync::{self, ExportRequest, ImportRequest};

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path};
use crate::state::AppState;
use crate::views::git::{self as views, GitSyncState};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/git/import", post(import))
        .route("/spaces/{spaceId}/git/export", post(export))
        .route("/spaces/{spaceId}/git/info", get(info))
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
    git_sync::start_import(&state.app, &caller, &space_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn export(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<ExportRequest>,
) -> ApiResult<StatusCode> {
    git_sync::start_export(&state.app, &caller, &space_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn info(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<Json<GitSyncState>> {
    let row = git_sync::info(&state.app, &caller, &space_id).await?;
    Ok(Json(views::git_sync(row)))
}

async fn remove_legacy_installation(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<StatusCode> {
    git_sync::remove_legacy_installation(&state.app, &caller, &space_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
