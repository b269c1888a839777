//! Sites: documentation websites made of an organization's spaces, managed
//! through `/v1` and served to their visitors. This module owns a site's
//! settings (title, basename, hostname, proxy, audience, publication,
//! adaptive content); [`structure`] owns what the site is made of
//! (sections, section groups, site spaces), [`customization`] how it
//! looks, [`share_links`] the secret links of `share-link` sites,
//! [`redirects`] the paths a published site sends elsewhere,
//! [`published`] and [`visitor`] who may read what, and [`serve`] the
//! published site itself (rendered by `quire-site-render`).
//!
//! Who may do what is `access::site`: members with a role see sites,
//! creators change their structure, admins their settings.

pub mod adaptive;
pub mod customization;
pub mod published;
pub mod redirects;
mod routes;
pub mod serve;
pub mod share_links;
pub mod structure;
mod views;
pub mod visitor;

pub use routes::router;

use std::collections::HashMap;

use quire_core::events::EventType;
use quire_core::serde_util::nullable;
use quire_core::{DefaultLevel, SiteVisibility};
use quire_store::page::PageRequest;
use quire_store::sites::{self, SiteFilter, SiteRow};
use quire_store::{Conn, Page};
use serde::Deserialize;

use quire_app::access::{self, SitePermissions};
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller, input};

/// Site types of the official API.
pub const SITE_TYPES: [&str; 6] = [
    "basic",
    "premium",
    "ultimate",
    "sponsored",
    "legacy-basic",
    "legacy-premium",
];
/// Audiences a site may have.
/// A site's audience from its official name, or the error naming the
/// accepted ones.
fn site_visibility(value: &str) -> AppResult<SiteVisibility> {
    SiteVisibility::parse(value).ok_or_else(|| {
        let names: Vec<&str> = SiteVisibility::ALL.iter().map(|v| v.as_str()).collect();
        AppError::invalid(format!("visibility must be one of {}", names.join(", ")))
    })
}

/// A site with what its view needs.
#[derive(Debug, Clone)]
pub struct SiteInfo {
    pub site: SiteRow,
    pub site_spaces: i64,
    pub permissions: SitePermissions,
}

async fn info(conn: &mut Conn, site: SiteRow, permissions: SitePermissions) -> AppResult<SiteInfo> {
    let counts = sites::site_space_counts(conn, std::slice::from_ref(&site.id)).await?;
    Ok(SiteInfo {
        site_spaces: counts.values().sum(),
        site,
        permissions,
    })
}

fn site_title(value: &str) -> AppResult<String> {
    input::title("title", value, 2, 128)
}

fn one_of(field: &str, value: &str, allowed: &[&str]) -> AppResult<String> {
    if allowed.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(AppError::invalid(format!(
            "{field} must be one of {}",
            allowed.join(", ")
        )))
    }
}

/// A basename: 1 to 100 characters of lower-case letters, digits, `-` and
/// `_` (it is a path segment of the site's URL).
fn basename(value: &str) -> AppResult<String> {
    let ok = (1..=100).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !ok {
        return Err(AppError::invalid(
            "basename must be 1 to 100 lower-case letters, digits, '-' or '_'",
        ));
    }
    if RESERVED_BASENAMES.contains(&value) {
        return Err(AppError::invalid(format!("basename {value:?} is reserved by Quire")));
    }
    Ok(value.to_owned())
}

/// A custom hostname: at least three DNS labels, lower case (the official
/// pattern).
fn site_hostname(value: &str) -> AppResult<String> {
    let labels: Vec<&str> = value.split('.').collect();
    let label_ok = |l: &&str| {
        (1..=63).contains(&l.len())
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if labels.len() >= 3
        && value.len() <= 512
        && labels.iter().all(label_ok)
        && labels.last().is_some_and(|l| l.len() >= 2)
    {
        Ok(value.to_owned())
    } else {
        Err(AppError::invalid(
            "hostname must be a lower-case DNS name of at least three labels, such as docs.example.com",
        ))
    }
}

/// A proxy origin such as `example.com/docs`: a dotted host and at least
/// one path segment of letters, digits, `_` and `-` (the official pattern).
fn proxy_origin(value: &str) -> AppResult<String> {
    let invalid = || AppError::invalid("proxy must look like example.com/docs (a host and one or more path segments)");
    let (host, path) = value.split_once('/').ok_or_else(invalid)?;
    let word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let labels: Vec<&str> = host.split('.').collect();
    let tld_ok = labels
        .last()
        .is_some_and(|t| t.len() >= 2 && t.bytes().all(|b| b.is_ascii_alphabetic()));
    if value.len() <= 512 && labels.len() >= 2 && labels.iter().all(|l| word(l)) && tld_ok && path.split('/').all(word)
    {
        Ok(value.to_owned())
    } else {
        Err(invalid())
    }
}

/// Filters of the site list.
#[derive(Debug, Clone, Default)]
pub struct SiteListFilter {
    pub space: Option<String>,
    pub title: Option<String>,
    pub published: Option<bool>,
    pub types: Vec<String>,
}

pub async fn list(
    app: &App,
    caller: &Caller,
    org_id: &str,
    filter: SiteListFilter,
    request: &PageRequest,
) -> AppResult<Page<SiteInfo>> {
    for t in &filter.types {
        one_of("type", t, &SITE_TYPES)?;
    }
    let mut conn = app.db.read().await?;
    let org = access::sites_of(&mut conn, caller, org_id).await?;
    let filter = SiteFilter {
        space_id: filter.space,
        title: filter.title,
        published: filter.published,
        types: filter.types,
    };
    let page = sites::list_sites(&mut conn, org_id, &filter, request).await?;
    let ids: Vec<String> = page.items.iter().map(|s| s.id.clone()).collect();
    let counts: HashMap<String, i64> = sites::site_space_counts(&mut conn, &ids).await?;
    let permissions = SitePermissions::of(org.role);
    Ok(page.map(|site| SiteInfo {
        site_spaces: counts.get(&site.id).copied().unwrap_or_default(),
        site,
        permissions,
    }))
}

/// The input of site creation.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewSite {
    #[serde(rename = "type")]
    pub site_type: Option<String>,
    pub title: Option<String>,
    pub visibility: Option<String>,
    /// Spaces shown by the new site, in order, at its root level.
    #[serde(default)]
    pub spaces: Vec<String>,
    /// Creates a new, empty space titled like the site and shows it first
    /// (the seed's "flag to create a new space"; the official spec names
    /// none).
    #[serde(default)]
    pub empty_space: bool,
}

