//! Content access: the effective role on spaces and collections, and what
//! it allows on them, their change requests and comments.

use std::collections::HashMap;

use quire_core::{DefaultLevel, Role, Visibility};
use quire_store::change_requests::{self, ChangeRequestRow};
use quire_store::collections::{self, CollectionRow, Level};
use quire_store::spaces::{self, SpaceRow};
use quire_store::{Conn, StoreError, grants};
use serde::Serialize;

use super::{OrgAccess, find_org};
use crate::Caller;
use crate::error::{AppError, AppResult, NotFoundExt};

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
    let mut best = None;
    each_source(
        member_role,
        levels,
        grants.iter().map(|(resource, role)| (resource.as_str(), *role, None)),
        |role, _| best = best.max(Some(role)),
    );
    best
}

/// Where a role on a space or collection comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleSource {
    /// The person's role in the organization.
    Organization,
    /// What every member gets on this level of the tree (its default
    /// access).
    DefaultLevel { resource: String },
    /// A grant on this level, to the person or to one of their teams
    /// (id, title).
    Grant {
        resource: String,
        team: Option<(String, String)>,
    },
}

/// Every role a person holds on a resource and why, the rule of
/// [`effective_role`] spelled out ("why can this person edit?"); the
/// effective role is the highest.
pub fn role_sources<'a>(
    member_role: Option<Role>,
    levels: impl IntoIterator<Item = TreeLevel<'a>>,
    grants: &[grants::HeldGrant],
) -> Vec<(Role, RoleSource)> {
    let mut out = Vec::new();
    each_source(
        member_role,
        levels,
        grants.iter().map(|g| (g.resource_id.as_str(), g.role, g.team.as_ref())),
        |role, source| out.push((role, source)),
    );
    out
}

/// The one rule: a member holds their organization role, and on each level
/// from the resource up to the top collection its default access; anyone
/// holds each grant on one of those levels (their own or their teams').
fn each_source<'a, 'g>(
    member_role: Option<Role>,
    levels: impl IntoIterator<Item = TreeLevel<'a>>,
    grants: impl Iterator<Item = (&'g str, Role, Option<&'g (String, String)>)> + Clone,
    mut found: impl FnMut(Role, RoleSource),
) {
    if let Some(role) = member_role {
        found(role, RoleSource::Organization);
    }
    for level in levels {
        if member_role.is_some()
            && let Some(role) = level.default_level.role()
        {
            found(
                role,
                RoleSource::DefaultLevel {
                    resource: level.id.to_owned(),
                },
            );
        }
        for (resource, role, team) in grants.clone() {
            if resource == level.id {
                found(
                    role,
                    RoleSource::Grant {
                        resource: resource.to_owned(),
                        team: team.cloned(),
                    },
                );
            }
        }
    }
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
