//! Search: pages (with their matching sections) of one space, or of every
//! space of an organization the caller can read, ranked; and the job that
//! rebuilds a space's index.
//!
//! The store returns the best-matching sections by the backend's own
//! relevance (BM25 on SQLite, `ts_rank` on PostgreSQL, with the title
//! weighted over headings over body). Quire then ranks pages by tiers —
//! the exact title, all query words in the title, in a heading, in the body —
//! then an exact phrase of the query words above scattered words, then the
//! backend's relevance. Edit times play no part.

use std::collections::HashMap;
use std::sync::Arc;

use quire_core::Role;
use quire_engine::Snapshot;
use quire_search::{Clause, Query, analyze, fold, parse_query, snippet};
use quire_store::page::PageRequest;
use quire_store::search::{self, Hit};
use quire_store::spaces::{self, SpaceFilter, SpaceRow};
use quire_store::{Conn, Page};
use serde::{Deserialize, Serialize};

use crate::access::{self, OrgRoles};
use crate::error::{AppError, AppResult};
use crate::jobs::{Job, Registry};
use crate::{App, Caller};

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 512;
/// Sections fetched from the index per search, before ranking pages.
const CANDIDATES: i64 = 400;
/// Sections shown per page.
const SECTIONS_PER_PAGE: usize = 3;
/// Pages shown per space in an organization search.
const PAGES_PER_SPACE: usize = 5;
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
    let pages = ranked_pages(app, &mut conn, &[space], &query, text).await?;
    Ok(Page::of_list(pages, request))
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
    let candidates = spaces::list(&mut conn, org_id, &filter, &everything).await?.items;
    let roles = OrgRoles::load(&mut conn, org_id, org.role, caller.id()).await?;
    let readable: Vec<SpaceRow> = candidates
        .into_iter()
        .filter(|s| roles.for_space(s).is_some_and(|r| r.at_least(Role::Read)))
        .collect();
    let pages = ranked_pages(app, &mut conn, &readable, &query, text).await?;
    let mut by_space: Vec<SpaceResult> = Vec::new();
    for page in pages {
        match by_space.iter_mut().find(|s| s.space.id == page.space_id) {
            Some(result) => {
                if result.pages.len() < PAGES_PER_SPACE {
                    result.pages.push(page);
                }
            }
            None => {
                let Some(space) = readable.iter().find(|s| s.id == page.space_id) else {
                    continue;
                };
                by_space.push(SpaceResult {
                    space: space.clone(),
                    score: page.score,
                    pages: vec![page],
                });
            }
        }
    }
    Ok(Page::of_list(by_space, request))
}

