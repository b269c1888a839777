//! Content imports into a space or a change request (a website, a
//! markdown or HTML file, a zip archive of markdown).

use crate::imports::ImportRequest;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde::Serialize;

use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path};
use quire_http::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/content/import", post(import_into_space))
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/import",
            post(import_into_change_request),
        )
}

/// The import result of the seed: the new revision and how many pages were
/// imported of how many found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportResult {
    pub revision: String,
    pub imported_resources: usize,
    pub total_resources: usize,
}

fn view(result: crate::imports::ImportResult) -> ImportResult {
    ImportResult {
        revision: result.revision,
        imported_resources: result.imported_resources,
        total_resources: result.total_resources,
    }
}

async fn import_into_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<ImportRequest>,
) -> ApiResult<(StatusCode, Json<ImportResult>)> {
    let result = crate::imports::import(&state.app, &caller, &space_id, None, body).await?;
    Ok((StatusCode::CREATED, Json(view(result))))
}

async fn import_into_change_request(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, change_request_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<ImportRequest>,
) -> ApiResult<(StatusCode, Json<ImportResult>)> {
    let result = crate::imports::import(&state.app, &caller, &space_id, Some(&change_request_id), body).await?;
    Ok((StatusCode::CREATED, Json(view(result))))
}
