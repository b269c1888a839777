//! The search index: the pages of every space's current content, as terms
//! from `quire_search`, in each backend's own full-text index (FTS5 on
//! SQLite, a GIN-indexed `tsvector` on PostgreSQL). This is the one place
//! that knows both encodings; callers hand in text and a parsed query and
//! get ranked pages back.
//!
//! A row is a page: its title, its headings and its text, weighted in that
//! order. The first 15,000 terms of the text (about 100 KB) are indexed,
//! 1,000 of the headings and 200 of the title: a PostgreSQL `tsvector`
//! holds positions up to 16,383 and must stay under 1 MB, and both backends
//! index the same terms.

use quire_search::{Analyzed, Clause, Query, analyze};
use sqlx::{AnyConnection, AssertSqlSafe, Row};

use crate::db::Backend;
use crate::error::StoreResult;
use crate::sql::Sql;

/// Terms indexed of a page's title, headings and text at most.
const MAX_TERMS: (usize, usize, usize) = (200, 1_000, 15_000);

/// The text of one page to index.
#[derive(Debug, Clone)]
pub struct PageText<'a> {
    pub title: &'a str,
    /// Every heading, a line each.
    pub headings: &'a str,
    /// The description and the text of every section.
    pub body: &'a str,
}

/// A page that matched, with its title and headings (a line each) as
/// indexed and the backend's relevance (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub space_id: String,
    pub page_id: String,
    pub title: String,
    pub headings: String,
    pub relevance: f64,
}

fn backend(conn: &AnyConnection) -> Backend {
    if conn.backend_name().eq_ignore_ascii_case("postgresql") {
        Backend::Postgres
    } else {
        Backend::Sqlite
    }
}

fn capped(text: &str, max: usize) -> Analyzed {
    let mut analyzed = analyze(text);
    analyzed.terms.truncate(max);
    analyzed
}

/// Indexes a page, replacing what the index held for it.
pub async fn put_page(conn: &mut AnyConnection, space_id: &str, page_id: &str, page: &PageText<'_>) -> StoreResult<()> {
    remove_pages(conn, space_id, std::slice::from_ref(&page_id.to_owned())).await?;
    let (title, headings, body) = (
        capped(page.title, MAX_TERMS.0),
        capped(page.headings, MAX_TERMS.1),
        capped(page.body, MAX_TERMS.2),
    );
    match backend(conn) {
        Backend::Sqlite => {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO search_pages (space_id, page_id, title, headings) VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind(space_id)
            .bind(page_id)
            .bind(page.title)
            .bind(page.headings)
            .fetch_one(&mut *conn)
            .await?;
            let ((ts, tw), (hs, hw), (bs, bw)) = (title.joined(), headings.joined(), body.joined());
            sqlx::query(
                "INSERT INTO search_terms (rowid, title_stems, title_words, heading_stems, heading_words, \
                 body_stems, body_words) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(id)
            .bind(ts)
            .bind(tw)
            .bind(hs)
            .bind(hw)
            .bind(bs)
            .bind(bw)
            .execute(&mut *conn)
            .await?;
        }
        Backend::Postgres => {
            sqlx::query(
                "INSERT INTO search_pages (space_id, page_id, title, headings, terms) \
                 VALUES ($1, $2, $3, $4, CAST($5 AS tsvector))",
            )
            .bind(space_id)
            .bind(page_id)
            .bind(page.title)
            .bind(page.headings)
            .bind(tsvector(&[(&title, 'A'), (&headings, 'B'), (&body, 'C')]))
            .execute(&mut *conn)
            .await?;
        }
    }
    Ok(())
}

/// Removes these pages of the space from the index.
pub async fn remove_pages(conn: &mut AnyConnection, space_id: &str, page_ids: &[String]) -> StoreResult<()> {
    for chunk in page_ids.chunks(500) {
        delete_where(conn, space_id, Some(chunk)).await?;
    }
    Ok(())
}

/// Removes every page of the space from the index.
pub async fn remove_space(conn: &mut AnyConnection, space_id: &str) -> StoreResult<()> {
    delete_where(conn, space_id, None).await
}

/// Deletes the rows of the space (of these pages only, when given) from
/// both tables.
async fn delete_where(conn: &mut AnyConnection, space_id: &str, pages: Option<&[String]>) -> StoreResult<()> {
    let condition = |sql: &mut Sql| {
        sql.push(" WHERE space_id = ").bind(space_id.to_owned());
        if let Some(pages) = pages {
            sql.push(" AND page_id IN (");
            for (i, id) in pages.iter().enumerate() {
                sql.push(if i == 0 { "" } else { ", " }).bind(id.clone());
            }
            sql.push(")");
        }
    };
    if backend(conn) == Backend::Sqlite {
        let mut fts = Sql::new("DELETE FROM search_terms WHERE rowid IN (SELECT id FROM search_pages");
        condition(&mut fts);
        fts.push(")");
        fts.execute(&mut *conn).await?;
    }
    let mut rows = Sql::new("DELETE FROM search_pages");
    condition(&mut rows);
    rows.execute(conn).await?;
    Ok(())
}

/// The `limit` most relevant pages of these spaces matching the query. An
/// empty query or no space finds nothing. On SQLite the `CROSS JOIN` keeps
/// the full-text scan first (the planner would otherwise walk the space's
/// pages and run the MATCH once per page).
pub async fn query(conn: &mut AnyConnection, space_ids: &[String], query: &Query, limit: i64) -> StoreResult<Vec<Hit>> {
    if query.is_empty() || space_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = match backend(conn) {
        Backend::Sqlite => {
            let mut sql = Sql::new(
                "SELECT p.space_id, p.page_id, p.title, p.headings, -bm25(search_terms, 8.0, 8.0, 3.0, 3.0, 1.0, 1.0) AS relevance \
                 FROM search_terms CROSS JOIN search_pages p \
                 WHERE p.id = search_terms.rowid AND search_terms MATCH ",
            );
            sql.bind(fts5_match(query));
            sql
        }
        Backend::Postgres => {
            let mut sql = Sql::new(
                "SELECT p.space_id, p.page_id, p.title, p.headings, \
                 CAST(ts_rank('{0.1, 0.2, 0.4, 1.0}', p.terms, q.query) AS DOUBLE PRECISION) AS relevance \
                 FROM search_pages p, (SELECT CAST(",
            );
            sql.bind(tsquery(query));
            sql.push(" AS tsquery) AS query) q WHERE p.terms @@ q.query");
            sql
        }
    };
    sql.push(" AND p.space_id IN (");
    for (i, id) in space_ids.iter().enumerate() {
        sql.push(if i == 0 { "" } else { ", " }).bind(id.clone());
    }
    sql.push(") ORDER BY relevance DESC, p.id LIMIT ").bind(limit);
    let rows = sql.fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            Ok(Hit {
                space_id: row.try_get("space_id")?,
                page_id: row.try_get("page_id")?,
                title: row.try_get("title")?,
                headings: row.try_get("headings")?,
                relevance: row.try_get("relevance")?,
            })
        })
        .collect()
}

