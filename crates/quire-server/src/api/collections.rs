//! Collections: create and list in an organization, read, update, delete,
//! list their spaces, move and transfer.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_app::MoveInput;
use quire_app::collections::{self, CollectionUpdate, NewCollection, TransferInput};
use serde::Deserialize;

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, PageParams, TREE_ORDER};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/orgs/{organizationId}/collections",
            get(list_collections).post(create_collection),
        )
        .route(
            "/collections/{collectionId}",
            get(get_collection).patch(update_collection).delete(delete_collection),
        )
        .route("/collections/{collectionId}/spaces", get(list_collection_spaces))
        .route("/collections/{collectionId}/move", post(move_collection))
        .route("/collections/{collectionId}/transfer", post(transfer_collection))
}

#[derive(Debug, Deserialize)]
struct NestedQuery {
    nested: Option<bool>,
}

async fn list_collections(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<NestedQuery>,
) -> ApiResult<Json<List<views::Collection>>> {
    let request = page.request(TREE_ORDER)?;
    let nested = query.nested.unwrap_or(true);
    let page = collections::list_in_org(&state.app, &caller, &org_id, nested, &request).await?;
    Ok(Json(List::from_page(page, TREE_ORDER, |c| {
        views::collection(&state, c)
    })))
}

async fn create_collection(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewCollection>,
) -> ApiResult<(StatusCode, Json<views::Collection>)> {
    let collection = collections::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::collection(&state, collection))))
}

async fn get_collection(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(collection_id): Path<String>,
) -> ApiResult<Json<views::Collection>> {
    let collection = collections::get(&state.app, &caller, &collection_id).await?;
    Ok(Json(views::collection(&state, collection)))
}

async fn update_collection(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(collection_id): Path<String>,
    JsonBody(body): JsonBody<CollectionUpdate>,
) -> ApiResult<Json<views::Collection>> {
    let collection = collections::update(&state.app, &caller, &collection_id, body).await?;
    Ok(Json(views::collection(&state, collection)))
}

/// Deletes the collection (its content moves up); 204 also when there was
/// nothing to delete.
async fn delete_collection(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(collection_id): Path<String>,
) -> ApiResult<StatusCode> {
    collections::delete(&state.app, &caller, &collection_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_collection_spaces(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(collection_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::Space>>> {
    let request = page.request(TREE_ORDER)?;
    let page = quire_app::spaces::list_in_collection(&state.app, &caller, &collection_id, &request).await?;
    Ok(Json(List::from_page(page, TREE_ORDER, |s| views::space(&state, s))))
}

async fn move_collection(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(collection_id): Path<String>,
    JsonBody(body): JsonBody<MoveInput>,
) -> ApiResult<Json<views::Collection>> {
    let collection = collections::relocate(&state.app, &caller, &collection_id, body).await?;
    Ok(Json(views::collection(&state, collection)))
}

async fn transfer_collection(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(collection_id): Path<String>,
    JsonBody(body): JsonBody<TransferInput>,
) -> ApiResult<Json<views::Collection>> {
    let collection = collections::transfer(&state.app, &caller, &collection_id, body).await?;
    Ok(Json(views::collection(&state, collection)))
}
