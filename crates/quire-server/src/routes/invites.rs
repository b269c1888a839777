//! Inviting people: by email (`/invites`) and with shareable invite links
//! (`/link-invites`, joined through `/invites/{inviteId}`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::Role;
use quire_store::invites::{self, InviteLinkRow};
use quire_store::{Conn, members, orgs, users};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, nullable};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::{validate, views};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{org_id}/invites", post(invite_by_email))
        .route("/orgs/{org_id}/invites/{invite_id}", post(join_with_link))
        .route("/orgs/{org_id}/link-invites", get(list_links).post(create_link))
        .route(
            "/orgs/{org_id}/link-invites/{invite_id}",
            get(get_link).patch(update_link).delete(delete_link),
        )
}

/// An entry of `emails`: a bare address or an address with its own role.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Invitee {
    Email(String),
    WithRole {
        email: String,
        #[serde(deserialize_with = "nullable")]
        role: Option<Option<Role>>,
    },
}

#[derive(Debug, Deserialize)]
struct InviteByEmail {
    emails: Vec<Invitee>,
    #[serde(default, deserialize_with = "nullable")]
    role: Option<Option<Role>>,
    #[serde(default)]
    sso: bool,
}

#[derive(Debug, Serialize)]
struct InviteResult {
    /// Users who had an account and are now members.
    users: Vec<String>,
    /// Number of people invited: those who became members now and those who
    /// will when their account is created.
    invited: usize,
}

async fn invite_by_email(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<InviteByEmail>,
) -> ApiResult<Json<InviteResult>> {
    if body.emails.is_empty() {
        return Err(ApiError::bad_request("emails must list at least one address"));
    }
    let now = state.now();
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    let org = orgs::get(&mut tx, &org_id).await?;
    let default_role = body.role.unwrap_or(org.default_role);

    let mut result = InviteResult {
        users: Vec::new(),
        invited: 0,
    };
    for invitee in &body.emails {
        let (email, role) = match invitee {
            Invitee::Email(email) => (email, default_role),
            Invitee::WithRole { email, role } => (email, role.unwrap_or(default_role)),
        };
        let email = validate::email(email)?;
        match users::find_by_email(&mut tx, &email).await? {
            Some(user) => {
                // Someone already a member is left as they are and not counted.
                if members::insert(&mut tx, &org_id, &user.id, role, body.sso, now).await? {
                    result.users.push(user.id);
                    result.invited += 1;
                }
            }
            None => {
                let id = quire_core::id::new_id();
                invites::upsert_pending(&mut tx, &id, &org_id, &email, role, body.sso, now).await?;
                result.invited += 1;
            }
        }
    }
    tx.commit().await?;
    Ok(Json(result))
}

const LINKS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn load_link(conn: &mut Conn, org_id: &str, invite_id: &str) -> ApiResult<InviteLinkRow> {
    invites::get_link(conn, org_id, invite_id)
        .await
        .map_err(|err| match err {
            quire_store::StoreError::NotFound => ApiError::not_found("invite link"),
            other => other.into(),
        })
}

async fn list_links(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::InviteLink>>> {
    let request = page.request(LINKS_ORDER)?;
    let mut conn = state.db.read().await?;
    OrgAccess::load(&mut conn, &org_id, &caller).await?.require_admin()?;
    let page = invites::list_links(&mut conn, &org_id, &request).await?;
    Ok(Json(List::from_page(page, LINKS_ORDER, views::invite_link)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateLink {
    #[serde(deserialize_with = "nullable")]
    role: Option<Option<Role>>,
}

async fn create_link(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<CreateLink>,
) -> ApiResult<(StatusCode, Json<views::InviteLink>)> {
    let role = body
        .role
        .ok_or_else(|| ApiError::bad_request("role is required (a role, or null for guests)"))?;
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    let link = InviteLinkRow {
        id: quire_core::id::new_id(),
        organization_id: org_id,
        role,
        created_at: state.now(),
    };
    invites::insert_link(&mut tx, &link).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(views::invite_link(link))))
}

async fn get_link(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<Json<views::InviteLink>> {
    let mut conn = state.db.read().await?;
    OrgAccess::load(&mut conn, &org_id, &caller).await?.require_admin()?;
    Ok(Json(views::invite_link(
        load_link(&mut conn, &org_id, &invite_id).await?,
    )))
}

#[derive(Debug, Deserialize)]
struct UpdateLink {
    #[serde(default, deserialize_with = "nullable")]
    role: Option<Option<Role>>,
}

async fn update_link(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, invite_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<UpdateLink>,
) -> ApiResult<Json<views::InviteLink>> {
    let role = body
        .role
        .ok_or_else(|| ApiError::bad_request("role is required (a role, or null for guests)"))?;
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    load_link(&mut tx, &org_id, &invite_id).await?;
    invites::set_link_role(&mut tx, &org_id, &invite_id, role).await?;
    let link = load_link(&mut tx, &org_id, &invite_id).await?;
    tx.commit().await?;
    Ok(Json(views::invite_link(link)))
}

async fn delete_link(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    invites::delete_link(&mut tx, &org_id, &invite_id).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Joins the organization with an invite link. The link id is the secret,
/// so callers need not be members (the organization stays hidden otherwise).
async fn join_with_link(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, invite_id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let mut tx = state.db.write().await?;
    let link = load_link(&mut tx, &org_id, &invite_id).await?;
    let org = orgs::get(&mut tx, &org_id).await?;
    if !org.invite_links {
        return Err(ApiError::forbidden("this organization has turned invite links off"));
    }
    members::insert(&mut tx, &org_id, caller.id(), link.role, false, state.now()).await?;
    tx.commit().await?;
    Ok(Json(json!({})))
}
