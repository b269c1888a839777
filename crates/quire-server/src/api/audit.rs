//! An organization's audit log (`listOrganizationAuditEvents`,
//! `getOrganizationAuditEvent`, `listOrganizationAuditEventActions`), which
//! shows its members' account events too, and a person's own account
//! events (`GET /user/audit-events`, Quire's addition: sign-ins, failed
//! ones, passwords, tokens, links made for them).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use quire_app::audit;
use quire_core::Timestamp;
use quire_store::audit::AuditFilter;
use quire_store::page::PageRequest;
use serde::{Deserialize, Serialize};

use crate::auth::Auth;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views::audit as views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/audit-events", get(list_events))
        .route("/orgs/{organizationId}/audit-events/{auditEventId}", get(get_event))
        .route("/orgs/{organizationId}/audit-event-actions", get(list_actions))
        .route("/user/audit-events", get(list_own_events))
        .route("/user/audit-events/{auditEventId}", get(get_own_event))
}

const EVENTS_ORDER: ListOrder = ListOrder::by_int("occurredAt", true);
/// The official default and largest page.
const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: f64 = 100.0;

#[derive(Debug, Deserialize)]
struct EventsQuery {
    from: Option<String>,
    to: Option<String>,
    action: Option<String>,
    actor: Option<String>,
    target: Option<String>,
}

fn time(name: &str, value: Option<String>) -> ApiResult<Option<Timestamp>> {
    value
        .map(|text| {
            Timestamp::parse_rfc3339(&text)
                .ok_or_else(|| ApiError::bad_request(format!("{name} must be a date-time (RFC 3339), got {text:?}")))
        })
        .transpose()
}

/// The page asked for and the filter of a list of entries.
fn request_and_filter(page: PageParams, query: EventsQuery) -> ApiResult<(PageRequest, AuditFilter)> {
    if page.limit.is_some_and(|l| !(1.0..=MAX_LIMIT).contains(&l)) {
        return Err(ApiError::bad_request("limit must be a whole number from 1 to 100"));
    }
    let request = page.request_or(EVENTS_ORDER, DEFAULT_LIMIT)?;
    let filter = AuditFilter {
        from: time("from", query.from)?,
        to: time("to", query.to)?,
        action: query.action.filter(|a| !a.is_empty()),
        actor: query.actor.filter(|a| !a.is_empty()),
        target: query.target.filter(|t| !t.is_empty()),
    };
    Ok((request, filter))
}

async fn list_events(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<EventsQuery>,
) -> ApiResult<Json<List<views::AuditEvent>>> {
    let (request, filter) = request_and_filter(page, query)?;
    let page = audit::list(&state.app, &caller, &org_id, &filter, &request).await?;
    Ok(Json(List::from_page(page, EVENTS_ORDER, |row| {
        views::audit_event(&state, views::Log::Organization(&org_id), row)
    })))
}

/// The caller's account events, each with its payload (what a person reads
/// of their own account: from where, and why a refusal was one).
async fn list_own_events(
    State(state): State<AppState>,
    Auth(caller): Auth,
    page: PageParams,
    Query(query): Query<EventsQuery>,
) -> ApiResult<Json<List<views::AuditEventDetails>>> {
    let (request, filter) = request_and_filter(page, query)?;
    let page = audit::own(&state.app, &caller, &filter, &request).await?;
    Ok(Json(List::from_page(page, EVENTS_ORDER, |row| {
        views::audit_event_details(&state, views::Log::Own, row)
    })))
}

async fn get_own_event(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(event_id): Path<String>,
) -> ApiResult<Json<views::AuditEventDetails>> {
    let row = audit::own_one(&state.app, &caller, &event_id).await?;
    Ok(Json(views::audit_event_details(&state, views::Log::Own, row)))
}

async fn get_event(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, event_id)): Path<(String, String)>,
) -> ApiResult<Json<views::AuditEventDetails>> {
    let row = audit::get(&state.app, &caller, &org_id, &event_id).await?;
    Ok(Json(views::audit_event_details(
        &state,
        views::Log::Organization(&org_id),
        row,
    )))
}

#[derive(Serialize)]
struct Actions {
    items: Vec<views::AuditEventAction>,
}

async fn list_actions(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
) -> ApiResult<Json<Actions>> {
    let actions = audit::actions(&state.app, &caller, &org_id).await?;
    Ok(Json(Actions {
        items: actions.into_iter().map(views::audit_event_action).collect(),
    }))
}
