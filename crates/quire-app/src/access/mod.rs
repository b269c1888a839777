//! Access: what a caller may do with an organization, a collection, a space
//! or a change request. Decided here and nowhere else; every area asks this
//! module before it reads or writes.
//!
//! Organizations: the member role decides. Admins manage the organization,
//! its members and teams; every non-guest member lists members and teams;
//! guests (members without a role) see the organization itself only; team
//! owners manage their own team. A caller who is not a member (or whose
//! membership is disabled) is told the organization does not exist.
//!
//! Content: the effective role on a space or collection, computed by
//! [`effective_role`], is the highest of
//! - the caller's organization role (guests have none);
//! - the `defaultLevel` of the resource and of every enclosing collection
//!   (for non-guest members only: defaults never open content to guests);
//! - grants to the caller, or to a team the caller is in, on the resource or
//!   any enclosing collection.
//!
//! Single reads load just the chain of collections above the resource and the
//! caller's grants on that chain (a handful of indexed queries, whatever the
//! size of the organization); lists load the organization's collections and
//! the caller's grants once ([`OrgRoles`]) and evaluate every row in memory.
//! A space or collection the caller may not see is reported as not found.

use quire_core::{Role, TeamRole};
use quire_store::{Conn, members, teams};
use serde::Serialize;

use crate::Caller;
use crate::error::{AppError, AppResult};

mod content;
mod sites;

pub use content::*;
pub use sites::*;

// ---------------------------------------------------------------------------
// Organizations
// ---------------------------------------------------------------------------

/// The caller's standing in one organization.
#[derive(Debug, Clone)]
pub struct OrgAccess {
    pub org_id: String,
    pub user_id: String,
    /// `None` for guests.
    pub role: Option<Role>,
}

/// The caller's active membership in `org_id`, if any.
pub async fn find_org(conn: &mut Conn, caller: &Caller, org_id: &str) -> AppResult<Option<OrgAccess>> {
    Ok(match members::membership(conn, org_id, caller.id()).await? {
        Some(m) if !m.disabled && m.sso && !caller.went_through_sso(org_id) => {
            return Err(AppError::forbidden(
                "this organization requires signing in through its single sign-on",
            ));
        }
        Some(m) if !m.disabled => Some(OrgAccess {
            org_id: org_id.to_owned(),
            user_id: caller.id().to_owned(),
            role: m.role,
        }),
        _ => None,
    })
}

/// The caller's membership in `org_id`; not found when not a member.
pub async fn org(conn: &mut Conn, caller: &Caller, org_id: &str) -> AppResult<OrgAccess> {
    find_org(conn, caller, org_id)
        .await?
        .ok_or_else(|| AppError::not_found("organization", org_id))
}

/// Access to an organization's shared resources (OpenAPI specs,
/// translations): members read them, guests do not see the organization,
/// the create role changes them (`write` requires it; `what` names them in
/// the refusal). Whether the caller may change them.
pub async fn org_resources(conn: &mut Conn, caller: &Caller, org_id: &str, write: bool, what: &str) -> AppResult<bool> {
    let org = org(conn, caller, org_id).await?;
    if org.is_guest() {
        return Err(AppError::not_found("organization", org_id));
    }
    let edit = org.has_role(Role::Create);
    if write && !edit {
        return Err(AppError::forbidden(format!(
            "you need the create role in this organization to {what}"
        )));
    }
    Ok(edit)
}

/// The organization content is transferred to: one the caller administers
/// (an unknown one is invalid input, not a missing resource).
pub async fn transfer_target(conn: &mut Conn, caller: &Caller, org_id: &str) -> AppResult<OrgAccess> {
    let target = find_org(conn, caller, org_id)
        .await?
        .ok_or_else(|| AppError::invalid(format!("organization {org_id:?} not found")))?;
    target.require_admin()?;
    Ok(target)
}

