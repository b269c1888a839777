//! Collections: folders of spaces and of other collections.

use quire_core::{DefaultLevel, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionRow {
    pub id: String,
    pub organization_id: String,
    pub parent_id: Option<String>,
    pub title: String,
    pub description: Option<String>,
    pub default_level: DefaultLevel,
    pub position: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

macro_rules! collection_select {
    () => {
        "SELECT c.id, c.organization_id, c.parent_id, c.title, c.description, c.default_level, c.position, \
         c.created_at, c.updated_at FROM collections c"
    };
}

pub(crate) fn default_level_column(row: &AnyRow, column: &str) -> StoreResult<DefaultLevel> {
    let text: Option<String> = row.try_get(column)?;
    DefaultLevel::from_column(text.as_deref()).ok_or_else(|| StoreError::Corrupt(format!("default level {text:?}")))
}

fn from_row(row: &AnyRow) -> StoreResult<CollectionRow> {
    Ok(CollectionRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        parent_id: row.try_get("parent_id")?,
        title: row.try_get("title")?,
        description: row.try_get("description")?,
        default_level: default_level_column(row, "default_level")?,
        position: row.try_get("position")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

pub async fn insert(conn: &mut AnyConnection, c: &CollectionRow) -> StoreResult<()> {
    crate::audit::created("collection", &c.id);
    sqlx::query(
        "INSERT INTO collections (id, organization_id, parent_id, title, description, default_level, position, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&c.id)
    .bind(&c.organization_id)
    .bind(&c.parent_id)
    .bind(&c.title)
    .bind(&c.description)
    .bind(c.default_level.to_column())
    .bind(c.position)
    .bind(c.created_at.0)
    .bind(c.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes every mutable field.
pub async fn update(conn: &mut AnyConnection, c: &CollectionRow) -> StoreResult<()> {
    sqlx::query(
        "UPDATE collections SET organization_id = $2, parent_id = $3, title = $4, description = $5, \
         default_level = $6, position = $7, updated_at = $8 WHERE id = $1",
    )
    .bind(&c.id)
    .bind(&c.organization_id)
    .bind(&c.parent_id)
    .bind(&c.title)
    .bind(&c.description)
    .bind(c.default_level.to_column())
    .bind(c.position)
    .bind(c.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(conn: &mut AnyConnection, id: &str) -> StoreResult<CollectionRow> {
    let row = sqlx::query(concat!(collection_select!(), " WHERE c.id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(from_row).transpose().found()
}

pub async fn delete(conn: &mut AnyConnection, id: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM collections WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Moves every child (collections and spaces) of `from` under `to`.
pub async fn reparent_children(conn: &mut AnyConnection, from: &str, to: Option<&str>) -> StoreResult<()> {
    sqlx::query("UPDATE collections SET parent_id = $2 WHERE parent_id = $1")
        .bind(from)
        .bind(to)
        .execute(&mut *conn)
        .await?;
    sqlx::query("UPDATE spaces SET parent_id = $2 WHERE parent_id = $1")
        .bind(from)
        .bind(to)
        .execute(conn)
        .await?;
    Ok(())
}

/// One level of the chain from a collection up to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    pub id: String,
    pub parent_id: Option<String>,
    pub default_level: DefaultLevel,
}

fn level_from_row(row: &AnyRow) -> StoreResult<Level> {
    Ok(Level {
        id: row.try_get("id")?,
        parent_id: row.try_get("parent_id")?,
        default_level: default_level_column(row, "default_level")?,
    })
}

/// `id` and its ancestors, nearest first. The depth is capped so a corrupt
/// cycle cannot loop forever.
pub async fn chain(conn: &mut AnyConnection, id: &str) -> StoreResult<Vec<Level>> {
    let rows = sqlx::query(
        "WITH RECURSIVE chain(id, parent_id, default_level, depth) AS ( \
           SELECT id, parent_id, default_level, 0 FROM collections WHERE id = $1 \
           UNION ALL \
           SELECT c.id, c.parent_id, c.default_level, chain.depth + 1 FROM collections c \
           JOIN chain ON c.id = chain.parent_id WHERE chain.depth < 64 \
         ) SELECT id, parent_id, default_level FROM chain ORDER BY depth",
    )
    .bind(id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(level_from_row).collect()
}

/// Every collection of the organization as a tree level (for computing many
/// spaces' roles at once).
pub async fn levels_in_org(conn: &mut AnyConnection, org_id: &str) -> StoreResult<Vec<Level>> {
    let rows = sqlx::query("SELECT id, parent_id, default_level FROM collections WHERE organization_id = $1")
        .bind(org_id)
        .fetch_all(conn)
        .await?;
    rows.iter().map(level_from_row).collect()
}

/// `id` and every collection below it.
pub async fn subtree_ids(conn: &mut AnyConnection, id: &str) -> StoreResult<Vec<String>> {
    Ok(sqlx::query_scalar(
        "WITH RECURSIVE sub(id, depth) AS ( \
           SELECT id, 0 FROM collections WHERE id = $1 \
           UNION ALL \
           SELECT c.id, sub.depth + 1 FROM collections c JOIN sub ON c.parent_id = sub.id WHERE sub.depth < 64 \
         ) SELECT id FROM sub",
    )
    .bind(id)
    .fetch_all(conn)
    .await?)
}

/// Which collections of an organization a list shows.
#[derive(Debug, Clone, Default)]
pub struct CollectionFilter {
    /// Only top-level collections.
    pub top_level_only: bool,
    /// Only collections visible through this user's grants (for guests).
    pub granted_to: Option<String>,
    /// Only the children of this collection.
    pub parent: Option<String>,
}

pub(crate) fn push_granted(sql: &mut Sql, org_id: &str, user_id: &str, column: &str) {
    // Everything under a collection the user (or one of their teams) was
    // granted, plus the granted resources themselves.
    sql.push(" AND (")
        .push(column)
        .push(
            " IN (WITH RECURSIVE granted(id, depth) AS ( \
               SELECT g.resource_id, 0 FROM content_grants g WHERE g.organization_id = ",
        )
        .bind(org_id.to_owned())
        .push(" AND ((g.principal_kind = 'user' AND g.principal_id = ")
        .bind(user_id.to_owned())
        .push(") OR (g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ")
        .bind(user_id.to_owned())
        .push("))) UNION ALL SELECT c.id, granted.depth + 1 FROM collections c JOIN granted ON c.parent_id = granted.id \
               WHERE granted.depth < 64) SELECT id FROM granted))");
}

pub async fn list(
    conn: &mut AnyConnection,
    org_id: &str,
    filter: &CollectionFilter,
    page: &PageRequest,
) -> StoreResult<Page<CollectionRow>> {
    let push_filter = |sql: &mut Sql| {
        sql.push(" WHERE c.organization_id = ").bind(org_id.to_owned());
        if filter.top_level_only {
            sql.push(" AND c.parent_id IS NULL");
        }
        if let Some(parent) = &filter.parent {
            sql.push(" AND c.parent_id = ").bind(parent.clone());
        }
        if let Some(user) = &filter.granted_to {
            push_granted(sql, org_id, user, "c.id");
        }
    };
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM collections c");
    push_filter(&mut count);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(collection_select!());
    push_filter(&mut sql);
    page.push_after(&mut sql, "c.position", "c.id");
    page.push_order_and_limit(&mut sql, "c.position", "c.id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |c| Keyset {
        key: SortKey::Int(c.position),
        id: c.id.clone(),
    }))
}

/// Moves the given collections to another organization.
pub async fn move_to_org(conn: &mut AnyConnection, ids: &[String], org_id: &str) -> StoreResult<()> {
    for id in ids {
        sqlx::query("UPDATE collections SET organization_id = $2 WHERE id = $1")
            .bind(id)
            .bind(org_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
