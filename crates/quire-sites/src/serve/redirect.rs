//! Redirects on the published site: the site's own ([`follow`], before
//! anything of the site is looked up), and the URLs that name a page
//! otherwise than its canonical URL does ([`by_case`]; a page path with a
//! trailing slash is `page`'s).
//!
//! The site's live redirects are kept per site in memory ([`RedirectCache`]),
//! loaded on the first request that needs them and dropped, for every
//! site, whenever the bus says published output may have changed (a write
//! of redirects is a write under `/v1/orgs/{id}/sites`, which announces
//! `published.changed`); a site without redirects costs one lookup in
//! memory. Redirect answers carry `Location`, so they are never kept
//! among the published answers.

use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

use quire_core::SiteVisibility;
use quire_store::bus::Heard;

use super::*;
use crate::redirects::{Destination, Rules};

/// The live redirects of sites, by site id.
pub(super) struct RedirectCache {
    rules: Cache<String, Arc<Rules>>,
    /// Changes heard so far; rules loaded while one was heard are not kept.
    generation: AtomicU64,
    listening: Once,
}

impl RedirectCache {
    /// A cache of at most `bytes` whose size the metrics report.
    pub(super) fn watched(bytes: u64) -> Arc<RedirectCache> {
        let cache = Arc::new(RedirectCache {
            rules: Cache::builder()
                .max_capacity(bytes)
                .weigher(|site: &String, rules: &Arc<Rules>| {
                    let bytes = site.len()
                        + rules.weight()
                        + quire_core::memory::arc_bytes::<Rules>()
                        + quire_core::memory::CACHE_ENTRY_OVERHEAD;
                    u32::try_from(bytes).unwrap_or(u32::MAX)
                })
                .build(),
            generation: AtomicU64::new(0),
            listening: Once::new(),
        });
        quire_metrics::watch_caches(&cache, |cache| {
            vec![("site_redirects", cache.rules.entry_count(), cache.rules.weighted_size())]
        });
        cache
    }

    /// Starts following the bus (once per node, on the first request).
    fn listen(self: &Arc<Self>, app: &App) {
        self.listening.call_once(|| {
            app.db.bus().follow(self, |cache, heard| match heard {
                Heard::Message(message) if message.topic != quire_app::changes::PUBLISHED_CHANGED => {}
                Heard::Message(_) | Heard::Missed => {
                    cache.generation.fetch_add(1, Ordering::SeqCst);
                    cache.rules.invalidate_all();
                }
            })
        });
    }

    /// The live redirects of a site.
    pub(super) async fn of(self: &Arc<Self>, app: &App, site_id: &str) -> quire_app::AppResult<Arc<Rules>> {
        self.listen(app);
        if let Some(rules) = self.rules.get(site_id) {
            return Ok(rules);
        }
        let generation = self.generation.load(Ordering::SeqCst);
        let rows = {
            let mut conn = app.db.read().await?;
            quire_store::site_redirects::live(&mut conn, site_id).await?
        };
        let rules = Arc::new(Rules::new(&rows));
        if self.generation.load(Ordering::SeqCst) == generation {
            self.rules.insert(site_id.to_owned(), rules.clone());
        }
        Ok(rules)
    }
}

/// A redirect to `location` (already percent-encoded), with the request's
/// query when the location has none.
pub(super) fn moved(status: StatusCode, location: &str, uri: &Uri) -> Response {
    let location = match uri.query().filter(|q| !q.is_empty()) {
        Some(query) if !location.contains('?') => match location.split_once('#') {
            Some((before, fragment)) => format!("{before}?{query}#{fragment}"),
            None => format!("{location}?{query}"),
        },
        _ => location.to_owned(),
    };
    let mut res = status.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        res.headers_mut().insert(header::LOCATION, value);
    }
    res
}

/// Whether `location` names the path the request asked for (a redirect
/// there would loop).
fn same_path(location: &str, uri: &Uri) -> bool {
    let path = location.split(['?', '#']).next().unwrap_or_default();
    percent_decode(path).trim_end_matches('/') == percent_decode(uri.path()).trim_end_matches('/')
}

