//! Search: pages (with their matching sections) of one space, or of every
//! space of an organization the caller can read, ranked; and the job that
//! rebuilds a space's index.
//!
//! The store returns the best-matching pages by the backend's own
//! relevance (BM25 on SQLite, `ts_rank` on PostgreSQL, with the title
//! weighted over headings over body). Quire then ranks pages by tiers —
//! the exact title, all query words in the title, in a heading, in the body —
//! then an exact phrase of the query words above scattered words, then the
//! backend's relevance. Edit times play no part.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use quire_core::Role;
use quire_engine::Snapshot;
use quire_search::{Clause, Query, analyze, fold, parse_query, snippet, typo_words, with_corrections};
use quire_store::page::PageRequest;
use quire_store::search;
use quire_store::spaces::{self, SpaceFilter, SpaceRow};
use quire_store::{Conn, Page};
use serde::{Deserialize, Serialize};

use crate::access::{self, OrgRoles};
use crate::error::{AppError, AppResult};
use crate::jobs::{Job, Registry};
use crate::{App, Caller};

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 512;
/// Pages fetched from the index per search, before Quire ranks them.
const CANDIDATES: i64 = 200;
/// Sections shown per page.
const SECTIONS_PER_PAGE: usize = 3;
/// Pages shown per space in an organization search.
const PAGES_PER_SPACE: usize = 3;
/// Characters of a section body shown around the match.
const SNIPPET_CHARS: usize = 200;

/// A matching section of a page.
#[derive(Debug, Clone)]
pub struct SectionResult {
    /// The heading's anchor; `None` for the page's own text.
    pub anchor: Option<String>,
    pub title: String,
    /// The matched words in context.
    pub body: String,
    pub score: f64,
    /// True when the section matched on its own text, not only through
    /// its page's title.
    pub matched: bool,
}

/// A matching page.
#[derive(Debug, Clone)]
pub struct PageResult {
    pub space_id: String,
    pub page_id: String,
    pub title: String,
    pub description: String,
    /// Slug path of the page in its space.
    pub path: String,
    /// Titles of the ancestors, top-level first.
    pub ancestors: Vec<String>,
    pub score: f64,
    /// One-based place in the whole ranked result.
    pub rank: usize,
    /// True when the page matched on its title.
    pub on_title: bool,
    pub sections: Vec<SectionResult>,
}

/// A space with its matching pages (organization search).
#[derive(Debug, Clone)]
pub struct SpaceResult {
    pub space: SpaceRow,
    pub score: f64,
    pub pages: Vec<PageResult>,
}

fn checked_query(text: &str) -> AppResult<Query> {
    let chars = text.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(AppError::invalid(format!(
            "query must be at most {MAX_QUERY_CHARS} characters (got {chars})"
        )));
    }
    Ok(parse_query(text))
}

/// The pages of a space matching `query`, best first.
pub async fn in_space(
    app: &App,
    caller: &Caller,
    space_id: &str,
    text: &str,
    request: &PageRequest,
) -> AppResult<Page<PageResult>> {
    let query = checked_query(text)?;
    let mut conn = app.db.read().await?;
    let (space, _) = access::space_with_role(&mut conn, caller, space_id, Role::Read, "search it").await?;
    let spaces = [space];
    let (ranked, query) = forgiving(&mut conn, &spaces, query, text).await?;
    drop(conn);
    let window = Page::of_list(ranked, request);
    let mut snapshots = HashMap::new();
    let mut items = Vec::with_capacity(window.items.len());
    for candidate in window.items {
        items.extend(details(app, &spaces, &mut snapshots, candidate, &query).await?);
    }
    Ok(Page {
        items,
        next: window.next,
        total: window.total,
    })
}

/// The best `limit` pages of a space for a visitor of a published site
/// (who was admitted by the site's audience, not by a role): the same
/// ranking and sections as [`in_space`], and the query that found them
/// (with a typo forgiven, it matches more than the text says).
pub async fn in_published_space(
    app: &App,
    space: &SpaceRow,
    text: &str,
    limit: u32,
) -> AppResult<(Vec<PageResult>, Query)> {
    in_published_spaces(app, std::slice::from_ref(space), text, limit).await
}

