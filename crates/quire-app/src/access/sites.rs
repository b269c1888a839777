//! Site access: who sees and manages an organization's sites.

use quire_core::Role;
use quire_store::Conn;
use quire_store::sites::{self, SiteRow};
use serde::Serialize;

use super::{OrgAccess, find_org, org};
use crate::Caller;
use crate::error::{AppError, AppResult, NotFoundExt};

/// A site of the organization and the caller's standing there. Sites are
/// managed by the organization's members: every member with a role sees
/// them, creators manage their structure, admins their settings and
/// audience; guests and outsiders are told the site does not exist.
pub async fn site(conn: &mut Conn, caller: &Caller, org_id: &str, site_id: &str) -> AppResult<(SiteRow, SiteAccess)> {
    let missing = || AppError::not_found("site", site_id);
    let org = find_org(conn, caller, org_id).await?.ok_or_else(missing)?;
    if org.is_guest() {
        // A guest sees the organization, so refusing is no news to them;
        // "not found" would make a refused delete look done.
        return Err(AppError::forbidden("guests cannot see the sites of an organization"));
    }
    let site = sites::get_site(conn, org_id, site_id)
        .await
        .or_not_found("site", site_id)?;
    let permissions = SitePermissions::of(org.role);
    Ok((site, SiteAccess { org, permissions }))
}

/// A site for reading: as [`site`] for members, and for anyone else who
/// brings the key of an active share link of the published site (then with
/// only `view` among the permissions).
pub async fn site_for_reading(
    conn: &mut Conn,
    caller: &Caller,
    org_id: &str,
    site_id: &str,
    share_key: Option<&str>,
) -> AppResult<(SiteRow, SiteAccess)> {
    let refused = match site(conn, caller, org_id, site_id).await {
        Ok(found) => return Ok(found),
        Err(err @ (AppError::NotFound(_) | AppError::Forbidden(_))) => err,
        Err(err) => return Err(err),
    };
    let Some(key) = share_key else { return Err(refused) };
    let shared = match sites::get_site(conn, org_id, site_id).await {
        Ok(site) if site.published => site,
        _ => return Err(refused),
    };
    if sites::active_share_link(conn, &shared.id, key).await?.is_none() {
        return Err(refused);
    }
    let permissions = SitePermissions {
        view: true,
        ..SitePermissions::of(None)
    };
    let org = OrgAccess {
        org_id: org_id.to_owned(),
        user_id: caller.id().to_owned(),
        role: None,
    };
    Ok((shared, SiteAccess { org, permissions }))
}

/// The caller's standing on a site: their organization membership and
/// what it lets them do with the site.
#[derive(Debug, Clone)]
pub struct SiteAccess {
    pub org: OrgAccess,
    pub permissions: SitePermissions,
}

/// The organization, for a caller who may see its sites.
pub async fn sites_of(conn: &mut Conn, caller: &Caller, org_id: &str) -> AppResult<OrgAccess> {
    let org = org(conn, caller, org_id).await?;
    if org.is_guest() {
        return Err(AppError::forbidden("guests cannot see the sites of an organization"));
    }
    Ok(org)
}

/// The `permissions` object of a site.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SitePermissions {
    pub view: bool,
    pub access: bool,
    pub edit: bool,
    pub create: bool,
    pub admin: bool,
    pub install_integration: bool,
    pub view_adaptive_schema: bool,
    pub edit_adaptive_schema: bool,
}

impl SitePermissions {
    pub fn of(role: Option<Role>) -> SitePermissions {
        let has = |r: Role| role.is_some_and(|mine| mine.at_least(r));
        SitePermissions {
            view: has(Role::Read),
            access: has(Role::Read),
            edit: has(Role::Edit),
            create: has(Role::Create),
            admin: has(Role::Admin),
            install_integration: has(Role::Admin),
            view_adaptive_schema: has(Role::Read),
            edit_adaptive_schema: has(Role::Admin),
        }
    }

    /// Changing what the site is made of (sections, groups, site spaces).
    pub fn require_structure(&self) -> AppResult<()> {
        if self.create {
            Ok(())
        } else {
            Err(AppError::forbidden(
                "changing a site's structure needs the create role in its organization",
            ))
        }
    }

    /// Changing the site's settings, audience or publication.
    pub fn require_admin(&self) -> AppResult<()> {
        if self.admin {
            Ok(())
        } else {
            Err(AppError::forbidden(
                "changing a site's settings needs the admin role in its organization",
            ))
        }
    }
}
