//! Inviting people: by email (`/invites`) and with shareable invite links
//! (`/link-invites`); both are joined through `/invites/{inviteId}`. The
//! invited person's side (Quire's additions): `GET /user/invites`, the
//! invitations waiting for their answer, and `DELETE
//! /user/invites/{inviteId}`, declining one. The admins' side (Quire's
//! additions too): `GET /orgs/{organizationId}/invites`, the invitations
//! by email waiting for an answer, and `DELETE
//! /orgs/{organizationId}/invites/{inviteId}`, revoking one.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use quire_app::invites::{self, EmailInvites, InviteOutcome, LinkRole};
use serde_json::{Value, json};

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/orgs/{organizationId}/invites",
            get(list_pending).post(invite_by_email),
        )
        .route(
            "/orgs/{organizationId}/invites/{inviteId}",
            post(join_with_link).delete(revoke_invite),
        )
        .route("/user/invites", get(list_invitations))
        .route("/user/invites/{inviteId}", delete(decline_invitation))
        .route("/orgs/{organizationId}/link-invites", get(list_links).post(create_link))
        .route(
            "/orgs/{organizationId}/link-invites/{inviteId}",
            get(get_link).patch(update_link).delete(delete_link),
        )
}

const LINKS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");
const PENDING_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn invite_by_email(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<EmailInvites>,
) -> ApiResult<Json<InviteOutcome>> {
    Ok(Json(
        invites::invite_by_email(&state.app, &caller, &org_id, body).await?,
    ))
}

async fn list_pending(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::invites::PendingInvite>>> {
    let request = page.request(PENDING_ORDER)?;
    let page = invites::pending(&state.app, &caller, &org_id, &request).await?;
    Ok(Json(List::from_page(page, PENDING_ORDER, |invite| {
        views::invites::pending_invite(&state, invite)
    })))
}

async fn revoke_invite(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    invites::revoke(&state.app, &caller, &org_id, &invite_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_links(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::InviteLink>>> {
    let request = page.request(LINKS_ORDER)?;
    let page = invites::links(&state.app, &caller, &org_id, &request).await?;
    Ok(Json(List::from_page(page, LINKS_ORDER, views::invite_link)))
}

async fn create_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<LinkRole>,
) -> ApiResult<(StatusCode, Json<views::InviteLink>)> {
    let link = invites::create_link(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::invite_link(link))))
}

async fn get_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<Json<views::InviteLink>> {
    let link = invites::get_link(&state.app, &caller, &org_id, &invite_id).await?;
    Ok(Json(views::invite_link(link)))
}

async fn update_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, invite_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<LinkRole>,
) -> ApiResult<Json<views::InviteLink>> {
    let link = invites::update_link(&state.app, &caller, &org_id, &invite_id, body).await?;
    Ok(Json(views::invite_link(link)))
}

async fn delete_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    invites::delete_link(&state.app, &caller, &org_id, &invite_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn join_with_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    invites::join_with_link(&state.app, &caller, &org_id, &invite_id).await?;
    Ok(Json(json!({})))
}

async fn list_invitations(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult<Json<Value>> {
    let invitations = invites::invitations(&state.app, &caller).await?;
    let items: Vec<views::Invitation> = invitations
        .iter()
        .map(|invitation| views::invitation(&state, invitation))
        .collect();
    Ok(Json(json!({ "items": items })))
}

async fn decline_invitation(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(invite_id): Path<String>,
) -> ApiResult<StatusCode> {
    invites::decline(&state.app, &caller, &invite_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
