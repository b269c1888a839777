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

use std::collections::HashMap;

use quire_core::{DefaultLevel, Role, TeamRole, Visibility};
use quire_store::change_requests::{self, ChangeRequestRow};
use quire_store::collections::{self, CollectionRow, Level};
use quire_store::sites::{self, SiteRow};
use quire_store::spaces::{self, SpaceRow};
use quire_store::{Conn, StoreError, grants, members, teams};
use serde::Serialize;

use crate::Caller;
use crate::error::{AppError, AppResult, NotFoundExt};

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

// ---------------------------------------------------------------------------
// Content: spaces and collections
// ---------------------------------------------------------------------------

/// One level of the content tree as seen by the role computation: the
/// resource itself first, then each enclosing collection.
#[derive(Debug, Clone, Copy)]
pub struct TreeLevel<'a> {
    pub id: &'a str,
    pub default_level: DefaultLevel,
}

/// The effective role; `None` means no access.
pub fn effective_role<'a>(
    member_role: Option<Role>,
    levels: impl IntoIterator<Item = TreeLevel<'a>>,
    grants: &[(String, Role)],
) -> Option<Role> {
    let mut best = member_role;
    for level in levels {
        if member_role.is_some() {
            best = best.max(level.default_level.role());
        }
        for (resource, role) in grants {
            if resource == level.id {
                best = best.max(Some(*role));
            }
        }
    }
    best
}

/// What the caller may do with one space or collection.
#[derive(Debug, Clone)]
pub struct ContentAccess {
    /// The caller's membership in the owning organization, if any.
    pub org: Option<OrgAccess>,
    pub role: Option<Role>,
}

impl ContentAccess {
    pub fn has(&self, at_least: Role) -> bool {
        self.role.is_some_and(|r| r.at_least(at_least))
    }

    /// Forbidden unless the caller holds `at_least`.
    pub fn require(&self, at_least: Role, action: &str) -> AppResult<()> {
        if self.has(at_least) {
            Ok(())
        } else {
            Err(AppError::forbidden(format!(
                "you need the {at_least} role here to {action}"
            )))
        }
    }

    /// The caller's membership, for operations only members may do.
    pub fn member(&self, action: &str) -> AppResult<&OrgAccess> {
        self.org
            .as_ref()
            .ok_or_else(|| AppError::forbidden(format!("only organization members can {action}")))
    }

    /// Loads the caller's access to a space.
    pub async fn to_space(conn: &mut Conn, caller: &Caller, space: &SpaceRow) -> AppResult<ContentAccess> {
        let chain = match &space.parent_id {
            Some(parent) => collections::chain(conn, parent).await?,
            None => Vec::new(),
        };
        load(
            conn,
            caller,
            &space.organization_id,
            &space.id,
            space.default_level,
            &chain,
        )
        .await
    }

    /// Loads the caller's access to a collection.
    pub async fn to_collection(
        conn: &mut Conn,
        caller: &Caller,
        collection: &CollectionRow,
    ) -> AppResult<ContentAccess> {
        let chain = match &collection.parent_id {
            Some(parent) => collections::chain(conn, parent).await?,
            None => Vec::new(),
        };
        load(
            conn,
            caller,
            &collection.organization_id,
            &collection.id,
            collection.default_level,
            &chain,
        )
        .await
    }
}

async fn load(
    conn: &mut Conn,
    caller: &Caller,
    org_id: &str,
    resource_id: &str,
    default_level: DefaultLevel,
    chain: &[Level],
) -> AppResult<ContentAccess> {
    let Some(org_access) = find_org(conn, caller, org_id).await? else {
        return Ok(ContentAccess { org: None, role: None });
    };
    let mut ids = Vec::with_capacity(chain.len() + 1);
    ids.push(resource_id.to_owned());
    ids.extend(chain.iter().map(|l| l.id.clone()));
    let held = grants::held_by_user(conn, org_id, caller.id(), Some(&ids)).await?;
    let levels = std::iter::once(TreeLevel {
        id: resource_id,
        default_level,
    })
    .chain(chain.iter().map(|l| TreeLevel {
        id: &l.id,
        default_level: l.default_level,
    }));
    let role = effective_role(org_access.role, levels, &held);
    Ok(ContentAccess {
        org: Some(org_access),
        role,
    })
}

