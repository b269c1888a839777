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

use quire_search::{Analyzed, Clause, Query, TermKind, analyze, is_typo_word, one_edit_apart};
use std::collections::{HashMap, HashSet};

use sqlx::{AnyConnection, AssertSqlSafe, Connection, Row};

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
    /// The index row (stable until the page is re-indexed).
    pub row: i64,
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
    put_pages(conn, space_id, &[(page_id, page.clone())]).await
}

/// Rows written per statement when indexing many pages.
const ROWS_PER_STATEMENT: usize = 100;

/// Indexes pages of a space, replacing what the index held for them: one
/// delete and a few multi-row inserts, however many pages (an import of
/// thousands of pages makes a few dozen statements, not thousands).
pub async fn put_pages(conn: &mut AnyConnection, space_id: &str, pages: &[(&str, PageText<'_>)]) -> StoreResult<()> {
    if pages.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = pages.iter().map(|(id, _)| (*id).to_owned()).collect();
    remove_pages(conn, space_id, &ids).await?;
    let analyzed: Vec<(Analyzed, Analyzed, Analyzed)> = pages
        .iter()
        .map(|(_, page)| {
            (
                capped(page.title, MAX_TERMS.0),
                capped(page.headings, MAX_TERMS.1),
                capped(page.body, MAX_TERMS.2),
            )
        })
        .collect();
    put_words(conn, &analyzed).await?;
    match backend(conn) {
        Backend::Sqlite => {
            // Row ids are given, not returned, so both tables take many
            // rows a statement (SQLite has one writer: no one else adds rows
            // meanwhile).
            let next: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) + 1 FROM search_pages")
                .fetch_one(&mut *conn)
                .await?;
            for (chunk_index, chunk) in pages.chunks(ROWS_PER_STATEMENT).enumerate() {
                let first = next + (chunk_index * ROWS_PER_STATEMENT) as i64;
                let mut rows = Sql::new("INSERT INTO search_pages (id, space_id, page_id, title, headings) VALUES ");
                rows.not_kept();
                for (i, (page_id, page)) in chunk.iter().enumerate() {
                    rows.push(if i == 0 { "(" } else { ", (" })
                        .bind(first + i as i64)
                        .push(", ")
                        .bind(space_id.to_owned())
                        .push(", ")
                        .bind((*page_id).to_owned())
                        .push(", ")
                        .bind(page.title.to_owned())
                        .push(", ")
                        .bind(page.headings.to_owned())
                        .push(")");
                }
                rows.execute(&mut *conn).await?;
                let mut terms = Sql::new(
                    "INSERT INTO search_terms (rowid, title_stems, title_words, heading_stems, heading_words, \
                     body_stems, body_words) VALUES ",
                );
                terms.not_kept();
                for (i, (title, headings, body)) in analyzed
                    [chunk_index * ROWS_PER_STATEMENT..chunk_index * ROWS_PER_STATEMENT + chunk.len()]
                    .iter()
                    .enumerate()
                {
                    let ((ts, tw), (hs, hw), (bs, bw)) = (title.joined(), headings.joined(), body.joined());
                    terms.push(if i == 0 { "(" } else { ", (" }).bind(first + i as i64);
                    for value in [ts, tw, hs, hw, bs, bw] {
                        terms.push(", ").bind(value);
                    }
                    terms.push(")");
                }
                terms.execute(&mut *conn).await?;
            }
        }
        Backend::Postgres => {
            for (chunk_index, chunk) in pages.chunks(ROWS_PER_STATEMENT).enumerate() {
                let mut rows = Sql::new(
                    "INSERT INTO search_pages (space_id, page_id, title, headings, terms, rank_terms) VALUES ",
                );
                rows.not_kept();
                for (i, (page_id, page)) in chunk.iter().enumerate() {
                    let (title, headings, body) = &analyzed[chunk_index * ROWS_PER_STATEMENT + i];
                    let mut terms = tsvector(&[(title, 'A'), (headings, 'B'), (body, 'C')]);
                    let marks = title_lexemes(title, headings);
                    if !marks.is_empty() {
                        terms.push(' ');
                        terms.push_str(&marks);
                    }
                    terms.push(' ');
                    terms.push_str(&space_lexeme(space_id));
                    rows.push(if i == 0 { "(" } else { ", (" })
                        .bind(space_id.to_owned())
                        .push(", ")
                        .bind((*page_id).to_owned())
                        .push(", ")
                        .bind(page.title.to_owned())
                        .push(", ")
                        .bind(page.headings.to_owned())
                        .push(", CAST(")
                        .bind(terms)
                        .push(" AS tsvector), CAST(")
                        .bind(rank_tsvector(title, headings, body))
                        .push(" AS tsvector))");
                }
                rows.execute(&mut *conn).await?;
            }
        }
    }
    Ok(())
}

/// Words a statement adds to the vocabulary at most.
const WORDS_PER_STATEMENT: usize = 500;

/// Adds the typo-tolerance words of these pages to `search_words`.
async fn put_words(conn: &mut AnyConnection, analyzed: &[(Analyzed, Analyzed, Analyzed)]) -> StoreResult<()> {
    let mut words: Vec<&str> = analyzed
        .iter()
        .flat_map(|(title, headings, body)| title.terms.iter().chain(&headings.terms).chain(&body.terms))
        .filter(|t| t.kind == TermKind::Word && is_typo_word(&t.word))
        .map(|t| t.word.as_str())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    words.sort_unstable();
    for chunk in words.chunks(WORDS_PER_STATEMENT) {
        let mut sql = Sql::new("INSERT INTO search_words (word) VALUES ");
        sql.not_kept();
        for (i, word) in chunk.iter().enumerate() {
            sql.push(if i == 0 { "(" } else { ", (" })
                .bind((*word).to_owned())
                .push(")");
        }
        sql.push(" ON CONFLICT DO NOTHING");
        sql.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Known words one edit away from `word` (same first letter, at most
/// `limit` of them, nearest in length first).
pub async fn words_near(conn: &mut AnyConnection, word: &str, limit: usize) -> StoreResult<Vec<String>> {
    let Some(first) = word.chars().next() else {
        return Ok(Vec::new());
    };
    let length = word.chars().count() as i64;
    let mut sql = Sql::new("SELECT word FROM search_words WHERE word LIKE ");
    // Words hold letters only: nothing in them is a LIKE wildcard.
    sql.bind(format!("{first}%"))
        .push(" AND LENGTH(word) BETWEEN ")
        .bind(length - 1)
        .push(" AND ")
        .bind(length + 1);
    let rows = sql.fetch_all(conn).await?;
    let mut near: Vec<String> = rows
        .iter()
        .map(|row| row.try_get::<String, _>("word"))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|known| one_edit_apart(word, known))
        .collect();
    near.sort_by_key(|w| (w.chars().count().abs_diff(word.chars().count()), w.clone()));
    near.truncate(limit);
    Ok(near)
}

/// The revision the space's index holds when it stands behind the space's
/// current revision (see migration 0020), else `None`.
pub async fn lagging(conn: &mut AnyConnection, space_id: &str) -> StoreResult<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT indexed_revision FROM search_lag WHERE space_id = $1")
            .bind(space_id)
            .fetch_optional(conn)
            .await?,
    )
}

/// Records that the space's index holds `revision` (and not the space's
/// current revision).
pub async fn set_lagging(conn: &mut AnyConnection, space_id: &str, revision: &str) -> StoreResult<()> {
    sqlx::query("INSERT INTO search_lag (space_id, indexed_revision) VALUES ($1, $2)")
        .bind(space_id)
        .bind(revision)
        .execute(conn)
        .await?;
    Ok(())
}

/// Records that the space's index holds its current revision.
pub async fn clear_lagging(conn: &mut AnyConnection, space_id: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM search_lag WHERE space_id = $1")
        .bind(space_id)
        .execute(conn)
        .await?;
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
            sql.push(" AND page_id IN ").bind_list(pages);
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

/// Matching rows one part of a query scores at most (see [`query`]).
const SCORED_ROWS: i64 = 400;

/// Where a part of a query looks for its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fields {
    /// Title, headings and text.
    All,
    /// The title and the headings only.
    TitleAndHeadings,
}

/// The most relevant pages of these spaces matching the query, at most
/// `limit` of each of two parts: the pages whose title and headings hold
/// the query, and the pages that hold it anywhere. An empty query or no
/// space finds nothing.
///
/// Scoring is bounded: each part scores only the [`SCORED_ROWS`] most
/// recently indexed rows that match it, so a word found on every page of
/// a large space costs what a word on a few hundred pages costs (scoring
/// every match took ~25 ms for 10,000 pages). The title-and-headings part
/// keeps the pages that rank first (Quire's tiers) among the candidates
/// however many pages hold the word in their text. FTS5 walks a term's
/// rows newest first and stops at the bound; PostgreSQL's GIN index hands
/// over the matching row ids, of which the newest are ranked.
///
/// SQLite: the `CROSS JOIN` keeps the full-text scan first (the planner
/// would otherwise walk the space's pages and run the MATCH once per page).
///
/// PostgreSQL: the spaces are lexemes of the indexed vector, so the GIN
/// index alone finds the matching rows of those spaces without reading a
/// vector (a plain term query is exact in GIN), and relevance is computed
/// on the small `rank_terms` vector. The planner does not know what
/// reading a full vector costs and picks a sequential scan for frequent
/// words, hence `enable_seqscan` off for this one query.
pub async fn query(conn: &mut AnyConnection, space_ids: &[String], query: &Query, limit: i64) -> StoreResult<Vec<Hit>> {
    if query.is_empty() || space_ids.is_empty() {
        return Ok(Vec::new());
    }
    const PARTS: [Fields; 2] = [Fields::TitleAndHeadings, Fields::All];
    let mut rows = Vec::new();
    match backend(conn) {
        Backend::Sqlite => {
            for fields in PARTS {
                rows.extend(
                    sqlite_query(space_ids, query, fields, limit)
                        .fetch_all(&mut *conn)
                        .await?,
                );
            }
        }
        Backend::Postgres => {
            let mut tx = conn.begin().await?;
            sqlx::query("SET LOCAL enable_seqscan = off").execute(&mut *tx).await?;
            for fields in PARTS {
                rows.extend(
                    postgres_query(space_ids, query, fields, limit)
                        .fetch_all(&mut tx)
                        .await?,
                );
            }
            tx.commit().await?;
        }
    }
    // A page found by both parts counts once, as the first part found it.
    let mut seen = HashSet::new();
    let found: Vec<Hit> = hits(rows)?.into_iter().filter(|hit| seen.insert(hit.row)).collect();
    // The spaces are part of the match on both backends; checked once more
    // here, so no encoding slip can show a page of another space.
    Ok(found
        .into_iter()
        .filter(|hit| space_ids.contains(&hit.space_id))
        .collect())
}

/// The SQLite form of one part of [`query`]: FTS5 walks the matching rows
/// newest first, BM25 is computed for the first [`SCORED_ROWS`] of them in
/// the spaces, and those are ranked.
fn sqlite_query(space_ids: &[String], query: &Query, fields: Fields, limit: i64) -> Sql {
    let mut sql = Sql::new(
        "SELECT * FROM (SELECT p.id, p.space_id, p.page_id, p.title, p.headings, \
         -bm25(search_terms, 8.0, 8.0, 3.0, 3.0, 1.0, 1.0) AS relevance \
         FROM search_terms CROSS JOIN search_pages p \
         WHERE p.id = search_terms.rowid AND search_terms MATCH ",
    );
    sql.bind(fts5_match(query, fields));
    sql.push(" AND p.space_id IN ")
        .bind_list(space_ids)
        .push(" ORDER BY search_terms.rowid DESC LIMIT ")
        .bind(SCORED_ROWS)
        .push(") ORDER BY relevance DESC, id LIMIT ")
        .bind(limit);
    sql
}

/// Spaces a PostgreSQL query finds through their lexemes at most; beyond,
/// rows are filtered by space after the GIN scan (a union of many space
/// lexemes costs the index more than the filter: 20 ms for 100 spaces).
const SPACE_LEXEMES: usize = 8;
/// Rows a phrase is checked on at most: the most relevant of the scored
/// rows with all of its words (a phrase needs the positions of the full
/// vector, read per row at ~17 µs).
const PHRASE_ROWS: i64 = 200;

/// The PostgreSQL form of one part of [`query`]: candidates by the words
/// (and the spaces, as lexemes when few) through the GIN index, the
/// [`SCORED_ROWS`] newest of them ranked on `rank_terms`; phrases, when
/// the query has any, checked on the best [`PHRASE_ROWS`] of them.
/// `(space_id || '')` keeps the planner off the space index, and `id + 0`
/// off the primary key's order: either path reads the full vector of every
/// row it walks (150 ms over 20,000 rows).
fn postgres_query(space_ids: &[String], query: &Query, fields: Fields, limit: i64) -> Sql {
    let words = match fields {
        Fields::All => rank_tsquery(query),
        Fields::TitleAndHeadings => title_tsquery(query),
    };
    let has_phrase = tsquery(query) != rank_tsquery(query);
    let mut sql = Sql::new(if has_phrase { "SELECT c.* FROM (" } else { "" });
    sql.push(
        "SELECT m.id, m.space_id, m.page_id, m.title, m.headings, \
         CAST(ts_rank('{0.1, 0.2, 0.4, 1.0}', m.rank_terms, CAST(",
    );
    sql.bind(rank_tsquery(query));
    sql.push(
        " AS tsquery)) AS DOUBLE PRECISION) AS relevance FROM (\
         SELECT p.id, p.space_id, p.page_id, p.title, p.headings, p.rank_terms \
         FROM search_pages p WHERE p.terms @@ CAST(",
    );
    if space_ids.len() <= SPACE_LEXEMES {
        sql.bind(format!("({words}) & ({})", spaces_tsquery(space_ids)));
        sql.push(" AS tsquery)");
    } else {
        sql.bind(words);
        sql.push(" AS tsquery) AND (p.space_id || '') IN ").bind_list(space_ids);
    }
    sql.push(" ORDER BY p.id + 0 DESC LIMIT ").bind(SCORED_ROWS);
    sql.push(") m ORDER BY relevance DESC, m.id LIMIT ");
    if !has_phrase {
        sql.bind(limit);
        return sql;
    }
    sql.bind(PHRASE_ROWS);
    sql.push(") c JOIN search_pages full_row ON full_row.id = c.id WHERE full_row.terms @@ CAST(");
    sql.bind(tsquery(query));
    sql.push(" AS tsquery) ORDER BY c.relevance DESC, c.id LIMIT ")
        .bind(limit);
    sql
}

fn hits(rows: Vec<sqlx::any::AnyRow>) -> StoreResult<Vec<Hit>> {
    rows.iter()
        .map(|row| {
            Ok(Hit {
                row: row.try_get("id")?,
                space_id: row.try_get("space_id")?,
                page_id: row.try_get("page_id")?,
                title: row.try_get("title")?,
                headings: row.try_get("headings")?,
                relevance: row.try_get("relevance")?,
            })
        })
        .collect()
}

/// The hits (of one `query` answer over these spaces) that also match
/// `phrase`: only those rows are checked (FTS5 seeks each row id in the
/// phrase's terms; PostgreSQL reads each row's full vector for the
/// positions).
pub async fn phrase_hits(
    conn: &mut AnyConnection,
    space_ids: &[String],
    hits: &[Hit],
    phrase: &Query,
) -> StoreResult<HashSet<i64>> {
    if hits.is_empty() || phrase.is_empty() || space_ids.is_empty() {
        return Ok(HashSet::new());
    }
    let mut sql = match backend(conn) {
        Backend::Sqlite => {
            let mut sql = Sql::new("SELECT rowid AS id FROM search_terms WHERE search_terms MATCH ");
            sql.bind(fts5_match(phrase, Fields::All));
            sql.push(" AND rowid IN ");
            sql
        }
        Backend::Postgres => {
            let mut sql = Sql::new("SELECT id FROM search_pages WHERE terms @@ CAST(");
            sql.bind(tsquery(phrase));
            sql.push(" AS tsquery) AND id IN ");
            sql
        }
    };
    let hit_rows: Vec<i64> = hits.iter().map(|hit| hit.row).collect();
    sql.bind_list(&hit_rows);
    let rows = sql.fetch_all(conn).await?;
    rows.iter().map(|row| Ok(row.try_get("id")?)).collect()
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

/// An FTS5 MATCH expression over these fields. Terms hold only letters and
/// digits, so quoting them is enough to keep FTS5 syntax out.
fn fts5_match(query: &Query, fields: Fields) -> String {
    let (stems, words) = match fields {
        Fields::All => (
            "{title_stems heading_stems body_stems}",
            "{title_words heading_words body_words}",
        ),
        Fields::TitleAndHeadings => ("{title_stems heading_stems}", "{title_words heading_words}"),
    };
    let clause = |c: &Clause| -> String {
        fn one(c: &Clause, stems: &str, words: &str) -> String {
            match c {
                Clause::Stem(stem) => format!("{stems} : \"{stem}\""),
                Clause::Prefix(word) => format!("{words} : \"{word}\"*"),
                Clause::Phrase(parts) => format!("{stems} : \"{}\"", parts.join(" ")),
                Clause::Any(options) => format!(
                    "({})",
                    options
                        .iter()
                        .map(|o| one(o, stems, words))
                        .collect::<Vec<_>>()
                        .join(" OR ")
                ),
            }
        }
        one(c, stems, words)
    };
    query.clauses.iter().map(clause).collect::<Vec<_>>().join(" AND ")
}

/// A quoted lexeme of a tsvector or tsquery literal.
fn lexeme(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "''"))
}