/// Bytes of the search index (its tables and indexes), for the benchmark.
pub async fn index_bytes(conn: &mut AnyConnection) -> StoreResult<i64> {
    let sql = match backend(conn) {
        Backend::Sqlite => "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'search_%'",
        Backend::Postgres => "SELECT CAST(pg_total_relation_size('search_pages') AS BIGINT)",
    };
    Ok(sqlx::query_scalar(AssertSqlSafe(sql)).fetch_one(conn).await?)
}

// ---------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------

const STEM_COLUMNS: &str = "{title_stems heading_stems body_stems}";
const WORD_COLUMNS: &str = "{title_words heading_words body_words}";

/// An FTS5 MATCH expression. Terms hold only letters and digits, so quoting
/// them is enough to keep FTS5 syntax out.
fn fts5_match(query: &Query) -> String {
    fn clause(c: &Clause) -> String {
        match c {
            Clause::Stem(stem) => format!("{STEM_COLUMNS} : \"{stem}\""),
            Clause::Prefix(word) => format!("{WORD_COLUMNS} : \"{word}\"*"),
            Clause::Phrase(stems) => format!("{STEM_COLUMNS} : \"{}\"", stems.join(" ")),
            Clause::Any(options) => format!("({})", options.iter().map(clause).collect::<Vec<_>>().join(" OR ")),
        }
    }
    query.clauses.iter().map(clause).collect::<Vec<_>>().join(" AND ")
}

/// A quoted lexeme of a tsvector or tsquery literal.
fn lexeme(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "''"))
}

/// Raw words share the tsvector with stems, marked so the two never meet:
/// terms never hold `_`.
fn word_lexeme(word: &str) -> String {
    lexeme(&format!("_{word}"))
}

/// A tsquery literal (cast, not parsed by a text search configuration).
fn tsquery(query: &Query) -> String {
    fn clause(c: &Clause) -> String {
        match c {
            Clause::Stem(stem) => lexeme(stem),
            Clause::Prefix(word) => format!("{}:*", word_lexeme(word)),
            Clause::Phrase(stems) => format!(
                "({})",
                stems.iter().map(|s| lexeme(s)).collect::<Vec<_>>().join(" <-> ")
            ),
            Clause::Any(options) => format!("({})", options.iter().map(clause).collect::<Vec<_>>().join(" | ")),
        }
    }
    query.clauses.iter().map(clause).collect::<Vec<_>>().join(" & ")
}

/// A tsvector literal of several weighted fields, positions running on
/// from one field to the next (capped at PostgreSQL's 16,383): each term as
/// its stem and as its raw word, at the same position.
fn tsvector(fields: &[(&Analyzed, char)]) -> String {
    let mut out = String::new();
    let mut position = 0usize;
    for (analyzed, weight) in fields {
        for term in &analyzed.terms {
            position = (position + 1).min(16_383);
            for text in [lexeme(&term.stem), word_lexeme(&term.word)] {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(&text);
                out.push(':');
                out.push_str(&position.to_string());
                out.push(*weight);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_search::parse_query;

    #[test]
    fn fts5_expressions_quote_every_term() {
        let query = parse_query("\"merge conflict\" getSpaceById confi");
        assert_eq!(
            fts5_match(&query),
            "{title_stems heading_stems body_stems} : \"merg conflict\" AND \
             ({title_stems heading_stems body_stems} : \"getspacebyid\" OR \
             {title_stems heading_stems body_stems} : \"get space by id\") AND \
             ({title_stems heading_stems body_stems} : \"confi\" OR {title_words heading_words body_words} : \"confi\"*)"
        );
    }

    #[test]
    fn tsquery_and_tsvector_literals() {
        assert_eq!(tsquery(&parse_query("東京 confi")), "'東京' & ('confi' | '_confi':*)");
        let title = analyze("Running it");
        assert_eq!(tsvector(&[(&title, 'A')]), "'run':1A '_running':1A 'it':2A '_it':2A");
        assert_eq!(lexeme("it's"), "'it''s'");
    }
}