/// True when anyone may read the space's published content without a role.
pub fn openly_viewable(space: &SpaceRow, share_key: Option<&str>) -> bool {
    match space.visibility {
        Visibility::Public | Visibility::Unlisted => true,
        Visibility::ShareLink => share_key.is_some_and(|key| key == space.share_key),
        _ => false,
    }
}

/// A live (not deleted) space the caller may at least see (with a role, or
/// because it is openly viewable with `share_key`); not found otherwise.
pub async fn space(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    share_key: Option<&str>,
) -> AppResult<(SpaceRow, ContentAccess)> {
    let missing = || AppError::not_found("space", space_id);
    let space = match spaces::get_any(conn, space_id).await {
        Ok(space) if space.deleted_at.is_none() => space,
        Ok(_) | Err(StoreError::NotFound) => return Err(missing()),
        Err(err) => return Err(err.into()),
    };
    let access = ContentAccess::to_space(conn, caller, &space).await?;
    if access.role.is_none() && !openly_viewable(&space, share_key) {
        return Err(missing());
    }
    Ok((space, access))
}

/// A live space on which the caller holds at least `role` (not found when
/// they cannot see it, forbidden when they can but lack the role).
pub async fn space_with_role(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    role: Role,
    action: &str,
) -> AppResult<(SpaceRow, ContentAccess)> {
    let (space, access) = space(conn, caller, space_id, None).await?;
    access.require(role, action)?;
    Ok((space, access))
}

/// A space in any state (deleted ones included) on which the caller holds a
/// role; `missing` is the error for every other case.
pub async fn space_in_any_state(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    missing: impl Fn() -> AppError,
) -> AppResult<(SpaceRow, ContentAccess)> {
    let space = match spaces::get_any(conn, space_id).await {
        Ok(space) => space,
        Err(StoreError::NotFound) => return Err(missing()),
        Err(err) => return Err(err.into()),
    };
    let access = ContentAccess::to_space(conn, caller, &space).await?;
    if access.role.is_none() {
        return Err(missing());
    }
    Ok((space, access))
}

/// A collection the caller holds a role on; not found otherwise.
pub async fn collection(
    conn: &mut Conn,
    caller: &Caller,
    collection_id: &str,
) -> AppResult<(CollectionRow, ContentAccess)> {
    let collection = collections::get(conn, collection_id)
        .await
        .or_not_found("collection", collection_id)?;
    let access = ContentAccess::to_collection(conn, caller, &collection).await?;
    if access.role.is_none() {
        return Err(AppError::not_found("collection", collection_id));
    }
    Ok((collection, access))
}

/// Where new content may go: the collection `parent_id` of the caller's
/// organization, on which the caller holds the create role, or the
/// organization's root (`None`) for members with the create role.
pub async fn destination(
    conn: &mut Conn,
    caller: &Caller,
    org: &OrgAccess,
    parent_id: Option<&str>,
) -> AppResult<Option<CollectionRow>> {
    let Some(id) = parent_id else {
        org.require_create_at_root()?;
        return Ok(None);
    };
    let unknown = || AppError::invalid(format!("parent collection {id:?} not found"));
    let collection = match collections::get(conn, id).await {
        Ok(c) if c.organization_id == org.org_id => c,
        Ok(_) | Err(StoreError::NotFound) => return Err(unknown()),
        Err(err) => return Err(err.into()),
    };
    let access = ContentAccess::to_collection(conn, caller, &collection).await?;
    if access.role.is_none() {
        return Err(unknown());
    }
    access.require(Role::Create, "add content to this collection")?;
    Ok(Some(collection))
}