/// How well a page matched, most significant first.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
struct Standing {
    /// 3: the title is the query; 2: every query word is in the title;
    /// 1: in a heading; 0: in the body.
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

/// The query's plain words as one phrase, when it has several and none is a
/// phrase or prefix already.
fn as_phrase(query: &Query) -> Option<Clause> {
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
    (stems.len() > 1).then_some(Clause::Phrase(stems))
}

fn matches(query: &Query, text: &str) -> bool {
    query.matches(&analyze(text))
}

fn has_phrase(phrase: &Clause, text: &str) -> bool {
    !phrase.matching_terms(&analyze(text)).is_empty()
}

/// The matching pages of these spaces, ranked, with their sections.
async fn ranked_pages(
    app: &App,
    conn: &mut Conn,
    spaces: &[SpaceRow],
    query: &Query,
    text: &str,
) -> AppResult<Vec<PageResult>> {
    if query.is_empty() || spaces.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = spaces.iter().map(|s| s.id.clone()).collect();
    let hits = search::query(conn, &ids, query, CANDIDATES).await?;
    let mut by_page: Vec<(String, String, Vec<Hit>)> = Vec::new();
    for hit in hits {
        match by_page
            .iter_mut()
            .find(|(s, p, _)| *s == hit.space_id && *p == hit.page_id)
        {
            Some((_, _, hits)) => hits.push(hit),
            None => by_page.push((hit.space_id.clone(), hit.page_id.clone(), vec![hit])),
        }
    }
    let exact = fold(text.trim().trim_matches('"').trim());
    let phrase = as_phrase(query);
    let mut snapshots: HashMap<String, Arc<Snapshot>> = HashMap::new();
    let mut results = Vec::with_capacity(by_page.len());
    for (space_id, page_id, hits) in by_page {
        let snapshot = match snapshots.get(&space_id) {
            Some(snapshot) => snapshot.clone(),
            None => {
                let Some(space) = spaces.iter().find(|s| s.id == space_id) else {
                    continue;
                };
                let snapshot = app.engine.revisions.snapshot(&space.id, &space.revision_id).await?;
                snapshots.insert(space_id.clone(), snapshot.clone());
                snapshot
            }
        };
        // The index follows every commit; a page missing here was removed
        // by a commit that landed after the query read the index.
        let Some(page) = snapshot.tree.pages.get(&page_id) else {
            continue;
        };
        let meta = &page.meta;
        let sections = match &meta.document {
            Some(hash) => app.engine.revisions.sections(hash).await?,
            None => Arc::new(Vec::new()),
        };
        let description = meta.description.clone().unwrap_or_default();
        let on_title = matches(query, &meta.title);
        let mut standing = Standing {
            tier: if fold(&meta.title) == exact {
                3
            } else if on_title {
                2
            } else {
                0
            },
            phrase: false,
            relevance: hits.iter().map(|h| h.relevance).fold(0.0, f64::max),
        };
        let mut shown = Vec::new();
        for hit in &hits {
            let (heading, body) = match &hit.anchor {
                Some(anchor) => match sections.iter().find(|s| s.anchor.as_deref() == Some(anchor.as_str())) {
                    Some(section) => (section.heading.clone(), section.text.clone()),
                    None => continue,
                },
                None => {
                    let intro = sections
                        .iter()
                        .find(|s| s.anchor.is_none())
                        .map(|s| s.text.as_str())
                        .unwrap_or("");
                    (String::new(), format!("{description}\n{intro}").trim().to_owned())
                }
            };
            let on_heading = !heading.is_empty() && matches(query, &heading);
            if on_heading {
                standing.tier = standing.tier.max(1);
            }
            if let Some(phrase) = &phrase
                && (has_phrase(phrase, &heading) || has_phrase(phrase, &body) || has_phrase(phrase, &meta.title))
            {
                standing.phrase = true;
            }
            let matched = on_heading || matches(query, &format!("{heading}\n{body}"));
            shown.push(SectionResult {
                title: if heading.is_empty() {
                    meta.title.clone()
                } else {
                    heading
                },
                anchor: hit.anchor.clone(),
                body: snippet(&body, query, SNIPPET_CHARS),
                score: hit.relevance,
                matched,
            });
        }
        // Sections that matched on their own text first; a title-only match
        // shows the page's opening.
        shown.sort_by(|a, b| b.matched.cmp(&a.matched).then(b.score.total_cmp(&a.score)));
        shown.truncate(SECTIONS_PER_PAGE);
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
        results.push(PageResult {
            space_id,
            path: snapshot.path_of(&page_id),
            page_id,
            title: meta.title.clone(),
            description,
            ancestors,
            score: standing.score(),
            rank: 0,
            on_title,
            sections: shown,
        });
    }
    results.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.title.cmp(&b.title)));
    for (i, result) in results.iter_mut().enumerate() {
        result.rank = i + 1;
    }
    Ok(results)
}

/// Rebuilds the search index of one space from its current content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReindexSpace {
    pub space_id: String,
}

impl Job for ReindexSpace {
    const KIND: &'static str = "reindex_space";

    async fn run(self, app: &App) -> anyhow::Result<()> {
        reindex_space(app, &self.space_id).await?;
        Ok(())
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
