//! Content objects and revisions.
//!
//! Objects are immutable and keyed by the hash of their body, so writing one
//! that exists already is a no-op and any node may cache them forever.
//! A revision names its parents and the root object of its page tree.

use quire_core::Timestamp;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::sql::Sql;

/// The root object of a revision without pages or files (stored by the
/// migration that created the content tables).
pub const EMPTY_ROOT: &str = "0ea2014bc5b3c7f2185765061d6e5fa932c16e5240f771de5801af449cb1fe9f";

/// Stores objects that are not stored yet, in as few statements as
/// possible (one per 200 objects: an edit is one round trip).
pub async fn put_objects(conn: &mut AnyConnection, objects: &[(String, String)]) -> StoreResult<()> {
    for chunk in objects.chunks(200) {
        let mut sql = Sql::new("INSERT INTO content_objects (hash, body) VALUES ");
        sql.not_kept();
        for (i, (hash, body)) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push("(").bind(hash.clone()).push(", ").bind(body.clone()).push(")");
        }
        sql.push(" ON CONFLICT (hash) DO NOTHING");
        sql.execute(&mut *conn).await?;
    }
    Ok(())
}

/// The bodies of the objects asked for, as `(hash, body)` in any order;
/// missing hashes are simply absent.
pub async fn get_objects(conn: &mut AnyConnection, hashes: &[String]) -> StoreResult<Vec<(String, String)>> {
    let mut found = Vec::with_capacity(hashes.len());
    for chunk in hashes.chunks(500) {
        let mut sql = Sql::new("SELECT hash, body FROM content_objects WHERE hash IN ");
        sql.bind_list(chunk);
        for row in sql.fetch_all(&mut *conn).await? {
            found.push((row.try_get("hash")?, row.try_get("body")?));
        }
    }
    Ok(found)
}

/// Bytes stored for a set of objects (for measuring storage growth).
pub async fn object_bytes(conn: &mut AnyConnection) -> StoreResult<i64> {
    Ok(
        sqlx::query_scalar("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM content_objects")
            .fetch_one(conn)
            .await?,
    )
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionRow {
    pub id: String,
    pub space_id: String,
    pub parents: Vec<String>,
    /// Hash of the root object.
    pub root: String,
    pub author_id: Option<String>,
    /// `edits`, `merge`, `update` or `rollback`.
    pub kind: String,
    /// The change request a merge revision came from.
    pub merged_from: Option<String>,
    pub created_at: Timestamp,
    /// The Git commit the revision was imported from or exported to (JSON).
    pub git: Option<String>,
}

fn revision_from_row(row: &AnyRow) -> StoreResult<RevisionRow> {
    let parents: String = row.try_get("parents")?;
    Ok(RevisionRow {
        id: row.try_get("id")?,
        space_id: row.try_get("space_id")?,
        parents: serde_json::from_str(&parents).map_err(|e| crate::StoreError::Corrupt(e.to_string()))?,
        root: row.try_get("root")?,
        author_id: row.try_get("author_id")?,
        kind: row.try_get("kind")?,
        merged_from: row.try_get("merged_from")?,
        created_at: Timestamp(row.try_get("created_at")?),
        git: row.try_get("git")?,
    })
}

pub async fn insert_revision(conn: &mut AnyConnection, rev: &RevisionRow) -> StoreResult<()> {
    let parents = serde_json::to_string(&rev.parents).map_err(|e| crate::StoreError::Corrupt(e.to_string()))?;
    sqlx::query(
        "INSERT INTO revisions (id, space_id, parents, root, author_id, kind, merged_from, created_at, git) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&rev.id)
    .bind(&rev.space_id)
    .bind(parents)
    .bind(&rev.root)
    .bind(&rev.author_id)
    .bind(&rev.kind)
    .bind(&rev.merged_from)
    .bind(rev.created_at.0)
    .bind(&rev.git)
    .execute(conn)
    .await?;
    Ok(())
}

/// The first revision of a new space: `root` (the empty tree, or the tree of
/// the space it duplicates, shared object for object).
pub async fn insert_initial_revision(
    conn: &mut AnyConnection,
    space_id: &str,
    revision_id: &str,
    root: &str,
    author_id: &str,
    now: Timestamp,
) -> StoreResult<()> {
    let revision = RevisionRow {
        id: revision_id.to_owned(),
        space_id: space_id.to_owned(),
        parents: Vec::new(),
        root: root.to_owned(),
        author_id: Some(author_id.to_owned()),
        kind: "edits".into(),
        merged_from: None,
        git: None,
        created_at: now,
    };
    insert_revision(conn, &revision).await
}

/// A revision of the space; `NotFound` for another space's revision.
pub async fn get_revision(conn: &mut AnyConnection, space_id: &str, id: &str) -> StoreResult<RevisionRow> {
    let row = sqlx::query(
        "SELECT id, space_id, parents, root, author_id, kind, merged_from, created_at, git FROM revisions \
         WHERE id = $1 AND space_id = $2",
    )
    .bind(id)
    .bind(space_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(revision_from_row).transpose().found()
}

/// Moves the space's current revision from `from` to `to`; false (and no
/// change) when another writer moved it first.
pub async fn advance_space(
    conn: &mut AnyConnection,
    space_id: &str,
    from: &str,
    to: &str,
    now: Timestamp,
) -> StoreResult<bool> {
    let done = sqlx::query("UPDATE spaces SET revision_id = $3, updated_at = $4 WHERE id = $1 AND revision_id = $2")
        .bind(space_id)
        .bind(from)
        .bind(to)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
