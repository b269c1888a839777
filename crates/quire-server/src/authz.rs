//! Authorization: what a caller may do, decided here and nowhere else.
//!
//! In an organization the member role decides: admins manage the organization,
//! its members and teams; every non-guest member reads members and teams and
//! may create teams' content later; guests see the organization itself only;
//! team owners manage their own team's members. A caller who is not a member
//! (or whose membership is disabled) is told the organization does not exist.

use quire_core::Role;
use quire_store::members;
use quire_store::{Conn, teams};
use serde::Serialize;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};

/// The caller's standing in one organization.
#[derive(Debug, Clone)]
pub struct OrgAccess {
    pub org_id: String,
    pub user_id: String,
    /// `None` for guests.
    pub role: Option<Role>,
}

impl OrgAccess {
    /// The caller's active membership, if any.
    pub async fn find(conn: &mut Conn, org_id: &str, caller: &Caller) -> ApiResult<Option<OrgAccess>> {
        Ok(match members::membership(conn, org_id, caller.id()).await? {
            Some(m) if !m.disabled => Some(OrgAccess {
                org_id: org_id.to_owned(),
                user_id: caller.id().to_owned(),
                role: m.role,
            }),
            _ => None,
        })
    }

    /// The caller's membership; 404 when not a member.
    pub async fn load(conn: &mut Conn, org_id: &str, caller: &Caller) -> ApiResult<OrgAccess> {
        Self::find(conn, org_id, caller)
            .await?
            .ok_or_else(|| ApiError::not_found("organization"))
    }

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

    pub fn require_admin(&self) -> ApiResult<()> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(ApiError::forbidden("only organization admins can do this"))
        }
    }

    /// Listing members and teams is for every member but guests.
    pub fn require_directory(&self) -> ApiResult<()> {
        if self.is_guest() {
            Err(ApiError::forbidden(
                "guests cannot list the organization's members or teams",
            ))
        } else {
            Ok(())
        }
    }

    /// Admins manage every team; owners manage their own.
    pub async fn require_team_manager(&self, conn: &mut Conn, team_id: &str) -> ApiResult<()> {
        if self.is_admin()
            || teams::member_role(conn, team_id, &self.user_id).await? == Some(quire_core::TeamRole::Owner)
        {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "only organization admins and team owners can manage this team",
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

    /// The `permissions` object of a team for this caller; `owner` tells
    /// whether the caller owns that team.
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

#[derive(Debug, Clone, Serialize)]
pub struct TeamPermissions {
    pub admin: bool,
    pub view: bool,
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
