//! Placing spaces and collections among their siblings: shared by the
//! create, move, duplicate and transfer operations of both.

use quire_core::serde_util::nullable;
use quire_store::Conn;
use quire_store::tree::{self, NodeKind, Sibling};
use serde::Deserialize;

use crate::error::{AppError, AppResult};

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
            Pointer::Space { space } => space_node(space),
            Pointer::Collection { collection } => collection_node(collection),
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

/// The input of the move operations of spaces and collections: a new parent
/// (`null` for the organization root), a place among the siblings, or both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveInput {
    #[serde(default, deserialize_with = "nullable")]
    pub parent: Option<Option<String>>,
    pub position: Option<Position>,
}

impl MoveInput {
    pub(crate) fn check(&self) -> AppResult<()> {
        if self.parent.is_none() && self.position.is_none() {
            return Err(AppError::invalid("give a new parent, a position, or both"));
        }
        Ok(())
    }
}

pub(crate) fn space_node(id: &str) -> Sibling {
    Sibling {
        kind: NodeKind::Space,
        id: id.to_owned(),
    }
}

pub(crate) fn collection_node(id: &str) -> Sibling {
    Sibling {
        kind: NodeKind::Collection,
        id: id.to_owned(),
    }
}

/// Puts `node` under `parent` at `position` (last when `None`) and renumbers
/// the siblings. The node's own parent column must already say `parent`.
pub(crate) async fn place(
    conn: &mut Conn,
    org_id: &str,
    parent: Option<&str>,
    node: Sibling,
    position: Option<&Position>,
) -> AppResult<()> {
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

fn find(siblings: &[Sibling], pointer: &Pointer) -> AppResult<usize> {
    let wanted = pointer.sibling();
    siblings.iter().position(|s| *s == wanted).ok_or_else(|| {
        AppError::invalid(format!(
            "position refers to {} {:?}, which is not among the siblings at the destination",
            match wanted.kind {
                NodeKind::Space => "space",
                NodeKind::Collection => "collection",
            },
            wanted.id
        ))
    })
}