/// A change request (by id or number) of a space on which the caller holds
/// at least `role`, with the caller's access to the space.
pub async fn change_request(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    role: Role,
    action: &str,
) -> AppResult<(SpaceRow, ContentAccess, ChangeRequestRow)> {
    let (space, access) = space_with_role(conn, caller, space_id, role, action).await?;
    let cr = change_request_in(conn, &space, change_request).await?;
    Ok((space, access, cr))
}

/// A change request (by id or number) of a space the caller was given
/// access to; not found otherwise.
pub async fn change_request_in(conn: &mut Conn, space: &SpaceRow, change_request: &str) -> AppResult<ChangeRequestRow> {
    change_requests::get(conn, &space.id, change_request)
        .await
        .or_not_found("change request", change_request)
}

/// Everything needed to compute one user's role on many spaces and
/// collections of an organization.
pub struct OrgRoles {
    member_role: Option<Role>,
    levels: HashMap<String, Level>,
    grants: Vec<(String, Role)>,
}

impl OrgRoles {
    pub async fn load(conn: &mut Conn, org_id: &str, member_role: Option<Role>, user_id: &str) -> AppResult<OrgRoles> {
        let levels = collections::levels_in_org(conn, org_id)
            .await?
            .into_iter()
            .map(|l| (l.id.clone(), l))
            .collect();
        let grants = grants::held_by_user(conn, org_id, user_id, None).await?;
        Ok(OrgRoles {
            member_role,
            levels,
            grants,
        })
    }

    fn chain_from(&self, parent: Option<&str>) -> Vec<TreeLevel<'_>> {
        let mut chain = Vec::new();
        let mut next = parent;
        while let Some(id) = next {
            let Some(level) = self.levels.get(id) else { break };
            if chain.len() > 64 {
                break;
            }
            chain.push(TreeLevel {
                id: &level.id,
                default_level: level.default_level,
            });
            next = level.parent_id.as_deref();
        }
        chain
    }

    pub fn for_space(&self, space: &SpaceRow) -> Option<Role> {
        let levels = std::iter::once(TreeLevel {
            id: &space.id,
            default_level: space.default_level,
        })
        .chain(self.chain_from(space.parent_id.as_deref()));
        effective_role(self.member_role, levels, &self.grants)
    }

    pub fn for_collection(&self, collection: &CollectionRow) -> Option<Role> {
        let levels = std::iter::once(TreeLevel {
            id: &collection.id,
            default_level: collection.default_level,
        })
        .chain(self.chain_from(collection.parent_id.as_deref()));
        effective_role(self.member_role, levels, &self.grants)
    }
}

/// The `permissions` object of a space.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpacePermissions {
    pub view: bool,
    pub access: bool,
    pub admin: bool,
    pub view_invite_links: bool,
    pub edit: bool,
    pub trigger_git_sync: bool,
    pub comment: bool,
    pub merge: bool,
    pub review: bool,
    pub install_integration: bool,
}

impl SpacePermissions {
    /// Derived from the role; `open` marks a space anyone may read.
    pub fn of(role: Option<Role>, open: bool) -> SpacePermissions {
        let has = |r: Role| role.is_some_and(|mine| mine.at_least(r));
        SpacePermissions {
            view: open || has(Role::Read),
            access: has(Role::Read),
            admin: has(Role::Admin),
            view_invite_links: has(Role::Admin),
            edit: has(Role::Edit),
            trigger_git_sync: has(Role::Edit),
            comment: has(Role::Comment),
            merge: has(Role::Review),
            review: has(Role::Review),
            install_integration: has(Role::Admin),
        }
    }
}

/// The `permissions` object of a comment or a reply, and the rules of
/// discussions: everyone who reads the space sees its discussions; the
/// comment role posts, replies, reacts and resolves; authors (still holding
/// the comment role) edit what they wrote; authors and space admins delete it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CommentPermissions {
    pub view: bool,
    pub edit: bool,
    pub reply: bool,
    pub delete: bool,
}

