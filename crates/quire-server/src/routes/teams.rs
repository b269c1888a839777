//! Teams and team members.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, put};
use axum::{Json, Router};
use quire_core::{Role, TeamRole};
use quire_store::teams::{self, TeamFilter, TeamRow};
use quire_store::{Conn, grants, members, users};
use serde::Deserialize;

use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::{validate, views};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{org_id}/teams", get(list_teams).put(create_team))
        .route(
            "/orgs/{org_id}/teams/{team_id}",
            get(get_team).patch(rename_team).delete(delete_team),
        )
        .route(
            "/orgs/{org_id}/teams/{team_id}/members",
            get(list_team_members).put(update_team_members),
        )
        .route(
            "/orgs/{org_id}/teams/{team_id}/members/{user_id}",
            put(put_team_member).delete(remove_team_member),
        )
}

const TEAMS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");
const TEAM_MEMBERS_ORDER: ListOrder = ListOrder::ascending_by("addedAt");

fn team_title(title: &str) -> ApiResult<String> {
    validate::title("title", title, 1, 64)
}

async fn load_team(conn: &mut Conn, org_id: &str, team_id: &str) -> ApiResult<TeamRow> {
    teams::get(conn, org_id, team_id).await.map_err(|err| match err {
        quire_store::StoreError::NotFound => ApiError::not_found("team"),
        other => other.into(),
    })
}

/// Shapes a team with the caller's permissions on it.
async fn render(conn: &mut Conn, access: &OrgAccess, team: TeamRow) -> ApiResult<views::Team> {
    let owner = teams::member_role(conn, &team.id, &access.user_id).await? == Some(TeamRole::Owner);
    Ok(views::team(team, access.team_permissions(owner)))
}

/// Resolves a user given by id or by email to a member of the organization.
async fn resolve_member(conn: &mut Conn, org_id: &str, user: &str) -> ApiResult<String> {
    let user_id = if user.contains('@') {
        let email = validate::email(user)?;
        users::find_by_email(conn, &email).await?.map(|u| u.id)
    } else {
        Some(user.to_owned())
    };
    match user_id {
        Some(id) if members::membership(conn, org_id, &id).await?.is_some() => Ok(id),
        _ => Err(ApiError::bad_request(format!(
            "{user:?} is not a member of this organization"
        ))),
    }
}

/// True when `user_id` is an admin of the organization (and not disabled).
async fn is_active_admin(conn: &mut Conn, org_id: &str, user_id: &str) -> ApiResult<bool> {
    let membership = members::membership(conn, org_id, user_id).await?;
    Ok(membership.is_some_and(|m| !m.disabled && m.role == Some(Role::Admin)))
}

#[derive(Debug, Deserialize)]
struct TeamListQuery {
    owner: Option<String>,
    title: Option<String>,
}

async fn list_teams(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<TeamListQuery>,
) -> ApiResult<Json<List<views::Team>>> {
    let request = page.request(TEAMS_ORDER)?;
    let mut conn = state.db.read().await?;
    let access = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    access.require_directory()?;
    let owner = match query.owner.filter(|o| !o.is_empty()) {
        // `owner` keeps the teams that member can manage: every team for an admin.
        Some(owner) if is_active_admin(&mut conn, &org_id, &owner).await? => None,
        owner => owner,
    };
    let filter = TeamFilter {
        owner,
        title: query.title.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()),
        member: None,
    };
    let page = teams::list(&mut conn, &org_id, &filter, &request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for team in page.items {
        items.push(render(&mut conn, &access, team).await?);
    }
    Ok(Json(List::new(items, page.total, page.next.as_ref(), TEAMS_ORDER)))
}

#[derive(Debug, Deserialize)]
struct CreateTeam {
    title: String,
    #[serde(default)]
    members: Vec<String>,
}

async fn create_team(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<CreateTeam>,
) -> ApiResult<(StatusCode, Json<views::Team>)> {
    let title = team_title(&body.title)?;
    let now = state.now();
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    access.require_admin()?;
    let team_id = quire_core::id::new_id();
    teams::insert(&mut tx, &team_id, &org_id, &title, now).await?;
    for user in &body.members {
        let user_id = resolve_member(&mut tx, &org_id, user).await?;
        teams::add_member(&mut tx, &team_id, &org_id, &user_id, now).await?;
    }
    let team = load_team(&mut tx, &org_id, &team_id).await?;
    let view = render(&mut tx, &access, team).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(view)))
}