/// Raw words share the tsvector with stems, marked so the two never meet:
/// terms never hold `_`. A word equal to its stem is kept once, as the
/// stem; so a word prefix is looked up among both.
fn word_lexeme(word: &str) -> String {
    lexeme(&format!("_{word}"))
}

/// A tsquery literal (cast, not parsed by a text search configuration).
fn tsquery(query: &Query) -> String {
    fn clause(c: &Clause) -> String {
        match c {
            Clause::Stem(stem) => lexeme(stem),
            Clause::Prefix(word) => format!("({}:* | {}:*)", lexeme(word), word_lexeme(word)),
            Clause::Phrase(stems) => format!(
                "({})",
                stems.iter().map(|s| lexeme(s)).collect::<Vec<_>>().join(" <-> ")
            ),
            Clause::Any(options) => format!("({})", options.iter().map(clause).collect::<Vec<_>>().join(" | ")),
        }
    }
    query.clauses.iter().map(clause).collect::<Vec<_>>().join(" & ")
}

/// A rank query: the query with phrases as plain conjunctions (the rank
/// vector keeps no real positions).
fn rank_tsquery(query: &Query) -> String {
    tsquery(query).replace(" <-> ", " & ")
}

/// The query's words among the title and heading terms (their `^` lexemes,
/// see [`title_lexemes`]); phrases as plain conjunctions, checked on the
/// full vector like any phrase.
fn title_tsquery(query: &Query) -> String {
    fn clause(c: &Clause) -> String {
        match c {
            Clause::Stem(stem) => lexeme(&format!("^{stem}")),
            Clause::Prefix(word) => format!(
                "({}:* | {}:*)",
                lexeme(&format!("^{word}")),
                lexeme(&format!("^_{word}"))
            ),
            Clause::Phrase(stems) => format!(
                "({})",
                stems
                    .iter()
                    .map(|s| lexeme(&format!("^{s}")))
                    .collect::<Vec<_>>()
                    .join(" & ")
            ),
            Clause::Any(options) => format!("({})", options.iter().map(clause).collect::<Vec<_>>().join(" | ")),
        }
    }
    query.clauses.iter().map(clause).collect::<Vec<_>>().join(" & ")
}