/// The answer of the site's live redirect that `rest` (the path inside the
/// site) follows, if one does and its destination is there for this
/// visitor: 308 for a permanent redirect of a site open to everyone, 307
/// otherwise (the official rule: permanent for public live traffic).
pub(super) async fn follow(
    state: &SiteState,
    visit: &Visit,
    rest: &[String],
    uri: &Uri,
) -> quire_app::AppResult<Option<Response>> {
    if rest.is_empty() {
        return Ok(None);
    }
    let rules = state.redirects.of(&state.app, &visit.site.site.id).await?;
    if rules.is_empty() {
        return Ok(None);
    }
    let path = rest.join("/");
    let Some((rule, matched)) = rules.find(&path) else {
        return Ok(None);
    };
    let Some(target) = destination_url(state, visit, &rule.destination).await? else {
        return Ok(None);
    };
    let location = rule.target(&target, matched);
    if same_path(&location, uri) {
        return Ok(None);
    }
    let public = matches!(
        visit.site.site.visibility,
        SiteVisibility::Public | SiteVisibility::Unlisted
    );
    let status = if rule.permanent && public {
        StatusCode::PERMANENT_REDIRECT
    } else {
        StatusCode::TEMPORARY_REDIRECT
    };
    Ok(Some(moved(status, &location, uri)))
}

/// Where a destination is for this visitor (percent-encoded): a section,
/// site space or page of the site they may see, or the external URL.
async fn destination_url(
    state: &SiteState,
    visit: &Visit,
    destination: &Destination,
) -> quire_app::AppResult<Option<String>> {
    let site_space = |id: &str| {
        visit
            .site
            .spaces()
            .into_iter()
            .find(|(_, space)| space.site_space.id == id)
    };
    Ok(match destination {
        Destination::External { url } => Some(url.clone()),
        Destination::Section { site_section_id } => visit
            .site
            .sections
            .iter()
            .find(|s| &s.section.id == site_section_id)
            .map(|s| match s.default {
                true => format!("{}/", visit.base),
                false => format!("{}/{}/", visit.base, s.section.path),
            })
            .map(|url| encode_uri(&url)),
        Destination::SiteSpace { site_space_id } => site_space(site_space_id)
            .map(|(section, space)| encode_uri(&format!("{}/", space_url(&visit.base, section, space)))),
        Destination::Page { site_space_id, page_id } => {
            let Some((section, space)) = site_space(site_space_id) else {
                return Ok(None);
            };
            let snapshot = published::snapshot(&state.app, &space.space).await?;
            let order = reading_order(state, &snapshot);
            let withheld = visit.withheld(&order);
            if !snapshot.tree.pages.contains_key(page_id) || withheld.page(&snapshot, page_id) {
                return Ok(None);
            }
            let base = space_url(&visit.base, section, space);
            Some(encode_uri(
                &SpaceLinks::new(&snapshot, &base, &withheld).page_url(page_id),
            ))
        }
    })
}

/// The page at `path` of a revision, its slugs compared without case.
fn page_ignoring_case(snapshot: &Snapshot, path: &str) -> Option<String> {
    let mut parent: Option<String> = None;
    for slug in path.split('/').filter(|s| !s.is_empty()) {
        let slug = slug.to_lowercase();
        let id = snapshot
            .tree
            .children_of(parent.as_deref())
            .iter()
            .find(|id| snapshot.tree.pages[*id].meta.slug.to_lowercase() == slug)?;
        parent = Some(id.clone());
    }
    parent
}

/// The canonical URL (percent-encoded) of what a path that found no page
/// names when its letter case is ignored (`/docs/Setup`, `/docs/API/Auth`):
/// a page, or a site space's root, this visitor may see. `section`,
/// `space` and `path` are where the route led.
pub(super) async fn by_case(
    state: &SiteState,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    path: &str,
    uri: &Uri,
) -> quire_app::AppResult<Option<String>> {
    // The path inside the site again: the named section and space, then
    // the page path (a default section or space is never named).
    let mut rest: Vec<String> = Vec::new();
    if let Some(section) = section.filter(|s| !s.default) {
        rest.push(section.section.path.clone());
    }
    if !space.default {
        rest.push(space.site_space.path.clone());
    }
    rest.extend(path.split('/').filter(|s| !s.is_empty()).map(str::to_owned));
    let SiteRoute::Space(InSpace {
        section,
        space,
        target: route::Target::Page { path, .. },
    }) = route::within_ignoring_case(&visit.site, &rest)
    else {
        return Ok(None);
    };
    let space_base = space_url(&visit.base, section, space);
    let url = if path.is_empty() {
        format!("{space_base}/")
    } else {
        let snapshot = published::snapshot(&state.app, &space.space).await?;
        let order = reading_order(state, &snapshot);
        let withheld = visit.withheld(&order);
        let Some(page_id) = page_ignoring_case(&snapshot, &path).filter(|id| !withheld.page(&snapshot, id)) else {
            return Ok(None);
        };
        let mut url = SpaceLinks::new(&snapshot, &space_base, &withheld).page_url(&page_id);
        if uri.path().trim_end_matches('/').ends_with(".md") {
            url.push_str(".md");
        }
        url
    };
    let url = encode_uri(&url);
    Ok((!same_path(&url, uri)).then_some(url))
}