impl CommentPermissions {
    /// For a caller holding `role` on the space, on something `author` wrote.
    pub fn of(role: Option<Role>, caller_id: &str, author_id: &str) -> CommentPermissions {
        let has = |r: Role| role.is_some_and(|mine| mine.at_least(r));
        let own = caller_id == author_id;
        CommentPermissions {
            view: has(Role::Read),
            edit: own && has(Role::Comment),
            reply: has(Role::Comment),
            delete: (own && has(Role::Read)) || has(Role::Admin),
        }
    }

    pub fn require_edit(&self) -> AppResult<()> {
        if self.edit {
            Ok(())
        } else {
            Err(AppError::forbidden(
                "only its author can change what a comment or reply says",
            ))
        }
    }

    /// Replying, reacting and resolving: what the comment role allows.
    pub fn require_reply(&self, action: &str) -> AppResult<()> {
        if self.reply {
            Ok(())
        } else {
            Err(AppError::forbidden(format!(
                "you need the {} role here to {action}",
                Role::Comment
            )))
        }
    }

    pub fn require_delete(&self) -> AppResult<()> {
        if self.delete {
            Ok(())
        } else {
            Err(AppError::forbidden(
                "only its author or an admin of the space can delete a comment or reply",
            ))
        }
    }
}

/// The `permissions` object of a collection.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionPermissions {
    pub view: bool,
    pub admin: bool,
    pub view_invite_links: bool,
    pub create: bool,
}

impl CollectionPermissions {
    pub fn of(role: Option<Role>) -> CollectionPermissions {
        let has = |r: Role| role.is_some_and(|mine| mine.at_least(r));
        CollectionPermissions {
            view: has(Role::Read),
            admin: has(Role::Admin),
            view_invite_links: has(Role::Admin),
            create: has(Role::Create),
        }
    }
}

// ---------------------------------------------------------------------------
// Sites
// ---------------------------------------------------------------------------

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

#[cfg(test)]
mod tests {
    use super::*;

    fn level(id: &str, default_level: DefaultLevel) -> TreeLevel<'_> {
        TreeLevel { id, default_level }
    }

    #[test]
    fn highest_of_member_role_defaults_and_grants() {
        let chain = [
            level("space", DefaultLevel::Inherit),
            level("c1", DefaultLevel::Role(Role::Comment)),
        ];
        assert_eq!(effective_role(Some(Role::Read), chain, &[]), Some(Role::Comment));
        let grants = vec![("c1".to_owned(), Role::Admin)];
        assert_eq!(effective_role(Some(Role::Read), chain, &grants), Some(Role::Admin));
        assert_eq!(effective_role(Some(Role::Create), chain, &[]), Some(Role::Create));
    }

    #[test]
    fn defaults_never_open_content_to_guests() {
        let chain = [level("space", DefaultLevel::Role(Role::Edit))];
        assert_eq!(effective_role(None, chain, &[]), None);
        let grants = vec![("space".to_owned(), Role::Read)];
        assert_eq!(effective_role(None, chain, &grants), Some(Role::Read));
    }

    #[test]
    fn comment_permissions_follow_role_and_authorship() {
        let of = |role, author| CommentPermissions::of(role, "me", author);
        let mine = of(Some(Role::Comment), "me");
        assert!(mine.view && mine.edit && mine.reply && mine.delete);
        let theirs = of(Some(Role::Edit), "them");
        assert!(theirs.view && !theirs.edit && theirs.reply && !theirs.delete);
        let admin = of(Some(Role::Admin), "them");
        assert!(!admin.edit && admin.delete);
        // A reader who once commented may still delete, no longer edit.
        let reader = of(Some(Role::Read), "me");
        assert!(reader.view && !reader.edit && !reader.reply && reader.delete);
        assert!(!of(None, "me").view);
    }

    #[test]
    fn grants_elsewhere_do_not_count() {
        let chain = [level("space", DefaultLevel::None)];
        let grants = vec![("other".to_owned(), Role::Admin)];
        assert_eq!(effective_role(None, chain, &grants), None);
    }
}
