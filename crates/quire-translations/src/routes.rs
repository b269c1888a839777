//! Translations of spaces, their runs, and the organization's glossary.

use crate::{GlossaryUpdate, InstructionsUpdate, NewTranslation};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::views;
use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path, Query};
use quire_http::pagination::{List, ListOrder, PageParams};
use quire_http::state::AppState;

const ORDER: ListOrder = ListOrder::ascending_by("createdAt");

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/translations", get(list).post(create))
        .route(
            "/orgs/{organizationId}/translations/{translationId}",
            get(read).put(update).delete(remove),
        )
        .route("/orgs/{organizationId}/translations/{translationId}/run", post(run))
        .route(
            "/orgs/{organizationId}/translations-glossary",
            get(list_glossary).put(update_glossary),
        )
        .route(
            "/orgs/{organizationId}/translations-glossary/{glossaryEntryId}",
            get(read_glossary_entry),
        )
}

async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = page.request(ORDER)?;
    let rows = crate::list(&state.app, &caller, &org_id, &request).await?;
    Ok(Json(List::from_page(rows, ORDER, |t| views::translation(&state, t))))
}

async fn create(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewTranslation>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let created = crate::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::translation(&state, created))))
}

async fn read(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let found = crate::get(&state.app, &caller, &org_id, &id).await?;
    Ok(Json(views::translation(&state, found)))
}

async fn update(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
    JsonBody(body): JsonBody<InstructionsUpdate>,
) -> ApiResult<Json<Value>> {
    let updated = crate::update(&state.app, &caller, &org_id, &id, body).await?;
    Ok(Json(views::translation(&state, updated)))
}

async fn remove(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    crate::delete(&state.app, &caller, &org_id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn run(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    crate::start_run(&state.app, &caller, &org_id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GlossaryQuery {
    order_by: Option<String>,
    #[allow(dead_code)]
    page: Option<String>,
    #[allow(dead_code)]
    limit: Option<u32>,
}

async fn list_glossary(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    Query(query): Query<GlossaryQuery>,
) -> ApiResult<Json<Value>> {
    let entries = crate::glossary(&state.app, &caller, &org_id, query.order_by.as_deref()).await?;
    let items: Vec<Value> = entries.into_iter().map(|e| views::glossary_entry(&state, e)).collect();
    Ok(Json(json!({ "count": items.len(), "items": items })))
}

async fn update_glossary(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<GlossaryUpdate>,
) -> ApiResult<StatusCode> {
    crate::update_glossary(&state.app, &caller, &org_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn read_glossary_entry(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let entry = crate::glossary_entry(&state.app, &caller, &org_id, &id).await?;
    Ok(Json(views::glossary_entry(&state, entry)))
}
