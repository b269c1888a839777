//! Organizations: create, list, read, update, email-domain lookup, ping.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_app::orgs::{self, NewOrg, OrgUpdate};
use serde_json::{Value, json};

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs", get(list_orgs).post(create_org))
        .route("/orgs/{organizationId}", get(get_org).patch(update_org))
        .route("/orgs/{organizationId}/ping", post(ping))
        .route("/email-domains/{emailDomain}/orgs", get(orgs_for_email_domain))
}

const ORGS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn list_orgs(
    State(state): State<AppState>,
    Auth(caller): Auth,
    page: PageParams,
) -> ApiResult<Json<List<views::Organization>>> {
    let request = page.request(ORGS_ORDER)?;
    let page = orgs::list_for_caller(&state.app, &caller, &request).await?;
    Ok(Json(List::from_page(page, ORGS_ORDER, |o| {
        views::organization(&state, o)
    })))
}

async fn create_org(
    State(state): State<AppState>,
    Auth(caller): Auth,
    JsonBody(body): JsonBody<NewOrg>,
) -> ApiResult<(StatusCode, Json<views::Organization>)> {
    let org = orgs::create(&state.app, &caller, body).await?;
    Ok((StatusCode::CREATED, Json(views::organization(&state, org))))
}

async fn get_org(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
) -> ApiResult<Json<views::Organization>> {
    let org = orgs::get(&state.app, &caller, &org_id).await?;
    Ok(Json(views::organization(&state, org)))
}

async fn update_org(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<OrgUpdate>,
) -> ApiResult<Json<views::Organization>> {
    let org = orgs::update(&state.app, &caller, &org_id, body).await?;
    Ok(Json(views::organization(&state, org)))
}

async fn ping(State(state): State<AppState>, Auth(caller): Auth, Path(org_id): Path<String>) -> ApiResult<Json<Value>> {
    orgs::ping(&state.app, &caller, &org_id).await?;
    Ok(Json(json!({})))
}

async fn orgs_for_email_domain(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(domain): Path<String>,
) -> ApiResult<Json<Value>> {
    let found = orgs::by_email_domain(&state.app, &caller, &domain).await?;
    let organizations: Vec<views::Organization> = found.into_iter().map(|o| views::organization(&state, o)).collect();
    Ok(Json(json!({ "organizations": organizations })))
}
