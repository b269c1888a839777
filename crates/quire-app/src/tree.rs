//! Placing an item among its siblings: the one rule ([`reorder`]) and the
//! one `position` shape ([`Position`]) of every move in the API (spaces and
//! collections here, a site's sections, groups and site spaces in
//! `quire-sites`), and the placing of spaces and collections in the
//! organization's tree, shared by their create, move, duplicate and
//! transfer operations.

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

/// Where to put an item among its siblings: before or after one of them
/// (not both); neither puts it last. `P` names a sibling as each API does.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "P: Deserialize<'de>"))]
pub struct Position<P = Pointer> {
    pub before: Option<P>,
    pub after: Option<P>,
}

impl<P> Default for Position<P> {
    fn default() -> Self {
        Position {
            before: None,
            after: None,
        }
    }
}

/// The one placement rule: `siblings` with `item` moved before `before` or
/// after `after` (at the end when neither is given). Refused: both given,
/// an item placed relative to itself, and an anchor that is not among the
/// siblings (`missing` says it).
pub fn reorder<T: PartialEq + Clone>(
    siblings: &[T],
    item: &T,
    before: Option<&T>,
    after: Option<&T>,
    missing: impl FnOnce(&T) -> String,
) -> AppResult<Vec<T>> {
    let mut rest: Vec<T> = siblings.iter().filter(|s| *s != item).cloned().collect();
    let (anchor, offset) = match (before, after) {
        (Some(b), None) => (b, 0),
        (None, Some(a)) => (a, 1),
        (None, None) => {
            rest.push(item.clone());
            return Ok(rest);
        }
        (Some(_), Some(_)) => return Err(AppError::invalid("position needs one of before and after, not both")),
    };
    if anchor == item {
        return Err(AppError::invalid("an item cannot be placed relative to itself"));
    }
    let at = rest
        .iter()
        .position(|s| s == anchor)
        .ok_or_else(|| AppError::invalid(missing(anchor)))?;
    rest.insert(at + offset, item.clone());
    Ok(rest)
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
    let siblings = tree::siblings(conn, org_id, parent).await?;
    let before = position.and_then(|p| p.before.as_ref()).map(Pointer::sibling);
    let after = position.and_then(|p| p.after.as_ref()).map(Pointer::sibling);
    let placed = reorder(&siblings, &node, before.as_ref(), after.as_ref(), |wanted| {
        format!(
            "position refers to {} {:?}, which is not among the siblings at the destination",
            match wanted.kind {
                NodeKind::Space => "space",
                NodeKind::Collection => "collection",
            },
            wanted.id
        )
    })?;
    tree::renumber(conn, &placed).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn place(all: &[String], item: &str, before: Option<&str>, after: Option<&str>) -> AppResult<Vec<String>> {
        let (before, after) = (before.map(str::to_owned), after.map(str::to_owned));
        reorder(all, &item.to_owned(), before.as_ref(), after.as_ref(), |a| {
            format!("{a} is missing")
        })
    }

    #[test]
    fn reorder_places_before_or_after_a_sibling() {
        let all = ids(&["a", "b", "c"]);
        assert_eq!(place(&all, "c", Some("a"), None).unwrap(), ids(&["c", "a", "b"]));
        assert_eq!(place(&all, "a", None, Some("c")).unwrap(), ids(&["b", "c", "a"]));
        assert_eq!(
            place(&all, "d", Some("b"), None).unwrap(),
            ids(&["a", "d", "b", "c"]),
            "a newcomer"
        );
        assert_eq!(
            place(&all, "a", None, None).unwrap(),
            ids(&["b", "c", "a"]),
            "no position: the end"
        );
        assert!(place(&all, "a", Some("b"), Some("c")).is_err());
        assert!(place(&all, "a", Some("zzz"), None).is_err());
        assert!(place(&all, "a", Some("a"), None).is_err());
    }
}