/// [`in_published_space`] over several spaces of one site at once (its
/// sections and variants), ranked together.
pub async fn in_published_spaces(
    app: &App,
    spaces: &[SpaceRow],
    text: &str,
    limit: u32,
) -> AppResult<(Vec<PageResult>, Query)> {
    let query = checked_query(text)?;
    let mut conn = app.db.read().await?;
    let (ranked, query) = forgiving(&mut conn, spaces, query, text).await?;
    drop(conn);
    let mut snapshots = HashMap::new();
    let mut items = Vec::new();
    for candidate in ranked.into_iter().take(limit as usize) {
        items.extend(details(app, spaces, &mut snapshots, candidate, &query).await?);
    }
    Ok((items, query))
}

/// The spaces of an organization the caller can read that hold pages
/// matching `query`, each with its best pages, best space first.
pub async fn in_org(
    app: &App,
    caller: &Caller,
    org_id: &str,
    text: &str,
    request: &PageRequest,
) -> AppResult<Page<SpaceResult>> {
    let query = checked_query(text)?;
    let mut conn = app.db.read().await?;
    let org = access::org(&mut conn, caller, org_id).await?;
    let filter = SpaceFilter {
        parent: None,
        granted_to: org.is_guest().then(|| caller.id().to_owned()),
    };
    let everything = PageRequest {
        after: None,
        limit: 1_000_000,
        descending: false,
    };
    let candidates_spaces = spaces::list(&mut conn, org_id, &filter, &everything).await?.items;
    let roles = OrgRoles::load(&mut conn, org_id, org.role, caller.id()).await?;
    let readable: Vec<SpaceRow> = candidates_spaces
        .into_iter()
        .filter(|s| roles.for_space(s).is_some_and(|r| r.at_least(Role::Read)))
        .collect();
    let (ranked, query) = forgiving(&mut conn, &readable, query, text).await?;
    drop(conn);
    let mut by_space: Vec<(SpaceRow, f64, Vec<Candidate>)> = Vec::new();
    for candidate in ranked {
        match by_space.iter_mut().find(|(space, _, _)| space.id == candidate.space_id) {
            Some((_, _, pages)) => {
                if pages.len() < PAGES_PER_SPACE {
                    pages.push(candidate);
                }
            }
            None => {
                let Some(space) = readable.iter().find(|s| s.id == candidate.space_id) else {
                    continue;
                };
                by_space.push((space.clone(), candidate.standing.score(), vec![candidate]));
            }
        }
    }
    let window = Page::of_list(by_space, request);
    let mut snapshots = HashMap::new();
    let mut items = Vec::with_capacity(window.items.len());
    for (space, score, pages) in window.items {
        let mut shown = Vec::with_capacity(pages.len());
        for candidate in pages {
            shown.extend(details(app, &readable, &mut snapshots, candidate, &query).await?);
        }
        items.push(SpaceResult {
            space,
            score,
            pages: shown,
        });
    }
    Ok(Page {
        items,
        next: window.next,
        total: window.total,
    })
}

/// How well a page matched, most significant first.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
struct Standing {
    /// 3: the title is the query; 2: every query word is in the title;
    /// 1: in a heading; 0: in the text.
    tier: u8,
    /// The query's words appear as a phrase somewhere.
    phrase: bool,
    relevance: f64,
}

impl Standing {
    fn score(self) -> f64 {
        f64::from(self.tier) * 100.0
            + if self.phrase { 20.0 } else { 0.0 }
            + 10.0 * self.relevance / (1.0 + self.relevance)
    }
}

/// A matching page, ranked, before its sections are cut for display.
struct Candidate {
    space_id: String,
    page_id: String,
    standing: Standing,
    rank: usize,
}

