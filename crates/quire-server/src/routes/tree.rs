//! Placing spaces and collections among their siblings, shared by the move,
//! create and transfer operations of both.

use quire_core::Role;
use quire_store::Conn;
use quire_store::collections::{self, CollectionRow};
use quire_store::tree::{self, NodeKind, Sibling};
use serde::Deserialize;

use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};
use crate::extract::nullable;
use crate::permissions::ContentAccess;

/// A reference to a sibling in a `position`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Pointer {
    Space { space: String },
    Collection { collection: String },
}

impl Pointer {
    fn sibling(&self) -> Sibling {
        match self {
            Pointer::Space { space } => Sibling {
                kind: NodeKind::Space,
                id: space.clone(),
            },
            Pointer::Collection { collection } => Sibling {
                kind: NodeKind::Collection,
                id: collection.clone(),
            },
        }
    }
}

/// Where to put an item among its new siblings: before or after one of them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub before: Option<Pointer>,
    pub after: Option<Pointer>,
}

/// The body of the move operations of spaces and collections: a new parent
/// (`null` for the organization root), a place among the siblings, or both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    #[serde(default, deserialize_with = "nullable")]
    pub parent: Option<Option<String>>,
    pub position: Option<Position>,
}

impl MoveBody {
    pub fn check(&self) -> ApiResult<()> {
        if self.parent.is_none() && self.position.is_none() {
            return Err(ApiError::bad_request("give a new parent, a position, or both"));
        }
        Ok(())
    }
}

/// Puts `node` under `parent` at `position` (last when `None`) and renumbers
/// the siblings. The node's own parent column must already say `parent`.
pub async fn place(
    conn: &mut Conn,
    org_id: &str,
    parent: Option<&str>,
    node: Sibling,
    position: Option<&Position>,
) -> ApiResult<()> {
    let mut siblings: Vec<Sibling> = tree::siblings(conn, org_id, parent)
        .await?
        .into_iter()
        .filter(|s| *s != node)
        .collect();
    let index = match position {
        None
        | Some(Position {
            before: None,
            after: None,
        }) => siblings.len(),
        Some(Position {
            before: Some(pointer), ..
        }) => find(&siblings, pointer)?,
        Some(Position {
            after: Some(pointer), ..
        }) => find(&siblings, pointer)? + 1,
    };
    siblings.insert(index, node);
    tree::renumber(conn, &siblings).await?;
    Ok(())
}

fn find(siblings: &[Sibling], pointer: &Pointer) -> ApiResult<usize> {
    let wanted = pointer.sibling();
    siblings.iter().position(|s| *s == wanted).ok_or_else(|| {
        ApiError::bad_request(format!(
            "position refers to {} {:?}, which is not among the siblings at the destination",
            match wanted.kind {
                NodeKind::Space => "space",
                NodeKind::Collection => "collection",
            },
            wanted.id
        ))
    })
}

/// Loads the collection `parent_id` of organization `org_id` as a
/// destination and checks the caller may create content in it (or at the
/// organization's root when `None`).
pub async fn destination(
    conn: &mut Conn,
    caller: &Caller,
    org: &OrgAccess,
    parent_id: Option<&str>,
) -> ApiResult<Option<CollectionRow>> {
    match parent_id {
        None => {
            if org.has_role(Role::Create) {
                Ok(None)
            } else {
                Err(ApiError::forbidden(
                    "you need the create role in the organization to add content at its root",
                ))
            }
        }
        Some(id) => {
            let unknown = || ApiError::bad_request(format!("parent collection {id:?} not found"));
            let collection = match collections::get(conn, id).await {
                Ok(c) if c.organization_id == org.org_id => c,
                Ok(_) | Err(quire_store::StoreError::NotFound) => return Err(unknown()),
                Err(err) => return Err(err.into()),
            };
            let access = ContentAccess::to_collection(conn, caller, &collection).await?;
            if access.role.is_none() {
                return Err(unknown());
            }
            access.require(Role::Create, "add content to this collection")?;
            Ok(Some(collection))
        }
    }
}
