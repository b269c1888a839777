//! The JSON shapes every area shows, as the official API defines them
//! (users, organizations, members, teams, spaces, collections,
//! permissions): pure functions from what the application returns to
//! serializable views. Each area's own shapes live with its routes.

pub mod git;

use quire_app::access::{CollectionPermissions, OrgPermissions, SpacePermissions, TeamPermissions};
use quire_app::accounts::{Viewer, Visibility as UserVisibility};
use quire_app::collections::CollectionInfo;
use quire_app::members::MemberInfo;
use quire_app::orgs::OrgInfo;
use quire_app::spaces::SpaceInfo;
use quire_app::teams::TeamInfo;
use quire_core::{DefaultLevel, EditMode, Role, TeamRole, Timestamp, Visibility};
use quire_store::invites::InviteLinkRow;
use quire_store::users::UserRow;
use serde::Serialize;

use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct LocationUrls {
    pub location: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub object: &'static str,
    pub id: String,
    pub display_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(rename = "photoURL", skip_serializing_if = "Option::is_none")]
    pub photo_url: Option<String>,
    pub urls: LocationUrls,
}

/// A user as `visibility` (decided by `quire_app::accounts`) lets the
/// caller see them: the email address only with `Full`, the
/// public profile otherwise. The one place a user's email enters a view.
pub fn user_as(state: &AppState, row: &UserRow, visibility: UserVisibility) -> User {
    User {
        object: "user",
        id: row.id.clone(),
        display_name: row.display_name.clone(),
        email: match visibility {
            UserVisibility::Full => Some(row.email.clone()),
            UserVisibility::Public => None,
        },
        photo_url: row.photo_url.clone(),
        urls: LocationUrls {
            location: state.api_url(&format!("/users/{}", row.id)),
        },
    }
}

/// A user named in a response, as the response's `viewer` may see them.
pub fn user(state: &AppState, viewer: &Viewer, row: &UserRow) -> User {
    user_as(state, row, viewer.sees(&row.id))
}

#[derive(Debug, Serialize)]
pub struct OrgUrls {
    pub location: String,
    pub app: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Trial {
    pub status: &'static str,
    pub count: u32,
}

#[derive(Debug, Serialize)]
pub struct TypeTag {
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Serialize)]
pub struct SitePointer {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub site: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    pub object: &'static str,
    pub id: String,
    pub title: String,
    pub created_at: Timestamp,
    pub email_domains: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub default_role: Option<Role>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_content: Option<SitePointer>,
    pub sso: bool,
    pub ai: bool,
    pub invite_links: bool,
    pub plan: &'static str,
    pub merge_rules: TypeTag,
    pub urls: OrgUrls,
    pub trial: Trial,
    pub permissions: OrgPermissions,
}

/// A self-hosted Quire has every feature; it reports the top plan so clients
/// do not hide features behind an upgrade prompt.
const PLAN: &str = "enterprise_2024";