/// The lexemes that say a term stands in the title or a heading: each
/// stem, and each raw word that differs from it, marked `^` (terms never
/// hold it), once and without positions.
fn title_lexemes(title: &Analyzed, headings: &Analyzed) -> String {
    let mut seen: HashSet<String> = HashSet::new();
    for term in title.terms.iter().chain(&headings.terms) {
        seen.insert(format!("^{}", term.stem));
        if term.word != term.stem {
            seen.insert(format!("^_{}", term.word));
        }
    }
    let mut lexemes: Vec<String> = seen.into_iter().map(|l| lexeme(&l)).collect();
    lexemes.sort_unstable();
    lexemes.join(" ")
}

/// The lexeme that puts a row in its space (terms never hold `~`).
fn space_lexeme(space_id: &str) -> String {
    lexeme(&format!("~{space_id}"))
}

/// Any of these spaces.
fn spaces_tsquery(space_ids: &[String]) -> String {
    space_ids
        .iter()
        .map(|id| space_lexeme(id))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Title, heading and distinct text terms the rank vector keeps at most.
const RANK_TERMS: (usize, usize, usize) = (32, 64, 16);
/// Occurrences of one text term the rank vector counts at most.
const RANK_OCCURRENCES: usize = 4;

/// The small vector relevance is computed on (a few hundred bytes, kept in
/// the row): the first title terms (A) and heading terms (B), stems and
/// raw words, and the stems of the text's most frequent terms (C) with as
/// many positions as occurrences (up to 4), so `ts_rank` weighs where a
/// word is and how often it is used without reading the full vector.
fn rank_tsvector(title: &Analyzed, headings: &Analyzed, body: &Analyzed) -> String {
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, term) in body.terms.iter().enumerate() {
        counts.entry(&term.stem).or_insert((0, i)).0 += 1;
    }
    let mut frequent: Vec<_> = counts.into_iter().collect();
    frequent.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
    let mut out: Vec<String> = Vec::new();
    let mut position = 0usize;
    for (analyzed, weight, max) in [(title, 'A', RANK_TERMS.0), (headings, 'B', RANK_TERMS.1)] {
        for term in analyzed.terms.iter().take(max) {
            position += 1;
            out.push(format!("{}:{position}{weight}", lexeme(&term.stem)));
            if term.word != term.stem {
                out.push(format!("{}:{position}{weight}", word_lexeme(&term.word)));
            }
        }
    }
    for (stem, (count, _)) in frequent.into_iter().take(RANK_TERMS.2) {
        let positions: Vec<String> = (0..count.min(RANK_OCCURRENCES))
            .map(|_| {
                position += 1;
                format!("{position}C")
            })
            .collect();
        out.push(format!("{}:{}", lexeme(stem), positions.join(",")));
    }
    out.join(" ")
}

