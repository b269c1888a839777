//! Spaces: create and list in an organization, read, update, delete and
//! restore, duplicate, move and transfer.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_app::MoveInput;
use quire_app::spaces::{self, NewSpace, SpaceUpdate, TransferInput};
use serde::Deserialize;

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, PageParams, TREE_ORDER};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/spaces", get(list_spaces).post(create_space))
        .route(
            "/spaces/{spaceId}",
            get(get_space).patch(update_space).delete(delete_space),
        )
        .route("/spaces/{spaceId}/restore", post(restore_space))
        .route("/spaces/{spaceId}/duplicate", post(duplicate_space))
        .route("/spaces/{spaceId}/move", post(move_space))
        .route("/spaces/{spaceId}/transfer", post(transfer_space))
}

async fn list_spaces(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::Space>>> {
    let request = page.request(TREE_ORDER)?;
    let page = spaces::list_in_org(&state.app, &caller, &org_id, &request).await?;
    Ok(Json(List::from_page(page, TREE_ORDER, |s| views::space(&state, s))))
}

async fn create_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewSpace>,
) -> ApiResult<(StatusCode, Json<views::Space>)> {
    let space = spaces::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::space(&state, space))))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShareKeyQuery {
    share_key: Option<String>,
}

async fn get_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    Query(query): Query<ShareKeyQuery>,
) -> ApiResult<Json<views::Space>> {
    let space = spaces::get(&state.app, &caller, &space_id, query.share_key.as_deref()).await?;
    Ok(Json(views::space(&state, space)))
}

async fn update_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<SpaceUpdate>,
) -> ApiResult<Json<views::Space>> {
    let space = spaces::update(&state.app, &caller, &space_id, body).await?;
    Ok(Json(views::space(&state, space)))
}

/// Soft-deletes the space; 204 also when there was nothing to delete.
async fn delete_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<StatusCode> {
    spaces::delete(&state.app, &caller, &space_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn restore_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<Json<views::Space>> {
    let space = spaces::restore(&state.app, &caller, &space_id).await?;
    Ok(Json(views::space(&state, space)))
}

async fn duplicate_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
) -> ApiResult<(StatusCode, Json<views::Space>)> {
    let space = spaces::duplicate(&state.app, &caller, &space_id).await?;
    Ok((StatusCode::CREATED, Json(views::space(&state, space))))
}

async fn move_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<MoveInput>,
) -> ApiResult<Json<views::Space>> {
    let space = spaces::relocate(&state.app, &caller, &space_id, body).await?;
    Ok(Json(views::space(&state, space)))
}

async fn transfer_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<TransferInput>,
) -> ApiResult<Json<views::Space>> {
    let space = spaces::transfer(&state.app, &caller, &space_id, body).await?;
    Ok(Json(views::space(&state, space)))
}