async fn get_team(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Team>> {
    let mut conn = state.db.read().await?;
    let access = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    access.require_directory()?;
    let team = load_team(&mut conn, &org_id, &team_id).await?;
    Ok(Json(render(&mut conn, &access, team).await?))
}

#[derive(Debug, Deserialize)]
struct RenameTeam {
    title: String,
}

async fn rename_team(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<RenameTeam>,
) -> ApiResult<Json<views::Team>> {
    let title = team_title(&body.title)?;
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    load_team(&mut tx, &org_id, &team_id).await?;
    access.require_team_manager(&mut tx, &team_id).await?;
    teams::rename(&mut tx, &team_id, &title).await?;
    let team = load_team(&mut tx, &org_id, &team_id).await?;
    let view = render(&mut tx, &access, team).await?;
    tx.commit().await?;
    Ok(Json(view))
}

async fn delete_team(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    teams::delete(&mut tx, &org_id, &team_id).await?;
    grants::remove_all_of(&mut tx, &org_id, grants::Principal::Team, &team_id).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_team_members(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<views::TeamMemberItem>>> {
    let request = page.request(TEAM_MEMBERS_ORDER)?;
    let mut conn = state.db.read().await?;
    OrgAccess::load(&mut conn, &org_id, &caller)
        .await?
        .require_directory()?;
    load_team(&mut conn, &org_id, &team_id).await?;
    let page = members::list_in_team(&mut conn, &team_id, &request).await?;
    let rows: Vec<members::MemberRow> = page.items.iter().map(|(m, _)| m.clone()).collect();
    let mut spaces = super::members::space_counts(&mut conn, &org_id, &rows)
        .await?
        .into_iter();
    Ok(Json(List::from_page(page, TEAM_MEMBERS_ORDER, |(member, role)| {
        views::TeamMemberItem {
            organization: views::member(&state, &member, spaces.next().unwrap_or_default()),
            team: views::TeamMembership { role },
            permissions: views::ViewPermission { view: true },
        }
    })))
}

#[derive(Debug, Deserialize)]
struct TeamMembershipInput {
    role: TeamRole,
}

#[derive(Debug, Deserialize)]
struct UpdateTeamMembers {
    #[serde(default)]
    add: Vec<String>,
    #[serde(default)]
    remove: Vec<String>,
    #[serde(default)]
    memberships: BTreeMap<String, TeamMembershipInput>,
}

/// Adds, updates and removes team members in one transaction. A user named
/// in both `add` and `remove` ends up removed.
async fn update_team_members(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<UpdateTeamMembers>,
) -> ApiResult<StatusCode> {
    let now = state.now();
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    load_team(&mut tx, &org_id, &team_id).await?;
    access.require_team_manager(&mut tx, &team_id).await?;

    let mut removed = Vec::with_capacity(body.remove.len());
    for user in &body.remove {
        removed.push(resolve_member(&mut tx, &org_id, user).await?);
    }
    for user in &body.add {
        let user_id = resolve_member(&mut tx, &org_id, user).await?;
        if !removed.contains(&user_id) {
            teams::add_member(&mut tx, &team_id, &org_id, &user_id, now).await?;
        }
    }
    for (user, membership) in &body.memberships {
        let user_id = resolve_member(&mut tx, &org_id, user).await?;
        if !removed.contains(&user_id) {
            teams::upsert_member(&mut tx, &team_id, &org_id, &user_id, membership.role, now).await?;
        }
    }
    for user_id in &removed {
        teams::remove_member(&mut tx, &team_id, user_id).await?;
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize)]
struct PutTeamMember {
    role: Option<TeamRole>,
}

async fn put_team_member(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id, user_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<PutTeamMember>,
) -> ApiResult<StatusCode> {
    let now = state.now();
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    load_team(&mut tx, &org_id, &team_id).await?;
    access.require_team_manager(&mut tx, &team_id).await?;
    let user_id = resolve_member(&mut tx, &org_id, &user_id).await?;
    match body.role {
        Some(role) => teams::upsert_member(&mut tx, &team_id, &org_id, &user_id, role, now).await?,
        None => teams::add_member(&mut tx, &team_id, &org_id, &user_id, now).await?,
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn remove_team_member(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, team_id, user_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    if teams::get(&mut tx, &org_id, &team_id).await.is_ok() {
        if access.user_id != user_id {
            access.require_team_manager(&mut tx, &team_id).await?;
        }
        teams::remove_member(&mut tx, &team_id, &user_id).await?;
        tx.commit().await?;
    }
    Ok(StatusCode::NO_CONTENT)
}