/// The query's plain words as one phrase, when it has several and none is a
/// phrase or prefix already.
fn as_phrase(query: &Query) -> Option<Query> {
    let mut stems = Vec::new();
    for clause in &query.clauses {
        match clause {
            Clause::Stem(stem) => stems.push(stem.clone()),
            Clause::Any(options) => match options.first() {
                Some(Clause::Stem(stem)) => stems.push(stem.clone()),
                _ => return None,
            },
            _ => return None,
        }
    }
    (stems.len() > 1).then(|| Query {
        clauses: vec![Clause::Phrase(stems)],
    })
}

fn matches(query: &Query, text: &str) -> bool {
    query.matches(&analyze(text))
}

/// Known words offered for each query word a typo may hide in.
const CORRECTIONS_PER_WORD: usize = 3;

/// The ranked matches of `query`; when there are none, those of the query
/// with one typo forgiven in each longer word (`configuraton` finds
/// `configuration`), and the query that found them (snippets mark what it
/// matched).
async fn forgiving(
    conn: &mut Conn,
    spaces: &[SpaceRow],
    query: Query,
    text: &str,
) -> AppResult<(Vec<Candidate>, Query)> {
    let found = candidates(conn, spaces, &query, text).await?;
    if !found.is_empty() || spaces.is_empty() {
        return Ok((found, query));
    }
    let mut corrections = Vec::new();
    for word in typo_words(text) {
        let near = search::words_near(conn, &word, CORRECTIONS_PER_WORD).await?;
        if !near.is_empty() {
            corrections.push((word, near));
        }
    }
    if corrections.is_empty() {
        return Ok((found, query));
    }
    let widened = with_corrections(&query, &corrections);
    Ok((candidates(conn, spaces, &widened, text).await?, widened))
}

/// The matching pages of these spaces, ranked: by tier (exact title, title
/// words, a heading, the text), then an exact phrase of the query's words,
/// then the index's relevance.
async fn candidates(conn: &mut Conn, spaces: &[SpaceRow], query: &Query, text: &str) -> AppResult<Vec<Candidate>> {
    if query.is_empty() || spaces.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = spaces.iter().map(|s| s.id.clone()).collect();
    let hits = search::query(conn, &ids, query, CANDIDATES).await?;
    let with_phrase: HashSet<i64> = match as_phrase(query) {
        Some(phrase) => search::phrase_hits(conn, &ids, &hits, &phrase).await?,
        None => HashSet::new(),
    };
    let exact = fold(text.trim().trim_matches('"').trim());
    let mut ranked = Vec::with_capacity(hits.len());
    for hit in hits {
        let tier = if fold(&hit.title) == exact {
            3
        } else if matches(query, &hit.title) {
            2
        } else {
            u8::from(hit.headings.lines().any(|heading| matches(query, heading)))
        };
        let phrase = with_phrase.contains(&hit.row);
        ranked.push(Candidate {
            standing: Standing {
                tier,
                phrase,
                relevance: hit.relevance,
            },
            space_id: hit.space_id,
            page_id: hit.page_id,
            rank: 0,
        });
    }
    ranked.sort_by(|a, b| {
        b.standing
            .score()
            .total_cmp(&a.standing.score())
            .then_with(|| a.page_id.cmp(&b.page_id))
    });
    for (i, candidate) in ranked.iter_mut().enumerate() {
        candidate.rank = i + 1;
    }
    Ok(ranked)
}

