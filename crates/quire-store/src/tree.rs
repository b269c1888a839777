//! The content tree of an organization: collections and spaces under a
//! parent collection (or the root), ordered by `position`.

use sqlx::{AnyConnection, Row};

use crate::error::StoreResult;

/// What can sit in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Space,
    Collection,
}

/// A child of a parent, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sibling {
    pub kind: NodeKind,
    pub id: String,
}

/// The position after the last child of `parent` (root when `None`).
pub async fn next_position(conn: &mut AnyConnection, org_id: &str, parent: Option<&str>) -> StoreResult<i64> {
    let row = sqlx::query(
        "SELECT COALESCE(MAX(p), -1) + 1 AS next FROM ( \
           SELECT MAX(position) AS p FROM spaces WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 \
           UNION ALL \
           SELECT MAX(position) AS p FROM collections WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 \
         ) q",
    )
    .bind(org_id)
    .bind(parent)
    .fetch_one(conn)
    .await?;
    Ok(row.try_get("next")?)
}

/// The children of `parent`, in order (deleted spaces included: they keep
/// their place for a restore).
pub async fn siblings(conn: &mut AnyConnection, org_id: &str, parent: Option<&str>) -> StoreResult<Vec<Sibling>> {
    let rows = sqlx::query(
        "SELECT 's' AS kind, id, position FROM spaces WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 \
         UNION ALL \
         SELECT 'c' AS kind, id, position FROM collections WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 \
         ORDER BY position, id",
    )
    .bind(org_id)
    .bind(parent)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            let kind: String = row.try_get("kind")?;
            let kind = if kind == "s" {
                NodeKind::Space
            } else {
                NodeKind::Collection
            };
            Ok(Sibling {
                kind,
                id: row.try_get("id")?,
            })
        })
        .collect()
}

/// Writes positions 0, 1, 2... in the given order.
pub async fn renumber(conn: &mut AnyConnection, ordered: &[Sibling]) -> StoreResult<()> {
    for (position, sibling) in ordered.iter().enumerate() {
        let sql = match sibling.kind {
            NodeKind::Space => "UPDATE spaces SET position = $2 WHERE id = $1",
            NodeKind::Collection => "UPDATE collections SET position = $2 WHERE id = $1",
        };
        sqlx::query(sql)
            .bind(&sibling.id)
            .bind(position as i64)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
