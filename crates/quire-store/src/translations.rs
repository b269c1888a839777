//! Translations of spaces, what their runs translated, and the glossary.

use quire_core::{Timestamp, TranslationStatus};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslationRow {
    pub id: String,
    pub organization_id: String,
    pub source_space_id: String,
    pub source_language: String,
    pub language: String,
    /// The instructions document (JSON), if any.
    pub instructions: Option<String>,
    /// `pending`, `running` or `completed`.
    pub status: TranslationStatus,
    pub result_space_id: Option<String>,
    pub result_revision_id: Option<String>,
    pub runs: i64,
    pub total_words: i64,
    pub total_pages: i64,
    /// Seconds.
    pub total_duration: i64,
    pub latest_run_duration: i64,
    pub latest_pages: i64,
    pub latest_words: i64,
    pub last_error: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What a run made of one source page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslatedPageRow {
    pub source_page_id: String,
    pub result_page_id: String,
    /// What the translation was made from (title, description and document).
    pub source_key: String,
    pub title: String,
    pub description: Option<String>,
    pub markdown: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlossaryRow {
    pub id: String,
    pub organization_id: String,
    /// Language code → term (JSON object).
    pub translations: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

const COLUMNS: &str = "id, organization_id, source_space_id, source_language, language, instructions, status, \
                       result_space_id, result_revision_id, runs, total_words, total_pages, total_duration, \
                       latest_run_duration, latest_pages, latest_words, last_error, created_at, updated_at";

fn from_row(row: &AnyRow) -> StoreResult<TranslationRow> {
    Ok(TranslationRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        source_space_id: row.try_get("source_space_id")?,
        source_language: row.try_get("source_language")?,
        language: row.try_get("language")?,
        instructions: row.try_get("instructions")?,
        status: {
            let text: String = row.try_get("status")?;
            TranslationStatus::parse(&text)
                .ok_or_else(|| StoreError::Corrupt(format!("translation status {text:?}")))?
        },
        result_space_id: row.try_get("result_space_id")?,
        result_revision_id: row.try_get("result_revision_id")?,
        runs: row.try_get("runs")?,
        total_words: row.try_get("total_words")?,
        total_pages: row.try_get("total_pages")?,
        total_duration: row.try_get("total_duration")?,
        latest_run_duration: row.try_get("latest_run_duration")?,
        latest_pages: row.try_get("latest_pages")?,
        latest_words: row.try_get("latest_words")?,
        last_error: row.try_get("last_error")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

pub async fn get(conn: &mut AnyConnection, organization_id: &str, id: &str) -> StoreResult<Option<TranslationRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM translations WHERE organization_id = $1 AND id = $2"
    )))
    .bind(organization_id)
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(from_row).transpose()
}

pub async fn list(
    conn: &mut AnyConnection,
    organization_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<TranslationRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM translations WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM translations WHERE organization_id = "));
    sql.bind(organization_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(items, total, |t| Keyset {
        key: SortKey::Int(t.created_at.0),
        id: t.id.clone(),
    }))
}

pub async fn put(conn: &mut AnyConnection, t: &TranslationRow) -> StoreResult<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO translations ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, \
         $15, $16, $17, $18, $19) ON CONFLICT (id) DO UPDATE SET instructions = excluded.instructions, \
         status = excluded.status, result_space_id = excluded.result_space_id, \
         result_revision_id = excluded.result_revision_id, runs = excluded.runs, \
         total_words = excluded.total_words, total_pages = excluded.total_pages, \
         total_duration = excluded.total_duration, latest_run_duration = excluded.latest_run_duration, \
         latest_pages = excluded.latest_pages, latest_words = excluded.latest_words, \
         last_error = excluded.last_error, updated_at = excluded.updated_at"
    )))
    .bind(&t.id)
    .bind(&t.organization_id)
    .bind(&t.source_space_id)
    .bind(&t.source_language)
    .bind(&t.language)
    .bind(&t.instructions)
    .bind(t.status.as_str())
    .bind(&t.result_space_id)
    .bind(&t.result_revision_id)
    .bind(t.runs)
    .bind(t.total_words)
    .bind(t.total_pages)
    .bind(t.total_duration)
    .bind(t.latest_run_duration)
    .bind(t.latest_pages)
    .bind(t.latest_words)
    .bind(&t.last_error)
    .bind(t.created_at.0)
    .bind(t.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn delete(conn: &mut AnyConnection, organization_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM translations WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// What earlier runs translated, by source page.
pub async fn pages(conn: &mut AnyConnection, translation_id: &str) -> StoreResult<Vec<TranslatedPageRow>> {
    let rows = sqlx::query(
        "SELECT source_page_id, result_page_id, source_key, title, description, markdown FROM translation_pages \
         WHERE translation_id = $1",
    )
    .bind(translation_id)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(TranslatedPageRow {
                source_page_id: r.try_get("source_page_id")?,
                result_page_id: r.try_get("result_page_id")?,
                source_key: r.try_get("source_key")?,
                title: r.try_get("title")?,
                description: r.try_get("description")?,
                markdown: r.try_get("markdown")?,
            })
        })
        .collect()
}

/// Replaces what the runs translated with `pages`.
pub async fn put_pages(conn: &mut AnyConnection, translation_id: &str, pages: &[TranslatedPageRow]) -> StoreResult<()> {
    sqlx::query("DELETE FROM translation_pages WHERE translation_id = $1")
        .bind(translation_id)
        .execute(&mut *conn)
        .await?;
    for chunk in pages.chunks(100) {
        let mut sql = Sql::new(
            "INSERT INTO translation_pages (translation_id, source_page_id, result_page_id, source_key, title, \
             description, markdown) VALUES ",
        );
        sql.not_kept();
        for (i, p) in chunk.iter().enumerate() {
            sql.push(if i == 0 { "(" } else { ", (" })
                .bind(translation_id.to_owned());
            for value in [
                Some(p.source_page_id.clone()),
                Some(p.result_page_id.clone()),
                Some(p.source_key.clone()),
                Some(p.title.clone()),
                p.description.clone(),
                Some(p.markdown.clone()),
            ] {
                sql.push(", ").bind(value);
            }
            sql.push(")");
        }
        sql.execute(&mut *conn).await?;
    }
    Ok(())
}

fn glossary_from_row(row: &AnyRow) -> StoreResult<GlossaryRow> {
    Ok(GlossaryRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        translations: row.try_get("translations")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

/// The organization's glossary, oldest entry first.
pub async fn glossary(conn: &mut AnyConnection, organization_id: &str) -> StoreResult<Vec<GlossaryRow>> {
    let rows = sqlx::query(
        "SELECT id, organization_id, translations, created_at, updated_at FROM glossary_entries \
         WHERE organization_id = $1 ORDER BY created_at, id",
    )
    .bind(organization_id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(glossary_from_row).collect()
}

pub async fn put_glossary_entry(conn: &mut AnyConnection, entry: &GlossaryRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO glossary_entries (id, organization_id, translations, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET translations = excluded.translations, \
         updated_at = excluded.updated_at",
    )
    .bind(&entry.id)
    .bind(&entry.organization_id)
    .bind(&entry.translations)
    .bind(entry.created_at.0)
    .bind(entry.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn delete_glossary_entry(conn: &mut AnyConnection, organization_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM glossary_entries WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