/// A ranked page with what its result shows: the sections that match (a
/// title-only match shows the page's opening) with the matched words in
/// context, its path and ancestors. `None` for a page a commit removed
/// after the index was read.
async fn details(
    app: &App,
    spaces: &[SpaceRow],
    snapshots: &mut HashMap<String, Arc<Snapshot>>,
    candidate: Candidate,
    query: &Query,
) -> AppResult<Option<PageResult>> {
    let snapshot = match snapshots.get(&candidate.space_id) {
        Some(snapshot) => snapshot.clone(),
        None => {
            let Some(space) = spaces.iter().find(|s| s.id == candidate.space_id) else {
                return Ok(None);
            };
            let snapshot = app.engine.revisions.snapshot(&space.id, &space.revision_id).await?;
            snapshots.insert(space.id.clone(), snapshot.clone());
            snapshot
        }
    };
    let Some(page) = snapshot.tree.pages.get(&candidate.page_id) else {
        return Ok(None);
    };
    let meta = &page.meta;
    let sections = match &meta.document {
        Some(hash) => app.engine.revisions.sections(hash).await?,
        None => Arc::new(Vec::new()),
    };
    let description = meta.description.clone().unwrap_or_default();
    let mut shown: Vec<SectionResult> = sections
        .iter()
        .filter(|s| matches(query, &format!("{}\n{}", s.heading, s.text)))
        .take(SECTIONS_PER_PAGE)
        .map(|s| SectionResult {
            anchor: s.anchor.clone(),
            title: if s.heading.is_empty() {
                meta.title.clone()
            } else {
                s.heading.clone()
            },
            body: snippet(&s.text, query, SNIPPET_CHARS),
            score: candidate.standing.score(),
            matched: true,
        })
        .collect();
    if shown.is_empty() {
        let opening = sections.first().map(|s| s.text.as_str()).unwrap_or_default();
        shown.push(SectionResult {
            anchor: None,
            title: meta.title.clone(),
            body: snippet(
                if opening.is_empty() { &description } else { opening },
                query,
                SNIPPET_CHARS,
            ),
            score: candidate.standing.score(),
            matched: false,
        });
    }
    let mut ancestors = Vec::new();
    let mut parent = page.parent.clone();
    while let Some(id) = parent {
        let Some(p) = snapshot.tree.pages.get(&id) else { break };
        ancestors.push(p.meta.title.clone());
        parent = p.parent.clone();
        if ancestors.len() > snapshot.tree.pages.len() {
            break;
        }
    }
    ancestors.reverse();
    Ok(Some(PageResult {
        path: snapshot.path_of(&candidate.page_id),
        space_id: candidate.space_id,
        title: meta.title.clone(),
        description,
        ancestors,
        score: candidate.standing.score(),
        rank: candidate.rank,
        on_title: candidate.standing.tier >= 2,
        sections: shown,
        page_id: candidate.page_id,
    }))
}

/// Rebuilds the search index of one space from its current content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReindexSpace {
    pub space_id: String,
}

impl Job for ReindexSpace {
    const KIND: &'static str = "reindex_space";
    /// Indexing is bookkeeping, not a change of anyone's.
    const AUDITED: bool = false;

    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        reindex_space(app, &self.space_id).await?;
        Ok(None)
    }
}

/// Rebuilds the index of a space (a deleted or purged one is left alone);
/// returns the pages indexed.
pub async fn reindex_space(app: &App, space_id: &str) -> AppResult<usize> {
    loop {
        let space = {
            let mut conn = app.db.read().await?;
            match spaces::get_any(&mut conn, space_id).await {
                Ok(space) if space.deleted_at.is_none() => space,
                Ok(_) | Err(quire_store::StoreError::NotFound) => return Ok(0),
                Err(err) => return Err(err.into()),
            }
        };
        let snapshot = app.engine.revisions.snapshot(&space.id, &space.revision_id).await?;
        let mut tx = app.db.write().await?;
        // Holds the space's row until commit, so no merge moves its content
        // (and its index) while the whole index is rewritten.
        if !spaces::lock_at_revision(&mut tx, &space.id, &space.revision_id).await? {
            continue;
        }
        let pages = quire_engine::search::reindex(&app.engine.revisions, &mut tx, &snapshot).await?;
        tx.commit().await?;
        return Ok(pages);
    }
}

/// Rebuilds the index of every live space; returns (spaces, pages).
pub async fn reindex_all(app: &App) -> AppResult<(usize, usize)> {
    let ids: Vec<String> = {
        let mut conn = app.db.read().await?;
        spaces::live_ids(&mut conn).await?
    };
    let mut pages = 0;
    for id in &ids {
        pages += reindex_space(app, id).await?;
    }
    Ok((ids.len(), pages))
}

/// The job types of this area.
pub fn register_jobs(registry: &mut Registry) {
    registry.register::<ReindexSpace>();
}
