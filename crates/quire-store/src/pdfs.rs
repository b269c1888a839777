//! PDFs of spaces, by cache key, and the temporary links to them.

use quire_core::Timestamp;
use sqlx::AnyConnection;
use sqlx::Row;

use crate::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfRow {
    pub cache_key: String,
    pub space_id: String,
    pub revision_id: String,
    /// The blob holding the PDF.
    pub blob: String,
    pub size: i64,
    pub created_at: Timestamp,
}

pub async fn get(conn: &mut AnyConnection, cache_key: &str) -> StoreResult<Option<PdfRow>> {
    let row =
        sqlx::query("SELECT cache_key, space_id, revision_id, blob, size, created_at FROM pdfs WHERE cache_key = $1")
            .bind(cache_key)
            .fetch_optional(conn)
            .await?;
    row.map(|row| {
        Ok(PdfRow {
            cache_key: row.try_get("cache_key")?,
            space_id: row.try_get("space_id")?,
            revision_id: row.try_get("revision_id")?,
            blob: row.try_get("blob")?,
            size: row.try_get("size")?,
            created_at: Timestamp(row.try_get("created_at")?),
        })
    })
    .transpose()
}

/// Records a PDF; one made at the same time by another node is kept as is.
pub async fn put(conn: &mut AnyConnection, pdf: &PdfRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO pdfs (cache_key, space_id, revision_id, blob, size, created_at) VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (cache_key) DO NOTHING",
    )
    .bind(&pdf.cache_key)
    .bind(&pdf.space_id)
    .bind(&pdf.revision_id)
    .bind(&pdf.blob)
    .bind(pdf.size)
    .bind(pdf.created_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds a download link (and forgets the links that expired).
pub async fn add_link(
    conn: &mut AnyConnection,
    token_hash: &str,
    cache_key: &str,
    file_name: &str,
    expires_at: Timestamp,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM pdf_links WHERE expires_at <= $1")
        .bind(now.0)
        .execute(&mut *conn)
        .await?;
    sqlx::query("INSERT INTO pdf_links (token_hash, cache_key, file_name, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(token_hash)
        .bind(cache_key)
        .bind(file_name)
        .bind(expires_at.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// The PDF blob and file name a link that has not expired points at.
pub async fn by_link(
    conn: &mut AnyConnection,
    token_hash: &str,
    now: Timestamp,
) -> StoreResult<Option<(String, String)>> {
    let row = sqlx::query(
        "SELECT p.blob, l.file_name FROM pdf_links l JOIN pdfs p ON p.cache_key = l.cache_key \
         WHERE l.token_hash = $1 AND l.expires_at > $2",
    )
    .bind(token_hash)
    .bind(now.0)
    .fetch_optional(conn)
    .await?;
    row.map(|row| Ok((row.try_get("blob")?, row.try_get("file_name")?)))
        .transpose()
}
