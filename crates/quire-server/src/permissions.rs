//! Content permissions: the effective role of a user on a space or a
//! collection, computed by [`effective_role`] and nowhere else.
//!
//! The effective role is the highest of:
//! - the user's organization role (guests have none);
//! - the `defaultLevel` of the resource and of every enclosing collection
//!   (for non-guest members only: defaults never open content to guests);
//! - grants to the user, or to a team the user is in, on the resource or on
//!   any enclosing collection.
//!
//! Single reads load just the chain of collections above the resource and
//! the user's grants on that chain (a handful of indexed queries, whatever
//! the size of the organization); lists load the organization's collections
//! and the user's grants once and evaluate every row in memory.

use std::collections::HashMap;

use quire_core::{DefaultLevel, Role, Visibility};
use quire_store::collections::{self, CollectionRow, Level};
use quire_store::spaces::SpaceRow;
use quire_store::{Conn, grants};
use serde::Serialize;

use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};

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

    /// 403 unless the caller holds `at_least`.
    pub fn require(&self, at_least: Role, action: &str) -> ApiResult<()> {
        if self.has(at_least) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "you need the {at_least} role here to {action}"
            )))
        }
    }

    /// Loads the caller's access to a space.
    pub async fn to_space(conn: &mut Conn, caller: &Caller, space: &SpaceRow) -> ApiResult<ContentAccess> {
        let chain = match &space.parent_id {
            Some(parent) => collections::chain(conn, parent).await?,
            None => Vec::new(),
        };
        Self::load(
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
    ) -> ApiResult<ContentAccess> {
        let chain = match &collection.parent_id {
            Some(parent) => collections::chain(conn, parent).await?,
            None => Vec::new(),
        };
        Self::load(
            conn,
            caller,
            &collection.organization_id,
            &collection.id,
            collection.default_level,
            &chain,
        )
        .await
    }

    async fn load(
        conn: &mut Conn,
        caller: &Caller,
        org_id: &str,
        resource_id: &str,
        default_level: DefaultLevel,
        chain: &[Level],
    ) -> ApiResult<ContentAccess> {
        let org = OrgAccess::find(conn, org_id, caller).await?;
        let Some(org_access) = org else {
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
}

/// True when anyone may read the space's published content without a role.
pub fn openly_viewable(space: &SpaceRow, share_key: Option<&str>) -> bool {
    match space.visibility {
        Visibility::Public | Visibility::Unlisted => true,
        Visibility::ShareLink => share_key.is_some_and(|key| key == space.share_key),
        _ => false,
    }
}

/// Everything needed to compute one user's role on many spaces and
/// collections of an organization.
pub struct OrgRoles {
    member_role: Option<Role>,
    levels: HashMap<String, Level>,
    grants: Vec<(String, Role)>,
}

impl OrgRoles {
    pub async fn load(conn: &mut Conn, org_id: &str, member_role: Option<Role>, user_id: &str) -> ApiResult<OrgRoles> {
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
    fn grants_elsewhere_do_not_count() {
        let chain = [level("space", DefaultLevel::None)];
        let grants = vec![("other".to_owned(), Role::Admin)];
        assert_eq!(effective_role(None, chain, &grants), None);
    }
}
