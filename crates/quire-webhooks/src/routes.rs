//! `/v1/orgs/{organizationId}/webhooks/...`: endpoints, their delivery log
//! and redelivery (Quire's addition; organization administrators only).

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_http::AppState;
use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path};
use quire_http::pagination::{List, ListOrder, PageParams};

use crate::views::{self, Delivery, Webhook};
use crate::{NewWebhook, WebhookUpdate};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/webhooks", get(list).post(create))
        .route(
            "/orgs/{organizationId}/webhooks/{webhookId}",
            get(read).patch(update).delete(delete),
        )
        .route(
            "/orgs/{organizationId}/webhooks/{webhookId}/deliveries",
            get(deliveries),
        )
        .route(
            "/orgs/{organizationId}/webhooks/{webhookId}/deliveries/{deliveryId}",
            get(delivery),
        )
        .route(
            "/orgs/{organizationId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
            post(redeliver),
        )
}

const WEBHOOKS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");
const DELIVERIES_ORDER: ListOrder = ListOrder::by_int("createdAt", true);

async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<Webhook>>> {
    let request = page.request_or(WEBHOOKS_ORDER, 50)?;
    let page = crate::list(&state.app, &caller, &org_id, &request).await?;
    Ok(Json(List::from_page(page, WEBHOOKS_ORDER, views::webhook)))
}

async fn create(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewWebhook>,
) -> ApiResult<(StatusCode, Json<Webhook>)> {
    let info = crate::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::webhook_info(info))))
}

async fn read(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
) -> ApiResult<Json<Webhook>> {
    Ok(Json(views::webhook(
        crate::get(&state.app, &caller, &org_id, &id).await?,
    )))
}

async fn update(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
    JsonBody(body): JsonBody<WebhookUpdate>,
) -> ApiResult<Json<Webhook>> {
    let info = crate::update(&state.app, &caller, &org_id, &id, body).await?;
    Ok(Json(views::webhook_info(info)))
}

async fn delete(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    crate::delete(&state.app, &caller, &org_id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn deliveries(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<Delivery>>> {
    let request = page.request_or(DELIVERIES_ORDER, 50)?;
    let page = crate::deliveries(&state.app, &caller, &org_id, &id, &request).await?;
    Ok(Json(List::from_page(page, DELIVERIES_ORDER, |row| {
        views::delivery(row, false)
    })))
}

async fn delivery(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id, delivery_id)): Path<(String, String, String)>,
) -> ApiResult<Json<Delivery>> {
    let row = crate::delivery(&state.app, &caller, &org_id, &id, &delivery_id).await?;
    Ok(Json(views::delivery(row, true)))
}

async fn redeliver(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, id, delivery_id)): Path<(String, String, String)>,
) -> ApiResult<(StatusCode, Json<Delivery>)> {
    let row = crate::redeliver(&state.app, &caller, &org_id, &id, &delivery_id).await?;
    Ok((StatusCode::CREATED, Json(views::delivery(row, true))))
}
