//! Organizations: create, list, read, update, email-domain lookup, ping.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::Role;
use quire_store::orgs::{self, OrgRow};
use quire_store::{Conn, members, teams};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::authz::{OrgAccess, OrgPermissions};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, nullable};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::{validate, views};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs", get(list_orgs).post(create_org))
        .route("/orgs/{org_id}", get(get_org).patch(update_org))
        .route("/orgs/{org_id}/ping", post(ping))
        .route("/email-domains/{domain}/orgs", get(orgs_for_email_domain))
}

const ORGS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

/// Shapes an organization with the permissions of `access`.
pub(crate) async fn render(
    state: &AppState,
    conn: &mut Conn,
    access: &OrgAccess,
    org: OrgRow,
) -> ApiResult<views::Organization> {
    let owns_team = teams::owns_any(conn, &org.id, &access.user_id).await?;
    Ok(views::organization(state, org, access.org_permissions(owns_team)))
}

async fn list_orgs(
    State(state): State<AppState>,
    caller: Caller,
    page: PageParams,
) -> ApiResult<Json<List<views::Organization>>> {
    let request = page.request(ORGS_ORDER)?;
    let mut conn = state.db.read().await?;
    let page = orgs::list_for_member(&mut conn, caller.id(), &request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for org in page.items {
        let access = OrgAccess::load(&mut conn, &org.id, &caller).await?;
        items.push(render(&state, &mut conn, &access, org).await?);
    }
    Ok(Json(List::new(items, page.total, page.next.as_ref(), ORGS_ORDER)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateOrg {
    title: String,
    #[serde(default)]
    email_domains: Vec<String>,
}

async fn create_org(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(body): JsonBody<CreateOrg>,
) -> ApiResult<(StatusCode, Json<views::Organization>)> {
    let now = state.now();
    let org = OrgRow {
        id: quire_core::id::new_id(),
        title: validate::title("title", &body.title, 2, 255)?,
        hostname: None,
        default_role: Some(Role::Read),
        default_content_site: None,
        logo_url: None,
        sso: false,
        ai: false,
        invite_links: true,
        created_at: now,
        email_domains: email_domains(&body.email_domains)?,
    };
    let mut tx = state.db.write().await?;
    orgs::insert(&mut tx, &org).await?;
    members::insert(&mut tx, &org.id, caller.id(), Some(Role::Admin), false, now).await?;
    tx.commit().await?;
    let access = OrgAccess {
        org_id: org.id.clone(),
        user_id: caller.id().to_owned(),
        role: Some(Role::Admin),
    };
    Ok((
        StatusCode::CREATED,
        Json(views::organization(&state, org, access.org_permissions(false))),
    ))
}

fn email_domains(domains: &[String]) -> ApiResult<Vec<String>> {
    let mut clean: Vec<String> = Vec::with_capacity(domains.len());
    for domain in domains {
        let domain = validate::domain_name(domain)?;
        if !clean.contains(&domain) {
            clean.push(domain);
        }
    }
    Ok(clean)
}

async fn get_org(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
) -> ApiResult<Json<views::Organization>> {
    let mut conn = state.db.read().await?;
    let access = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    let org = orgs::get(&mut conn, &org_id).await?;
    Ok(Json(render(&state, &mut conn, &access, org).await?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SitePointerInput {
    #[serde(rename = "type")]
    kind: SitePointerKind,
    site: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum SitePointerKind {
    Site,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateOrg {
    title: Option<String>,
    email_domains: Option<Vec<String>>,
    #[serde(default, deserialize_with = "nullable")]
    hostname: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    default_role: Option<Option<Role>>,
    #[serde(default, deserialize_with = "nullable")]
    default_content: Option<Option<SitePointerInput>>,
    #[serde(default, deserialize_with = "nullable")]
    logo: Option<Option<String>>,
    sso: Option<bool>,
    ai: Option<bool>,
    invite_links: Option<bool>,
}

async fn update_org(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<UpdateOrg>,
) -> ApiResult<Json<views::Organization>> {
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    access.require_admin()?;
    let mut org = orgs::get(&mut tx, &org_id).await?;
    if let Some(title) = &body.title {
        org.title = validate::title("title", title, 2, 255)?;
    }
    if let Some(domains) = &body.email_domains {
        org.email_domains = email_domains(domains)?;
    }
    if let Some(hostname) = &body.hostname {
        org.hostname = hostname.as_deref().map(validate::hostname).transpose()?;
    }
    if let Some(role) = body.default_role {
        org.default_role = role;
    }
    if let Some(content) = &body.default_content {
        org.default_content_site = match content {
            None => None,
            // Sites do not exist yet in Quire, so no site id can be valid.
            // When sites land, look the id up in this organization instead.
            Some(SitePointerInput {
                kind: SitePointerKind::Site,
                site,
            }) => {
                return Err(ApiError::bad_request(format!(
                    "defaultContent: site {site:?} not found"
                )));
            }
        };
    }
    if let Some(logo) = &body.logo {
        org.logo_url = logo.as_deref().map(|url| validate::http_url("logo", url)).transpose()?;
    }
    org.sso = body.sso.unwrap_or(org.sso);
    org.ai = body.ai.unwrap_or(org.ai);
    org.invite_links = body.invite_links.unwrap_or(org.invite_links);
    orgs::update(&mut tx, &org).await.map_err(|err| match err {
        quire_store::StoreError::Conflict(_) => ApiError::conflict("that hostname is already taken"),
        other => other.into(),
    })?;
    let view = render(&state, &mut tx, &access, org).await?;
    tx.commit().await?;
    Ok(Json(view))
}

async fn ping(State(state): State<AppState>, caller: Caller, Path(org_id): Path<String>) -> ApiResult<Json<Value>> {
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?;
    members::touch_last_seen(&mut tx, &org_id, caller.id(), state.now()).await?;
    tx.commit().await?;
    Ok(Json(json!({})))
}

async fn orgs_for_email_domain(
    State(state): State<AppState>,
    caller: Caller,
    Path(domain): Path<String>,
) -> ApiResult<Json<Value>> {
    let domain = validate::domain_name(&domain)?;
    let may_join = caller.user.email.rsplit_once('@').is_some_and(|(_, d)| d == domain);
    let mut conn = state.db.read().await?;
    let found = orgs::by_email_domain(&mut conn, &domain, caller.id(), may_join).await?;
    let mut organizations = Vec::with_capacity(found.len());
    for org in found {
        let view = match OrgAccess::find(&mut conn, &org.id, &caller).await? {
            Some(access) => render(&state, &mut conn, &access, org).await?,
            None => views::organization(&state, org, OrgPermissions::outsider()),
        };
        organizations.push(view);
    }
    Ok(Json(json!({ "organizations": organizations })))
}