pub fn organization(state: &AppState, info: OrgInfo) -> Organization {
    let OrgInfo { org: row, permissions } = info;
    Organization {
        object: "organization",
        urls: OrgUrls {
            location: state.api_url(&format!("/orgs/{}", row.id)),
            app: state.app_url(&format!("/o/{}/", row.id)),
            logo: row.logo_url,
        },
        id: row.id,
        title: row.title,
        created_at: row.created_at,
        email_domains: row.email_domains,
        hostname: row.hostname,
        kind: "business",
        default_role: row.default_role,
        default_content: row.default_content_site.map(|site| SitePointer { kind: "site", site }),
        sso: row.sso,
        ai: row.ai,
        invite_links: row.invite_links,
        plan: PLAN,
        merge_rules: TypeTag { kind: "none" },
        trial: Trial {
            status: "notapplicable",
            count: 0,
        },
        permissions,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub object: &'static str,
    pub id: String,
    pub role: Option<Role>,
    pub user: User,
    pub disabled: bool,
    pub joined_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen_at: Option<Timestamp>,
    pub sso: bool,
    pub spaces: i64,
    pub teams: i64,
    pub sites: i64,
}

/// `spaces` is the number of spaces the member can reach.
pub fn member(state: &AppState, info: &MemberInfo) -> Member {
    let (row, spaces) = (&info.member, info.spaces);
    Member {
        object: "member",
        id: row.user.id.clone(),
        role: row.role,
        user: user_as(state, &row.user, info.visibility),
        disabled: row.disabled,
        joined_at: row.joined_at,
        last_seen_at: row.last_seen_at,
        sso: row.sso,
        spaces,
        teams: row.teams,
        sites: 0,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    pub object: &'static str,
    pub id: String,
    pub title: String,
    pub members: i64,
    pub spaces: i64,
    pub created_at: Timestamp,
    pub permissions: TeamPermissions,
}

pub fn team(info: TeamInfo) -> Team {
    let TeamInfo { team: row, permissions } = info;
    Team {
        object: "team",
        id: row.id,
        title: row.title,
        members: row.members,
        spaces: 0,
        created_at: row.created_at,
        permissions,
    }
}

#[derive(Debug, Serialize)]
pub struct TeamMembership {
    pub role: TeamRole,
}

#[derive(Debug, Serialize)]
pub struct ViewPermission {
    pub view: bool,
}

/// An item of a team's member list.
#[derive(Debug, Serialize)]
pub struct TeamMemberItem {
    pub organization: Member,
    pub team: TeamMembership,
    pub permissions: ViewPermission,
}

/// An item of a member's team list.
#[derive(Debug, Serialize)]
pub struct MemberTeamItem {
    pub team: Team,
    pub member: TeamMembership,
}

#[derive(Debug, Serialize)]
pub struct InviteLink {
    pub object: &'static str,
    pub id: String,
    pub role: Option<Role>,
    pub redundant: bool,
}

pub fn invite_link(row: InviteLinkRow) -> InviteLink {
    InviteLink {
        object: "invite",
        id: row.id,
        role: row.role,
        redundant: false,
    }
}

/// An invitation waiting for its person's answer (Quire's addition): the
/// organization that asks, the role it gives, who sent it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub object: &'static str,
    pub id: String,
    pub organization: InvitingOrganization,
    pub role: Option<Role>,
    pub invited_by: Option<User>,
    pub created_at: Timestamp,
}

#[derive(Debug, Serialize)]
pub struct InvitingOrganization {
    pub id: String,
    pub title: String,
}

pub fn invitation(state: &AppState, invitation: &quire_app::invites::Invitation) -> Invitation {
    let row = &invitation.row;
    Invitation {
        object: "invitation",
        id: row.id.clone(),
        organization: InvitingOrganization {
            id: row.organization_id.clone(),
            title: row.organization_title.clone(),
        },
        role: row.role,
        invited_by: invitation
            .invited_by
            .as_ref()
            .map(|sender| user_as(state, sender, UserVisibility::Public)),
        created_at: row.created_at,
    }
}

#[derive(Debug, Serialize)]
pub struct SpaceUrls {
    pub location: String,
    pub app: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Space {
    pub object: &'static str,
    pub id: String,
    pub title: String,
    pub emoji: String,
    pub visibility: Visibility,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<Timestamp>,
    pub edit_mode: EditMode,
    pub merge_rules: TypeTag,
    pub urls: SpaceUrls,
    pub organization: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub revision: String,
    pub default_level: DefaultLevel,
    pub comments: i64,
    pub change_requests: i64,
    pub change_requests_open: i64,
    pub change_requests_draft: i64,
    pub permissions: SpacePermissions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_sync: Option<git::GitSyncState>,
}

pub fn space(state: &AppState, info: SpaceInfo) -> Space {
    let SpaceInfo {
        space: row,
        permissions,
        change_requests: counts,
        comments,
        git_sync,
    } = info;
    Space {
        object: "space",
        urls: SpaceUrls {
            location: state.api_url(&format!("/spaces/{}", row.id)),
            app: state.app_url(&format!("/s/{}/", row.id)),
        },
        id: row.id,
        title: row.title,
        emoji: row.emoji,
        visibility: row.visibility,
        created_at: row.created_at,
        updated_at: row.updated_at,
        deleted_at: row.deleted_at,
        edit_mode: row.edit_mode,
        merge_rules: TypeTag { kind: "inherit" },
        organization: row.organization_id,
        parent: row.parent_id,
        revision: row.revision_id,
        default_level: row.default_level,
        comments,
        change_requests: counts.0,
        change_requests_open: counts.1,
        change_requests_draft: counts.2,
        permissions,
        git_sync: git_sync.map(git::git_sync),
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Collection {
    pub object: &'static str,
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub organization: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub default_level: DefaultLevel,
    pub urls: SpaceUrls,
    pub permissions: CollectionPermissions,
}

pub fn collection(state: &AppState, info: CollectionInfo) -> Collection {
    let CollectionInfo {
        collection: row,
        permissions,
    } = info;
    Collection {
        object: "collection",
        urls: SpaceUrls {
            location: state.api_url(&format!("/collections/{}", row.id)),
            app: state.app_url(&format!("/c/{}/", row.id)),
        },
        id: row.id,
        title: row.title,
        description: row.description,
        organization: row.organization_id,
        parent: row.parent_id,
        default_level: row.default_level,
        permissions,
    }
}

/// `{permission, user}`: a user's grant on a space or collection.
#[derive(Debug, Serialize)]
pub struct UserPermission {
    pub permission: Role,
    pub user: User,
}

/// `{permission, team}`: a team's grant on a space or collection.
#[derive(Debug, Serialize)]
pub struct TeamPermission {
    pub permission: Role,
    pub team: Team,
}

/// `{permission, space}`: a member's role on a space.
#[derive(Debug, Serialize)]
pub struct SpacePermission {
    pub permission: Role,
    pub space: Space,
}