impl OrgAccess {
    pub fn has_role(&self, at_least: Role) -> bool {
        self.role.is_some_and(|r| r.at_least(at_least))
    }

    pub fn is_admin(&self) -> bool {
        self.has_role(Role::Admin)
    }

    /// Guests are members without a role: they see only what is shared with them.
    pub fn is_guest(&self) -> bool {
        self.role.is_none()
    }

    pub fn require_admin(&self) -> AppResult<()> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(AppError::forbidden("only organization admins can do this"))
        }
    }

    /// Listing members and teams is for every member but guests.
    pub fn require_directory(&self) -> AppResult<()> {
        if self.is_guest() {
            Err(AppError::forbidden(
                "guests cannot list the organization's members or teams",
            ))
        } else {
            Ok(())
        }
    }

    /// Members see each other; guests see only themselves.
    pub fn require_can_see_member(&self, user_id: &str) -> AppResult<()> {
        if self.user_id == user_id {
            Ok(())
        } else {
            self.require_directory()
        }
    }

    /// Admins act on every member; anyone acts on themself.
    pub fn require_self_or_admin(&self, user_id: &str) -> AppResult<()> {
        if self.user_id == user_id {
            Ok(())
        } else {
            self.require_admin()
        }
    }

    /// Whether the caller owns the team.
    pub async fn owns_team(&self, conn: &mut Conn, team_id: &str) -> AppResult<bool> {
        Ok(teams::member_role(conn, team_id, &self.user_id).await? == Some(TeamRole::Owner))
    }

    /// Admins manage every team; owners manage their own.
    pub async fn require_team_manager(&self, conn: &mut Conn, team_id: &str) -> AppResult<()> {
        if self.is_admin() || self.owns_team(conn, team_id).await? {
            Ok(())
        } else {
            Err(AppError::forbidden(
                "only organization admins and team owners can manage this team",
            ))
        }
    }

    /// May the caller add spaces and collections at the organization's root?
    pub fn require_create_at_root(&self) -> AppResult<()> {
        if self.has_role(Role::Create) {
            Ok(())
        } else {
            Err(AppError::forbidden(
                "you need the create role in the organization to add content at its root",
            ))
        }
    }

    /// The `permissions` object of an organization for this caller.
    pub fn org_permissions(&self, owns_team: bool) -> OrgPermissions {
        let admin = self.is_admin();
        let member = !self.is_guest();
        OrgPermissions {
            view: true,
            access: true,
            admin,
            own_team: owns_team,
            create_content: self.has_role(Role::Create),
            create_open_api_spec: self.has_role(Role::Create),
            view_billing: admin,
            list_members: member,
            list_teams: member,
            list_integrations: member,
            list_installations: member,
            install_integration: admin,
        }
    }

    /// The `permissions` object of a team; `owner` tells whether the caller
    /// owns that team.
    pub fn team_permissions(&self, owner: bool) -> TeamPermissions {
        TeamPermissions {
            admin: self.is_admin() || owner,
            view: !self.is_guest(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrgPermissions {
    pub view: bool,
    pub access: bool,
    pub admin: bool,
    pub own_team: bool,
    pub create_content: bool,
    #[serde(rename = "createOpenAPISpec")]
    pub create_open_api_spec: bool,
    pub view_billing: bool,
    pub list_members: bool,
    pub list_teams: bool,
    pub list_integrations: bool,
    pub list_installations: bool,
    pub install_integration: bool,
}

impl OrgPermissions {
    /// Someone who may see that the organization exists (and join it) but
    /// is not a member.
    pub fn outsider() -> OrgPermissions {
        OrgPermissions {
            view: true,
            access: false,
            admin: false,
            own_team: false,
            create_content: false,
            create_open_api_spec: false,
            view_billing: false,
            list_members: false,
            list_teams: false,
            list_integrations: false,
            list_installations: false,
            install_integration: false,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TeamPermissions {
    pub admin: bool,
    pub view: bool,
}
