//! Share links of a site: named secret keys that open a `share-link` site
//! to whoever has the URL. Revoking (`active: false`) or deleting a link
//! stops its key at once: every request checks the key against the table.

use quire_store::Page;
use quire_store::page::PageRequest;
use quire_store::sites::{self, ShareLinkRow, SiteRow};
use serde::Deserialize;

use quire_app::access;
use quire_app::error::{AppError, AppResult, NotFoundExt};
use quire_app::{App, Caller};

/// Length of a share key (letters and digits).
const KEY_LENGTH: usize = 32;

fn name(value: &str) -> AppResult<String> {
    if value.chars().count() > 50 {
        return Err(AppError::invalid("name must be at most 50 characters long"));
    }
    Ok(value.trim().to_owned())
}

pub async fn list(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    request: &PageRequest,
) -> AppResult<(SiteRow, Page<ShareLinkRow>)> {
    let mut conn = app.db.read().await?;
    let (site, access) = access::site(&mut conn, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    let page = sites::list_share_links(&mut conn, &site.id, request).await?;
    Ok((site, page))
}

/// The input of share link creation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewShareLink {
    pub name: String,
}

pub async fn create(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    new: NewShareLink,
) -> AppResult<(SiteRow, ShareLinkRow)> {
    let name = name(&new.name)?;
    let mut tx = app.db.write().await?;
    let (site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    let link = ShareLinkRow {
        id: quire_core::id::new_id(),
        site_id: site.id.clone(),
        name,
        share_key: quire_core::id::random_alphanumeric(KEY_LENGTH),
        active: true,
        created_at: app.now(),
    };
    sites::put_share_link(&mut tx, &link).await?;
    tx.commit().await?;
    Ok((site, link))
}

/// The input of a share link update: at least one field.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareLinkUpdate {
    pub name: Option<String>,
    pub active: Option<bool>,
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    link_id: &str,
    update: ShareLinkUpdate,
) -> AppResult<(SiteRow, ShareLinkRow)> {
    if update.name.is_none() && update.active.is_none() {
        return Err(AppError::invalid("give a name, active, or both"));
    }
    let mut tx = app.db.write().await?;
    let (site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    let mut link = sites::get_share_link(&mut tx, &site.id, link_id)
        .await
        .or_not_found("share link", link_id)?;
    if let Some(n) = &update.name {
        link.name = name(n)?;
    }
    if let Some(active) = update.active {
        link.active = active;
    }
    sites::put_share_link(&mut tx, &link).await?;
    tx.commit().await?;
    Ok((site, link))
}

/// Deletes a share link, if the site has one with that id.
pub async fn delete(app: &App, caller: &Caller, org_id: &str, site_id: &str, link_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let (site, access) = access::site(&mut tx, caller, org_id, site_id).await?;
    access.permissions.require_admin()?;
    sites::delete_share_link(&mut tx, &site.id, link_id).await?;
    tx.commit().await?;
    Ok(())
}
