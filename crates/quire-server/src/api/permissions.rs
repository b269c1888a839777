//! Who may touch a space or a collection: invite users and teams with a
//! role, list, change and remove their grants. The same operations exist
//! under `/spaces/{spaceId}/permissions` and
//! `/collections/{collectionId}/permissions`; one generic handler serves
//! both, told apart by a marker type. `GET /spaces/{spaceId}/access/{userId}`
//! (Quire's addition) says why a person holds their role on a space.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use quire_app::permissions::{self, Invite};
use quire_core::Role;
use quire_core::serde_util::nullable;
use quire_store::grants::{Principal, Resource};
use serde::Deserialize;

use crate::auth::Auth;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/permissions", post(invite::<Space>))
        // Quire's addition: why a person holds their role on a space.
        .route("/spaces/{spaceId}/access/{userId}", get(explain_access))
        .route("/spaces/{spaceId}/permissions/users", get(list_users::<Space>))
        .route("/spaces/{spaceId}/permissions/teams", get(list_teams::<Space>))
        .route(
            "/spaces/{spaceId}/permissions/users/{userId}",
            patch(change::<Space, User>).delete(remove::<Space, User>),
        )
        .route(
            "/spaces/{spaceId}/permissions/teams/{teamId}",
            patch(change::<Space, Team>).delete(remove::<Space, Team>),
        )
        .route("/collections/{collectionId}/permissions", post(invite::<Collection>))
        .route(
            "/collections/{collectionId}/permissions/users",
            get(list_users::<Collection>),
        )
        .route(
            "/collections/{collectionId}/permissions/teams",
            get(list_teams::<Collection>),
        )
        .route(
            "/collections/{collectionId}/permissions/users/{userId}",
            patch(change::<Collection, User>).delete(remove::<Collection, User>),
        )
        .route(
            "/collections/{collectionId}/permissions/teams/{teamId}",
            patch(change::<Collection, Team>).delete(remove::<Collection, Team>),
        )
}

/// What a route's permissions are on.
trait OnResource: Send + Sync + 'static {
    const RESOURCE: Resource;
}

/// Who a route's grant is for.
trait ForPrincipal: Send + Sync + 'static {
    const PRINCIPAL: Principal;
}

struct Space;
struct Collection;
struct User;
struct Team;

impl OnResource for Space {
    const RESOURCE: Resource = Resource::Space;
}

impl OnResource for Collection {
    const RESOURCE: Resource = Resource::Collection;
}

impl ForPrincipal for User {
    const PRINCIPAL: Principal = Principal::User;
}

impl ForPrincipal for Team {
    const PRINCIPAL: Principal = Principal::Team;
}

const GRANTS_ORDER: ListOrder = ListOrder::ascending_by("grantedAt");

async fn invite<R: OnResource>(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Invite>,
) -> ApiResult<StatusCode> {
    permissions::invite(&state.app, &caller, R::RESOURCE, &id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_users<R: OnResource>(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::UserPermission>>> {
    let request = page.request(GRANTS_ORDER)?;
    let page = permissions::users(&state.app, &caller, R::RESOURCE, &id, &request).await?;
    Ok(Json(List::from_page(page, GRANTS_ORDER, |grant| {
        views::UserPermission {
            permission: grant.role,
            user: views::user_as(&state, &grant.user, grant.visibility),
        }
    })))
}

async fn list_teams<R: OnResource>(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::TeamPermission>>> {
    let request = page.request(GRANTS_ORDER)?;
    let page = permissions::teams(&state.app, &caller, R::RESOURCE, &id, &request).await?;
    Ok(Json(List::from_page(page, GRANTS_ORDER, |(team, permission)| {
        views::TeamPermission {
            permission,
            team: views::team(team),
        }
    })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangeRole {
    #[serde(default, deserialize_with = "nullable")]
    role: Option<Option<Role>>,
}

/// Changes a grant's role; `null` removes the grant.
async fn change<R: OnResource, P: ForPrincipal>(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((id, principal_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<ChangeRole>,
) -> ApiResult<StatusCode> {
    let role = body
        .role
        .ok_or_else(|| ApiError::bad_request("role is required (a role, or null to remove)"))?;
    permissions::change(&state.app, &caller, R::RESOURCE, &id, P::PRINCIPAL, &principal_id, role).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn remove<R: OnResource, P: ForPrincipal>(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((id, principal_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    permissions::remove(&state.app, &caller, R::RESOURCE, &id, P::PRINCIPAL, &principal_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A person's role on a space and every source of it, strongest first.
async fn explain_access(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<serde_json::Value>> {
    let explained = permissions::explain(&state.app, &caller, &space_id, &user_id).await?;
    let sources: Vec<serde_json::Value> = explained
        .sources
        .iter()
        .map(|(role, source, title)| {
            let (kind, resource, team) = match source {
                quire_app::access::RoleSource::Organization => ("organization", None, None),
                quire_app::access::RoleSource::DefaultLevel { resource } => ("default", Some(resource), None),
                quire_app::access::RoleSource::Grant { resource, team: None } => ("user", Some(resource), None),
                quire_app::access::RoleSource::Grant {
                    resource,
                    team: Some(team),
                } => ("team", Some(resource), Some(team)),
            };
            serde_json::json!({
                "role": role,
                "kind": kind,
                "resource": resource.map(|id| serde_json::json!({ "id": id, "title": title })),
                "team": team.map(|(id, title)| serde_json::json!({ "id": id, "title": title })),
            })
        })
        .collect();
    Ok(Json(serde_json::json!({
        "object": "access",
        "user": { "id": explained.user.id, "displayName": explained.user.display_name },
        "role": explained.role,
        "sources": sources,
    })))
}