/// Path segments of the public URL that belong to Quire, not to sites.
const RESERVED_BASENAMES: [&str; 18] = [
    "v1", "health", "ready", "api", "s", "o", "c", "me", "account", "auth", "sign-in", "saml", "sso", "static",
    "assets", "app", "login", "logout",
];

/// A basename derived from `title`, made unique across the instance.
async fn free_basename(conn: &mut Conn, title: &str) -> AppResult<String> {
    let mut base: String = quire_content::markdown::slugify(title)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(90)
        .collect();
    if base.is_empty() || !title.chars().any(|c| c.is_ascii_alphanumeric()) {
        base = "site".into();
    }
    let taken = sites::basenames_like(conn, &base).await?;
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate) || RESERVED_BASENAMES.contains(&candidate.as_str()) {
        candidate = format!("{base}-{n}");
        n += 1;
    }
    Ok(candidate)
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewSite) -> AppResult<SiteInfo> {
    let title = site_title(new.title.as_deref().unwrap_or("Untitled site"))?;
    let site_type = one_of("type", new.site_type.as_deref().unwrap_or("basic"), &SITE_TYPES)?;
    let visibility = match new.visibility.as_deref() {
        Some(text) => site_visibility(text)?,
        None => SiteVisibility::Public,
    };
    let now = app.now();
    let mut tx = app.db.write().await?;
    let org = access::org(&mut tx, caller, org_id).await?;
    org.require_admin()?;
    let site = SiteRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        site_type,
        basename: free_basename(&mut tx, &title).await?,
        title,
        hostname: None,
        proxy: None,
        visibility,
        published: false,
        agents_context: "included".into(),
        default_level: DefaultLevel::Inherit,
        adaptive_content: false,
        adaptive_schema: None,
        adaptive_updated_at: None,
        customization: "{}".into(),
        visitor_key: quire_core::id::random_alphanumeric(48),
        visitor_fallback_url: None,
        visitor_logout_url: None,
        default_section_id: None,
        default_site_space_id: None,
        created_at: now,
        updated_at: now,
    };
    quire_store::audit::created("site", &site.id);
    sites::put_site(&mut tx, &site).await?;
    let permissions = SitePermissions::of(org.role);
    if new.empty_space {
        let space = quire_app::spaces::NewSpace {
            title: Some(site.title.clone()),
            ..quire_app::spaces::NewSpace::default()
        };
        let space = quire_app::spaces::create_in(&mut tx, caller, org_id, space, now).await?;
        structure::add_space_in(&mut tx, caller, &site, &space.id, None).await?;
    }
    for space_id in &new.spaces {
        structure::add_space_in(&mut tx, caller, &site, space_id, None).await?;
    }
    let site = sites::get_site(&mut tx, org_id, &site.id).await?;
    let info = info(&mut tx, site, permissions).await?;
    tx.commit().await?;
    Ok(info)
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<SiteInfo> {
    let mut conn = app.db.read().await?;
    let (site, access) = access::site(&mut conn, caller, org_id, site_id).await?;
    info(&mut conn, site, access.permissions).await
}

/// `{ "enabled": bool }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enabled {
    pub enabled: bool,
}

