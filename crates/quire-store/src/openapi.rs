//! OpenAPI specifications of organizations and their versions.

use quire_core::{ProcessingState, SpecVisibility, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecRow {
    pub id: String,
    pub organization_id: String,
    pub slug: String,
    pub source_url: Option<String>,
    /// A document given as text instead of a URL.
    pub source_text: Option<String>,
    /// `private` or `public`.
    pub visibility: SpecVisibility,
    /// `pending`, `progress` or `complete`.
    pub processing_state: ProcessingState,
    pub last_version_id: Option<String>,
    pub last_processed_at: Option<Timestamp>,
    /// `FETCH_TIMEOUT`, `FETCH_ERROR` or `PARSE_ERROR`.
    pub last_error_code: Option<String>,
    /// What went wrong, for the log and the spec's errors.
    pub last_error: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRow {
    pub id: String,
    pub spec_id: String,
    pub content_hash: String,
    /// The document, exactly as it was fetched or given.
    pub content: String,
    /// `json` or `yaml`.
    pub format: String,
    pub created_at: Timestamp,
}

const SPEC_COLUMNS: &str = "id, organization_id, slug, source_url, source_text, visibility, processing_state, \
                            last_version_id, last_processed_at, last_error_code, last_error, created_at, updated_at";

fn spec_from_row(row: &AnyRow) -> StoreResult<SpecRow> {
    Ok(SpecRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        slug: row.try_get("slug")?,
        source_url: row.try_get("source_url")?,
        source_text: row.try_get("source_text")?,
        visibility: {
            let text: String = row.try_get("visibility")?;
            SpecVisibility::parse(&text).ok_or_else(|| StoreError::Corrupt(format!("spec visibility {text:?}")))?
        },
        processing_state: {
            let text: String = row.try_get("processing_state")?;
            ProcessingState::parse(&text).ok_or_else(|| StoreError::Corrupt(format!("processing state {text:?}")))?
        },
        last_version_id: row.try_get("last_version_id")?,
        last_processed_at: row.try_get::<Option<i64>, _>("last_processed_at")?.map(Timestamp),
        last_error_code: row.try_get("last_error_code")?,
        last_error: row.try_get("last_error")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

fn version_from_row(row: &AnyRow) -> StoreResult<VersionRow> {
    Ok(VersionRow {
        id: row.try_get("id")?,
        spec_id: row.try_get("spec_id")?,
        content_hash: row.try_get("content_hash")?,
        content: row.try_get("content")?,
        format: row.try_get("format")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

pub async fn get_spec(conn: &mut AnyConnection, organization_id: &str, slug: &str) -> StoreResult<Option<SpecRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {SPEC_COLUMNS} FROM openapi_specs WHERE organization_id = $1 AND slug = $2"
    )))
    .bind(organization_id)
    .bind(slug)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(spec_from_row).transpose()
}

pub async fn get_spec_by_id(conn: &mut AnyConnection, id: &str) -> StoreResult<Option<SpecRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {SPEC_COLUMNS} FROM openapi_specs WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(spec_from_row).transpose()
}

/// The organization's specs by slug.
pub async fn list_specs(
    conn: &mut AnyConnection,
    organization_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<SpecRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM openapi_specs WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new(&format!(
        "SELECT {SPEC_COLUMNS} FROM openapi_specs WHERE organization_id = "
    ));
    sql.bind(organization_id.to_owned());
    page.push_after(&mut sql, "slug", "id");
    page.push_order_and_limit(&mut sql, "slug", "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(spec_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |s| Keyset {
        key: SortKey::Text(s.slug.clone()),
        id: s.id.clone(),
    }))
}

/// Inserts or rewrites a spec.
pub async fn put_spec(conn: &mut AnyConnection, spec: &SpecRow) -> StoreResult<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO openapi_specs ({SPEC_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
         ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, source_url = excluded.source_url, \
         source_text = excluded.source_text, visibility = excluded.visibility, \
         processing_state = excluded.processing_state, last_version_id = excluded.last_version_id, \
         last_processed_at = excluded.last_processed_at, last_error_code = excluded.last_error_code, \
         last_error = excluded.last_error, updated_at = excluded.updated_at"
    )))
    .bind(&spec.id)
    .bind(&spec.organization_id)
    .bind(&spec.slug)
    .bind(&spec.source_url)
    .bind(&spec.source_text)
    .bind(spec.visibility.as_str())
    .bind(spec.processing_state.as_str())
    .bind(&spec.last_version_id)
    .bind(spec.last_processed_at.map(|t| t.0))
    .bind(&spec.last_error_code)
    .bind(&spec.last_error)
    .bind(spec.created_at.0)
    .bind(spec.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Deletes a spec and its versions; false when there was none.
pub async fn delete_spec(conn: &mut AnyConnection, organization_id: &str, slug: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM openapi_specs WHERE organization_id = $1 AND slug = $2")
        .bind(organization_id)
        .bind(slug)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn insert_version(conn: &mut AnyConnection, version: &VersionRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO openapi_spec_versions (id, spec_id, content_hash, content, format, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&version.id)
    .bind(&version.spec_id)
    .bind(&version.content_hash)
    .bind(&version.content)
    .bind(&version.format)
    .bind(version.created_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get_version(conn: &mut AnyConnection, spec_id: &str, id: &str) -> StoreResult<Option<VersionRow>> {
    let row = sqlx::query(
        "SELECT id, spec_id, content_hash, content, format, created_at FROM openapi_spec_versions \
         WHERE spec_id = $1 AND id = $2",
    )
    .bind(spec_id)
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(version_from_row).transpose()
}

/// A spec's versions, newest first (their content left empty).
pub async fn list_versions(
    conn: &mut AnyConnection,
    spec_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<VersionRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM openapi_spec_versions WHERE spec_id = $1")
        .bind(spec_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new(
        "SELECT id, spec_id, content_hash, '' AS content, format, created_at FROM openapi_spec_versions \
         WHERE spec_id = ",
    );
    sql.bind(spec_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(version_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |v| Keyset {
        key: SortKey::Int(v.created_at.0),
        id: v.id.clone(),
    }))
}
