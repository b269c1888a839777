//! Who may touch a space or a collection: invite users and teams with a
//! role, list, change and remove their grants. The same operations exist
//! under `/spaces/{id}/permissions` and `/collections/{id}/permissions`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use quire_core::Role;
use quire_store::grants::{self, Principal, Resource};
use quire_store::{Conn, members, teams, users};
use serde::Deserialize;

use super::collections::visible_collection;
use super::spaces::visible_space;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, nullable};
use crate::pagination::{List, ListOrder, PageParams};
use crate::permissions::ContentAccess;
use crate::state::AppState;
use crate::{validate, views};

pub fn router() -> Router<AppState> {
    let mut router = Router::new();
    for (prefix, kind) in [
        ("/spaces/{id}", Resource::Space),
        ("/collections/{id}", Resource::Collection),
    ] {
        router = router
            .route(
                &format!("{prefix}/permissions"),
                post(
                    move |s: State<AppState>, c: Caller, p: Path<String>, b: JsonBody<Invite>| invite(s, c, p, b, kind),
                ),
            )
            .route(
                &format!("{prefix}/permissions/users"),
                get(move |s: State<AppState>, c: Caller, p: Path<String>, pg: PageParams| {
                    list_users(s, c, p, pg, kind)
                }),
            )
            .route(
                &format!("{prefix}/permissions/teams"),
                get(move |s: State<AppState>, c: Caller, p: Path<String>, pg: PageParams| {
                    list_teams(s, c, p, pg, kind)
                }),
            )
            .route(
                &format!("{prefix}/permissions/users/{{principal}}"),
                patch(
                    move |s: State<AppState>, c: Caller, p: Path<(String, String)>, b: JsonBody<ChangeRole>| {
                        change(s, c, p, b, kind, Principal::User)
                    },
                )
                .delete(move |s: State<AppState>, c: Caller, p: Path<(String, String)>| {
                    remove(s, c, p, kind, Principal::User)
                }),
            )
            .route(
                &format!("{prefix}/permissions/teams/{{principal}}"),
                patch(
                    move |s: State<AppState>, c: Caller, p: Path<(String, String)>, b: JsonBody<ChangeRole>| {
                        change(s, c, p, b, kind, Principal::Team)
                    },
                )
                .delete(move |s: State<AppState>, c: Caller, p: Path<(String, String)>| {
                    remove(s, c, p, kind, Principal::Team)
                }),
            );
    }
    router
}

const GRANTS_ORDER: ListOrder = ListOrder::ascending_by("grantedAt");

/// A space or collection the caller can see, with their access to it.
struct Target {
    id: String,
    org_id: String,
    access: ContentAccess,
}

async fn target(conn: &mut Conn, caller: &Caller, kind: Resource, id: &str) -> ApiResult<Target> {
    match kind {
        Resource::Space => {
            let (space, access) = visible_space(conn, caller, id, None).await?;
            if access.role.is_none() {
                return Err(ApiError::not_found("space"));
            }
            Ok(Target {
                id: space.id,
                org_id: space.organization_id,
                access,
            })
        }
        Resource::Collection => {
            let (collection, access) = visible_collection(conn, caller, id).await?;
            Ok(Target {
                id: collection.id,
                org_id: collection.organization_id,
                access,
            })
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Invite {
    #[serde(deserialize_with = "nullable")]
    role: Option<Option<Role>>,
    #[serde(default)]
    users: Vec<String>,
    #[serde(default)]
    teams: Vec<String>,
}

/// Grants the role to every listed user (by id or email) and team. Users
/// outside the organization join it as guests, so the grant is all they see.
async fn invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Invite>,
    kind: Resource,
) -> ApiResult<StatusCode> {
    let role = body
        .role
        .flatten()
        .ok_or_else(|| ApiError::bad_request("role is required and must be a role"))?;
    if body.users.is_empty() && body.teams.is_empty() {
        return Err(ApiError::bad_request("list at least one user or team"));
    }
    let now = state.now();
    let mut tx = state.db.write().await?;
    let target = target(&mut tx, &caller, kind, &id).await?;
    target.access.require(Role::Admin, "share this content")?;
    for user in &body.users {
        let found = if user.contains('@') {
            users::find_by_email(&mut tx, &validate::email(user)?).await?
        } else {
            users::get(&mut tx, user).await.ok()
        };
        let user = found.ok_or_else(|| ApiError::bad_request(format!("user {user:?} not found")))?;
        members::insert(&mut tx, &target.org_id, &user.id, None, false, now).await?;
        grants::upsert(
            &mut tx,
            kind,
            &target.id,
            &target.org_id,
            Principal::User,
            &user.id,
            role,
            now,
        )
        .await?;
    }
    for team in &body.teams {
        if teams::get(&mut tx, &target.org_id, team).await.is_err() {
            return Err(ApiError::bad_request(format!(
                "team {team:?} not found in this organization"
            )));
        }
        grants::upsert(
            &mut tx,
            kind,
            &target.id,
            &target.org_id,
            Principal::Team,
            team,
            role,
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_users(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    page: PageParams,
    kind: Resource,
) -> ApiResult<Json<List<views::UserPermission>>> {
    let request = page.request(GRANTS_ORDER)?;
    let mut conn = state.db.read().await?;
    let target = target(&mut conn, &caller, kind, &id).await?;
    let page = grants::list_users(&mut conn, &target.id, &request).await?;
    Ok(Json(List::from_page(page, GRANTS_ORDER, |(user, permission)| {
        views::UserPermission {
            permission,
            user: views::user(&state, &user),
        }
    })))
}

async fn list_teams(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    page: PageParams,
    kind: Resource,
) -> ApiResult<Json<List<views::TeamPermission>>> {
    let request = page.request(GRANTS_ORDER)?;
    let mut conn = state.db.read().await?;
    let target = target(&mut conn, &caller, kind, &id).await?;
    let org = target.access.org.clone().ok_or_else(|| ApiError::not_found("space"))?;
    let page = grants::list_teams(&mut conn, &target.id, &request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for (team, permission) in page.items {
        let owner = teams::member_role(&mut conn, &team.id, caller.id()).await? == Some(quire_core::TeamRole::Owner);
        items.push(views::TeamPermission {
            permission,
            team: views::team(team, org.team_permissions(owner)),
        });
    }
    Ok(Json(List::new(items, page.total, page.next.as_ref(), GRANTS_ORDER)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangeRole {
    #[serde(default, deserialize_with = "nullable")]
    role: Option<Option<Role>>,
}

/// Changes a grant's role; `null` removes the grant.
async fn change(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, principal_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<ChangeRole>,
    kind: Resource,
    principal: Principal,
) -> ApiResult<StatusCode> {
    let role = body
        .role
        .ok_or_else(|| ApiError::bad_request("role is required (a role, or null to remove)"))?;
    let mut tx = state.db.write().await?;
    let target = target(&mut tx, &caller, kind, &id).await?;
    target.access.require(Role::Admin, "share this content")?;
    match role {
        Some(role) => {
            if !grants::set_role(&mut tx, &target.id, principal, &principal_id, role).await? {
                return Err(ApiError::not_found("permission"));
            }
        }
        None => grants::remove(&mut tx, &target.id, principal, &principal_id).await?,
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, principal_id)): Path<(String, String)>,
    kind: Resource,
    principal: Principal,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    let target = target(&mut tx, &caller, kind, &id).await?;
    target.access.require(Role::Admin, "share this content")?;
    grants::remove(&mut tx, &target.id, principal, &principal_id).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
