//! Site redirects: a path of a site sent elsewhere (migration 0027). Rows
//! are plain; what a source may be, what a destination names and how a
//! request path finds its redirect are `quire_sites::redirects`' rules.

use quire_core::Timestamp;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, AssertSqlSafe, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::{Sql, flag, flag_column};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectRow {
    pub id: String,
    pub site_id: String,
    /// The path of the site redirected, as given (`/old/page`, `/old/*`).
    pub source: String,
    /// A draft is prepared but not live.
    pub draft: bool,
    /// Whether what a wildcard matched is appended to the destination.
    pub capture_wildcard: bool,
    /// 308 rather than 307.
    pub permanent: bool,
    /// The official `SiteRedirectDestination`, as JSON text.
    pub destination: String,
    pub created_at: Timestamp,
    /// Set when the redirect is changed; `None` until then.
    pub updated_at: Option<Timestamp>,
}

const COLUMNS: &str = "SELECT id, site_id, source, draft, capture_wildcard, permanent, destination, created_at, \
     updated_at FROM site_redirects";

fn from_row(row: &AnyRow) -> StoreResult<RedirectRow> {
    Ok(RedirectRow {
        id: row.try_get("id")?,
        site_id: row.try_get("site_id")?,
        source: row.try_get("source")?,
        draft: flag_column(row, "draft")?,
        capture_wildcard: flag_column(row, "capture_wildcard")?,
        permanent: flag_column(row, "permanent")?,
        destination: row.try_get("destination")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: row.try_get::<Option<i64>, _>("updated_at")?.map(Timestamp),
    })
}

/// Inserts the redirect, or rewrites every mutable field of an existing
/// one. A second redirect of the site with the same source and draft state
/// is a `Unique` error.
pub async fn put(conn: &mut AnyConnection, r: &RedirectRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO site_redirects (id, site_id, source, draft, capture_wildcard, permanent, destination, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
         ON CONFLICT (id) DO UPDATE SET source = excluded.source, draft = excluded.draft, \
         capture_wildcard = excluded.capture_wildcard, permanent = excluded.permanent, \
         destination = excluded.destination, updated_at = excluded.updated_at",
    )
    .bind(&r.id)
    .bind(&r.site_id)
    .bind(&r.source)
    .bind(flag(r.draft))
    .bind(flag(r.capture_wildcard))
    .bind(flag(r.permanent))
    .bind(&r.destination)
    .bind(r.created_at.0)
    .bind(r.updated_at.map(|t| t.0))
    .execute(conn)
    .await?;
    Ok(())
}

/// The redirect of the site with this id (`NotFound` otherwise).
pub async fn get(conn: &mut AnyConnection, site_id: &str, id: &str) -> StoreResult<RedirectRow> {
    let row = sqlx::query(AssertSqlSafe(format!("{COLUMNS} WHERE id = $1 AND site_id = $2")))
        .bind(id)
        .bind(site_id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(from_row).transpose().found()
}

/// The site's redirect of this source, live or draft, if any.
pub async fn by_source(
    conn: &mut AnyConnection,
    site_id: &str,
    source: &str,
    draft: bool,
) -> StoreResult<Option<RedirectRow>> {
    let row = sqlx::query(AssertSqlSafe(format!(
        "{COLUMNS} WHERE site_id = $1 AND draft = $2 AND source = $3"
    )))
    .bind(site_id)
    .bind(flag(draft))
    .bind(source)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(from_row).transpose()
}

/// Every live redirect of the site (what its published pages follow).
pub async fn live(conn: &mut AnyConnection, site_id: &str) -> StoreResult<Vec<RedirectRow>> {
    let rows = sqlx::query(AssertSqlSafe(format!(
        "{COLUMNS} WHERE site_id = $1 AND draft = 0 ORDER BY source, id"
    )))
    .bind(site_id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// The orders of the list (the official `SiteRedirectOrderBy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOrder {
    /// Most recently created first.
    CreatedAt,
    /// Most recently updated first, the creation standing for redirects
    /// never updated.
    UpdatedAt,
    /// By source, alphabetically.
    Source,
}

impl RedirectOrder {
    fn column(self) -> &'static str {
        match self {
            RedirectOrder::CreatedAt => "created_at",
            RedirectOrder::UpdatedAt => "COALESCE(updated_at, created_at)",
            RedirectOrder::Source => "source",
        }
    }

    fn key(self, r: &RedirectRow) -> SortKey {
        match self {
            RedirectOrder::CreatedAt => SortKey::Int(r.created_at.0),
            RedirectOrder::UpdatedAt => SortKey::Int(r.updated_at.unwrap_or(r.created_at).0),
            RedirectOrder::Source => SortKey::Text(r.source.clone()),
        }
    }
}

/// What the list holds: the live or the draft redirects, those whose
/// source contains `search` (case-insensitive) when given.
#[derive(Debug, Clone, Default)]
pub struct RedirectFilter {
    pub draft: bool,
    pub search: Option<String>,
}

fn push_filter(sql: &mut Sql, site_id: &str, filter: &RedirectFilter) {
    sql.push(" WHERE site_id = ")
        .bind(site_id.to_owned())
        .push(" AND draft = ")
        .bind(flag(filter.draft));
    if let Some(search) = filter.search.as_deref().filter(|s| !s.is_empty()) {
        sql.push(" AND ").push_contains("source", search);
    }
}

/// One page of the site's redirects in `order` (the page request says
/// which direction).
pub async fn list(
    conn: &mut AnyConnection,
    site_id: &str,
    filter: &RedirectFilter,
    order: RedirectOrder,
    page: &PageRequest,
) -> StoreResult<Page<RedirectRow>> {
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM site_redirects");
    push_filter(&mut count, site_id, filter);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(COLUMNS);
    push_filter(&mut sql, site_id, filter);
    page.push_after(&mut sql, order.column(), "id");
    page.push_order_and_limit(&mut sql, order.column(), "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |r| Keyset {
        key: order.key(r),
        id: r.id.clone(),
    }))
}

/// Deletes a redirect of the site; false when there was none.
pub async fn delete(conn: &mut AnyConnection, site_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM site_redirects WHERE id = $1 AND site_id = $2")
        .bind(id)
        .bind(site_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
