//! Organizations: create, list the caller's, read, update, find by email
//! domain, and the members' "last seen" ping.

use quire_core::Role;
use quire_store::orgs::{self, OrgRow};
use quire_store::page::PageRequest;
use quire_store::{Conn, Page, members, teams};
use serde::Deserialize;

use crate::access::{self, OrgAccess, OrgPermissions};
use crate::error::{AppError, AppResult, NotFoundExt};
use crate::{App, Caller, input};

/// An organization with the caller's permissions in it.
#[derive(Debug, Clone)]
pub struct OrgInfo {
    pub org: OrgRow,
    pub permissions: OrgPermissions,
}

/// Shapes an organization for a member.
async fn info(conn: &mut Conn, access: &OrgAccess, org: OrgRow) -> AppResult<OrgInfo> {
    let owns_team = teams::owns_any(conn, &org.id, &access.user_id).await?;
    Ok(OrgInfo {
        org,
        permissions: access.org_permissions(owns_team),
    })
}

/// The organizations the caller is a member of, oldest first.
pub async fn list_for_caller(app: &App, caller: &Caller, request: &PageRequest) -> AppResult<Page<OrgInfo>> {
    let mut conn = app.db.read().await?;
    let page = orgs::list_for_member(&mut conn, caller.id(), request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for org in page.items {
        let access = access::org(&mut conn, caller, &org.id).await?;
        items.push(info(&mut conn, &access, org).await?);
    }
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

/// The input of organization creation.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewOrg {
    pub title: String,
    #[serde(default)]
    pub email_domains: Vec<String>,
}

/// Creates an organization with the caller as its first admin.
pub async fn create(app: &App, caller: &Caller, new: NewOrg) -> AppResult<OrgInfo> {
    let now = app.now();
    let org = OrgRow {
        id: quire_core::id::new_id(),
        title: input::title("title", &new.title, 2, 255)?,
        hostname: None,
        default_role: Some(Role::Read),
        default_content_site: None,
        logo_url: None,
        sso: false,
        ai: false,
        invite_links: true,
        created_at: now,
        email_domains: email_domains(&new.email_domains)?,
    };
    let mut tx = app.db.write().await?;
    orgs::insert(&mut tx, &org).await?;
    members::insert(&mut tx, &org.id, caller.id(), Some(Role::Admin), false, now).await?;
    tx.commit().await?;
    let access = OrgAccess {
        org_id: org.id.clone(),
        user_id: caller.id().to_owned(),
        role: Some(Role::Admin),
    };
    Ok(OrgInfo {
        permissions: access.org_permissions(false),
        org,
    })
}

fn email_domains(domains: &[String]) -> AppResult<Vec<String>> {
    let mut clean: Vec<String> = Vec::with_capacity(domains.len());
    for domain in domains {
        let domain = input::domain_name(domain)?;
        if !clean.contains(&domain) {
            clean.push(domain);
        }
    }
    Ok(clean)
}

pub async fn get(app: &App, caller: &Caller, org_id: &str) -> AppResult<OrgInfo> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    let org = orgs::get(&mut conn, org_id)
        .await
        .or_not_found("organization", org_id)?;
    info(&mut conn, &access, org).await
}

/// A pointer to a site, as the default content of an organization.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SitePointerInput {
    #[serde(rename = "type")]
    pub kind: SitePointerKind,
    pub site: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SitePointerKind {
    Site,
}

/// The input of an organization update; absent fields stay as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgUpdate {
    pub title: Option<String>,
    pub email_domains: Option<Vec<String>>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub hostname: Option<Option<String>>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_role: Option<Option<Role>>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_content: Option<Option<SitePointerInput>>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub logo: Option<Option<String>>,
    pub sso: Option<bool>,
    pub ai: Option<bool>,
    pub invite_links: Option<bool>,
}

pub async fn update(app: &App, caller: &Caller, org_id: &str, update: OrgUpdate) -> AppResult<OrgInfo> {
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    access.require_admin()?;
    let mut org = orgs::get(&mut tx, org_id).await.or_not_found("organization", org_id)?;
    if let Some(title) = &update.title {
        org.title = input::title("title", title, 2, 255)?;
    }
    if let Some(domains) = &update.email_domains {
        org.email_domains = email_domains(domains)?;
    }
    if let Some(hostname) = &update.hostname {
        org.hostname = hostname.as_deref().map(input::hostname).transpose()?;
    }
    if let Some(role) = update.default_role {
        org.default_role = role;
    }
    if let Some(content) = &update.default_content {
        org.default_content_site = match content {
            None => None,
            // Sites do not exist yet in Quire, so no site id can be valid.
            // When sites land, look the id up in this organization instead.
            Some(SitePointerInput {
                kind: SitePointerKind::Site,
                site,
            }) => {
                return Err(AppError::invalid(format!("defaultContent: site {site:?} not found")));
            }
        };
    }
    if let Some(logo) = &update.logo {
        org.logo_url = logo.as_deref().map(|url| input::http_url("logo", url)).transpose()?;
    }
    org.sso = update.sso.unwrap_or(org.sso);
    org.ai = update.ai.unwrap_or(org.ai);
    org.invite_links = update.invite_links.unwrap_or(org.invite_links);
    orgs::update(&mut tx, &org).await?;
    let info = info(&mut tx, &access, org).await?;
    tx.commit().await?;
    Ok(info)
}

/// Records that the caller was just seen in the organization.
pub async fn ping(app: &App, caller: &Caller, org_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?;
    members::touch_last_seen(&mut tx, org_id, caller.id(), app.now()).await?;
    tx.commit().await?;
    Ok(())
}

/// Organizations with `domain` among their email domains that the caller is
/// in, or may join because their own address is at that domain.
pub async fn by_email_domain(app: &App, caller: &Caller, domain: &str) -> AppResult<Vec<OrgInfo>> {
    let domain = input::domain_name(domain)?;
    let may_join = caller.user.email.rsplit_once('@').is_some_and(|(_, d)| d == domain);
    let mut conn = app.db.read().await?;
    let found = orgs::by_email_domain(&mut conn, &domain, caller.id(), may_join).await?;
    let mut organizations = Vec::with_capacity(found.len());
    for org in found {
        organizations.push(match access::find_org(&mut conn, caller, &org.id).await? {
            Some(access) => info(&mut conn, &access, org).await?,
            None => OrgInfo {
                org,
                permissions: OrgPermissions::outsider(),
            },
        });
    }
    Ok(organizations)
}
