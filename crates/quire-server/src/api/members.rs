//! Organization members: list with filters, read, change role, remove,
//! mark as SSO member, and the member's teams and spaces.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_app::members::{self, MemberUpdate};
use quire_core::Role;
use quire_store::members::{MemberFilter, MemberSort, RoleFilter};
use serde::Deserialize;

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, Order, PageParams};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/members", get(list_members))
        .route(
            "/orgs/{organizationId}/members/{userId}",
            get(get_member).patch(update_member).delete(remove_member),
        )
        .route("/orgs/{organizationId}/members/{userId}/sso", post(set_sso))
        .route("/orgs/{organizationId}/members/{userId}/teams", get(member_teams))
        .route("/orgs/{organizationId}/members/{userId}/spaces", get(member_spaces))
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
enum SortParam {
    #[default]
    #[serde(rename = "joinedAt")]
    JoinedAt,
    #[serde(rename = "lastSeenAt")]
    LastSeenAt,
    #[serde(rename = "name")]
    Name,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RoleParam {
    Admin,
    Create,
    Review,
    Edit,
    Comment,
    Read,
    Guest,
}

#[derive(Debug, Deserialize)]
struct MemberListQuery {
    #[serde(default)]
    order: Order,
    #[serde(default)]
    sort: SortParam,
    role: Option<RoleParam>,
    search: Option<String>,
}

async fn list_members(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<MemberListQuery>,
) -> ApiResult<Json<List<views::Member>>> {
    let descending = query.order.is_descending();
    let (sort, order) = match query.sort {
        SortParam::JoinedAt => (MemberSort::JoinedAt, ListOrder::by_int("joinedAt", descending)),
        SortParam::LastSeenAt => (MemberSort::LastSeenAt, ListOrder::by_int("lastSeenAt", descending)),
        SortParam::Name => (MemberSort::Name, ListOrder::by_text("name", descending)),
    };
    let request = page.request(order)?;
    let role = query.role.map(|r| match r {
        RoleParam::Admin => RoleFilter::Role(Role::Admin),
        RoleParam::Create => RoleFilter::Role(Role::Create),
        RoleParam::Review => RoleFilter::Role(Role::Review),
        RoleParam::Edit => RoleFilter::Role(Role::Edit),
        RoleParam::Comment => RoleFilter::Role(Role::Comment),
        RoleParam::Read => RoleFilter::Role(Role::Read),
        RoleParam::Guest => RoleFilter::Guest,
    });
    let search = query
        .search
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_owned());
    let filter = MemberFilter { role, search };
    let page = members::list(&state.app, &caller, &org_id, sort, &filter, &request).await?;
    Ok(Json(List::from_page(page, order, |m| views::member(&state, &m))))
}

async fn get_member(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Member>> {
    let member = members::get(&state.app, &caller, &org_id, &user_id).await?;
    Ok(Json(views::member(&state, &member)))
}

async fn update_member(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, user_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<MemberUpdate>,
) -> ApiResult<Json<views::Member>> {
    let member = members::update(&state.app, &caller, &org_id, &user_id, body).await?;
    Ok(Json(views::member(&state, &member)))
}

async fn remove_member(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, user_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    members::remove(&state.app, &caller, &org_id, &user_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn set_sso(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Member>> {
    let member = members::set_sso(&state.app, &caller, &org_id, &user_id).await?;
    Ok(Json(views::member(&state, &member)))
}

#[derive(Debug, Deserialize)]
struct TitleFilter {
    title: Option<String>,
}

const MEMBER_TEAMS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn member_teams(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, user_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<TitleFilter>,
) -> ApiResult<Json<List<views::MemberTeamItem>>> {
    let request = page.request(MEMBER_TEAMS_ORDER)?;
    let title = query.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let page = members::teams_of(&state.app, &caller, &org_id, &user_id, title, &request).await?;
    Ok(Json(List::from_page(page, MEMBER_TEAMS_ORDER, |item| {
        views::MemberTeamItem {
            member: views::TeamMembership { role: item.role },
            team: views::team(item.team),
        }
    })))
}

#[derive(Debug, Deserialize)]
struct OrderQuery {
    #[serde(default)]
    order: Order,
}

/// The spaces a member can access, with their role on each, in tree order
/// (`order=desc`, the default, lists the last ones first).
async fn member_spaces(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, user_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<OrderQuery>,
) -> ApiResult<Json<List<views::SpacePermission>>> {
    let order = ListOrder::by_int("position", query.order.is_descending());
    let request = page.request(order)?;
    let page = members::spaces_of(&state.app, &caller, &org_id, &user_id, &request).await?;
    Ok(Json(List::from_page(page, order, |(permission, space)| {
        views::SpacePermission {
            permission,
            space: views::space(&state, space),
        }
    })))
}
