//! Search in a space and across an organization.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use quire_app::search;
use serde::Deserialize;

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views::search::{self as views, SearchPage, SearchSpace};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/search", get(search_space))
        .route("/orgs/{organizationId}/search", get(search_org))
}

/// Results page by their rank.
const RANK_ORDER: ListOrder = ListOrder::ascending_by("rank");

/// Results per page when the caller gives no `limit`: each result cuts
/// snippets from its page, so pages of results stay small (an organization
/// result holds up to three pages).
const DEFAULT_RESULTS: u32 = 20;
const DEFAULT_SPACES: u32 = 10;

#[derive(Debug, Deserialize)]
struct SearchQuery {
    query: String,
}

async fn search_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    page: PageParams,
    Query(query): Query<SearchQuery>,
) -> ApiResult<Json<List<SearchPage>>> {
    let request = page.request_or(RANK_ORDER, DEFAULT_RESULTS)?;
    let found = search::in_space(&state.app, &caller, &space_id, &query.query, &request).await?;
    Ok(Json(List::from_page(found, RANK_ORDER, |p| views::page(&state, p))))
}

async fn search_org(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<SearchQuery>,
) -> ApiResult<Json<List<SearchSpace>>> {
    let request = page.request_or(RANK_ORDER, DEFAULT_SPACES)?;
    let found = search::in_org(&state.app, &caller, &org_id, &query.query, &request).await?;
    Ok(Json(List::from_page(found, RANK_ORDER, |s| views::space(&state, s))))
}