/// The input of a site update; absent fields stay as they are, `null`
/// removes the nullable ones.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SiteUpdate {
    pub title: Option<String>,
    pub visibility: Option<String>,
    pub basename: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub hostname: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub proxy: Option<Option<String>>,
    pub adaptive_content: Option<Enabled>,
    pub agents_context: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub default_level: Option<Option<DefaultLevel>>,
    pub default_site_space: Option<String>,
    pub default_site_section: Option<String>,
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    update: SiteUpdate,
) -> AppResult<SiteInfo> {
    let mut tx = app.db.write().await?;
    let (mut site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    let permissions = access.permissions;
    permissions.require_admin()?;
    if let Some(title) = &update.title {
        site.title = site_title(title)?;
    }
    if let Some(visibility) = &update.visibility {
        site.visibility = site_visibility(visibility)?;
    }
    if let Some(name) = &update.basename {
        site.basename = basename(name)?;
    }
    if let Some(hostname) = &update.hostname {
        site.hostname = hostname.as_deref().map(site_hostname).transpose()?;
    }
    if let Some(proxy) = &update.proxy {
        site.proxy = proxy.as_deref().map(proxy_origin).transpose()?;
    }
    if let Some(adaptive) = &update.adaptive_content {
        site.adaptive_content = adaptive.enabled;
    }
    if let Some(agents) = &update.agents_context {
        site.agents_context = one_of("agentsContext", agents, &["included", "excluded"])?;
    }
    if let Some(level) = update.default_level {
        site.default_level = level.unwrap_or(DefaultLevel::None);
    }
    let structure = sites::structure(&mut tx, &site.id).await?;
    if let Some(section_id) = &update.default_site_section {
        if !structure.sections.iter().any(|s| &s.id == section_id) {
            return Err(AppError::invalid(format!(
                "defaultSiteSection: site section {section_id:?} is not in this site"
            )));
        }
        site.default_section_id = Some(section_id.clone());
    }
    if let Some(site_space_id) = &update.default_site_space {
        structure::set_default_site_space(&mut tx, &mut site, &structure, site_space_id).await?;
    }
    site.updated_at = app.now();
    sites::put_site(&mut tx, &site).await?;
    let info = info(&mut tx, site, permissions).await?;
    tx.commit().await?;
    Ok(info)
}

/// Deletes the site with its structure and share links; nothing happens
/// when there is nothing to delete (or nothing the caller may see).
pub async fn delete(app: &App, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let (site, access) = match access::site(&mut tx, caller, org_id, site_id).await {
        Ok(found) => found,
        Err(err) if err.is_not_found() => return Ok(()),
        Err(err) => return Err(err),
    };
    access.permissions.require_admin()?;
    sites::delete_site(&mut tx, &site.id).await?;
    tx.commit().await?;
    Ok(())
}

/// A published site as the official `published` read shows it: the site,
/// its structure and its customization. An unpublished site is not found.
/// What `GET .../published` shows: the site, its structure, and the
/// customization of the site and of each site space.
#[derive(Debug, Clone)]
pub struct PublishedContent {
    pub site: SiteInfo,
    pub structure: structure::StructureInfo,
    pub customization: customization::Customization,
    /// Per site space: its id, its customization and whether it overrides
    /// anything.
    pub site_spaces: Vec<(String, customization::Customization, bool)>,
}

pub async fn published_content(app: &App, caller: &Caller, at: structure::SiteRef<'_>) -> AppResult<PublishedContent> {
    let mut conn = app.db.read().await?;
    let (site, access) = access::site_for_reading(&mut conn, caller, at.org_id, at.site_id, at.share_key).await?;
    if !site.published {
        return Err(AppError::not_found("published site", at.site_id));
    }
    let customization = customization::of(&site);
    let site_spaces = customization::of_site_spaces(&mut conn, &site).await?;
    let structure = structure::load(&mut conn, &access, site.clone()).await?;
    let site = info(&mut conn, site, access.permissions).await?;
    Ok(PublishedContent {
        site,
        structure,
        customization,
        site_spaces,
    })
}

/// Publishes or unpublishes the site.
pub async fn set_published(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    published: bool,
) -> AppResult<SiteInfo> {
    let mut tx = app.db.write().await?;
    let (mut site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    let permissions = access.permissions;
    permissions.require_admin()?;
    if site.published != published {
        site.published = published;
        site.updated_at = app.now();
        sites::put_site(&mut tx, &site).await?;
        let kind = if published {
            EventType::SitePublished
        } else {
            EventType::SiteUnpublished
        };
        let data = serde_json::json!({
            "siteId": site.id,
            "basename": site.basename,
            "by": { "object": "user", "id": caller.id() },
        });
        let origin = quire_store::webhooks::Origin::Organization(org_id);
        quire_store::webhooks::emit(&mut tx, origin, kind, data, app.now()).await?;
    }
    let info = info(&mut tx, site, permissions).await?;
    tx.commit().await?;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        assert!(basename("api-docs_2").is_ok());
        assert!(basename("API").is_err());
        assert!(basename("").is_err());
        assert!(site_hostname("docs.example.com").is_ok());
        assert!(site_hostname("example.com").is_err());
        assert!(site_hostname("Docs.example.com").is_err());
        assert!(proxy_origin("example.com/docs").is_ok());
        assert!(proxy_origin("www.example.com/developer/docs").is_ok());
        assert!(proxy_origin("example.com").is_err());
        assert!(proxy_origin("https://example.com/docs").is_err());
    }
}
