//! Who may touch a space or a collection: invite users and teams with a
//! role, list, change and remove their grants. The same operations exist
//! under `/spaces/{spaceId}/permissions` and
//! `/collections/{collectionId}/permissions`; one generic handler serves
//! both, told apart by a marker type.

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