/// A tsvector literal of several weighted fields: each term's stem at its
/// position (positions running on from one field to the next, capped at
/// PostgreSQL's 16,383; phrases need them), and each raw word that differs
/// from its stem once, without positions (word prefixes only ask whether a
/// row holds it; ranking reads `rank_terms`).
fn tsvector(fields: &[(&Analyzed, char)]) -> String {
    let mut out = String::new();
    let mut words: HashSet<&str> = HashSet::new();
    let mut position = 0usize;
    for (analyzed, weight) in fields {
        for term in &analyzed.terms {
            position = (position + 1).min(16_383);
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&lexeme(&term.stem));
            out.push(':');
            out.push_str(&position.to_string());
            out.push(*weight);
            if term.word != term.stem && words.insert(&term.word) {
                out.push(' ');
                out.push_str(&word_lexeme(&term.word));
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
            fts5_match(&query, Fields::All),
            "{title_stems heading_stems body_stems} : \"merg conflict\" AND \
             ({title_stems heading_stems body_stems} : \"getspacebyid\" OR \
             {title_stems heading_stems body_stems} : \"get space by id\") AND \
             ({title_stems heading_stems body_stems} : \"confi\" OR {title_words heading_words body_words} : \"confi\"*)"
        );
    }

    #[test]
    fn tsquery_and_tsvector_literals() {
        assert_eq!(
            tsquery(&parse_query("東京 confi")),
            "'東京' & ('confi' | ('confi':* | '_confi':*))"
        );
        let title = analyze("Running it, running");
        assert_eq!(tsvector(&[(&title, 'A')]), "'run':1A '_running' 'it':2A 'run':3A");
        assert_eq!(lexeme("it's"), "'it''s'");
    }

    #[test]
    fn spaces_and_ranks_are_lexemes_of_their_own() {
        assert_eq!(spaces_tsquery(&["aB1".into(), "c2".into()]), "'~aB1' | '~c2'");
        assert_eq!(
            rank_tsquery(&parse_query("\"merge conflict\"")),
            "('merg' & 'conflict')"
        );
        let (title, headings, body) = (analyze("Deploy"), analyze("Setup"), analyze("run run run fast"));
        assert_eq!(
            rank_tsvector(&title, &headings, &body),
            "'deploy':1A 'setup':2B 'run':3C,4C,5C 'fast':6C"
        );
    }
}
