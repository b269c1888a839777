//! Teams and team members.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, put};
use axum::{Json, Router};
use quire_app::teams::{self, NewTeam, TeamMembersChange};
use quire_core::TeamRole;
use serde::Deserialize;

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/teams", get(list_teams).put(create_team))
        .route(
            "/orgs/{organizationId}/teams/{teamId}",
            get(get_team).patch(rename_team).delete(delete_team),
        )
        .route(
            "/orgs/{organizationId}/teams/{teamId}/members",
            get(list_team_members).put(update_team_members),
        )
        .route(
            "/orgs/{organizationId}/teams/{teamId}/members/{userId}",
            put(put_team_member).delete(remove_team_member),
        )
}

const TEAMS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");
const TEAM_MEMBERS_ORDER: ListOrder = ListOrder::ascending_by("addedAt");

#[derive(Debug, Deserialize)]
struct TeamListQuery {
    owner: Option<String>,
    title: Option<String>,
}

async fn list_teams(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<TeamListQuery>,
) -> ApiResult<Json<List<views::Team>>> {
    let request = page.request(TEAMS_ORDER)?;
    let owner = query.owner.filter(|o| !o.is_empty());
    let title = query.title.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    let page = teams::list(&state.app, &caller, &org_id, owner, title, &request).await?;
    Ok(Json(List::from_page(page, TEAMS_ORDER, views::team)))
}

async fn create_team(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewTeam>,
) -> ApiResult<(StatusCode, Json<views::Team>)> {
    let team = teams::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::team(team))))
}

async fn get_team(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Team>> {
    Ok(Json(views::team(
        teams::get(&state.app, &caller, &org_id, &team_id).await?,
    )))
}

#[derive(Debug, Deserialize)]
struct RenameTeam {
    title: String,
}

async fn rename_team(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<RenameTeam>,
) -> ApiResult<Json<views::Team>> {
    let team = teams::rename(&state.app, &caller, &org_id, &team_id, &body.title).await?;
    Ok(Json(views::team(team)))
}

async fn delete_team(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    teams::delete(&state.app, &caller, &org_id, &team_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_team_members(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<views::TeamMemberItem>>> {
    let request = page.request(TEAM_MEMBERS_ORDER)?;
    let page = teams::members(&state.app, &caller, &org_id, &team_id, &request).await?;
    Ok(Json(List::from_page(page, TEAM_MEMBERS_ORDER, |(member, role)| {
        views::TeamMemberItem {
            organization: views::member(&state, &member),
            team: views::TeamMembership { role },
            permissions: views::ViewPermission { view: true },
        }
    })))
}

/// Adds, updates and removes team members in one transaction.
async fn update_team_members(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<TeamMembersChange>,
) -> ApiResult<StatusCode> {
    teams::change_members(&state.app, &caller, &org_id, &team_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize)]
struct PutTeamMember {
    role: Option<TeamRole>,
}

async fn put_team_member(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id, user_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<PutTeamMember>,
) -> ApiResult<StatusCode> {
    teams::put_member(&state.app, &caller, &org_id, &team_id, &user_id, body.role).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn remove_team_member(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, team_id, user_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    teams::remove_member(&state.app, &caller, &org_id, &team_id, &user_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
