//! The answers other than a page, one function each: files, `robots.txt`,
//! `sitemap.xml`, `llms.txt`, `llms-full.txt`, `rss.xml` and the search
//! results page.

use super::*;

pub(super) fn robots(visit: &Visit) -> Response {
    let sitemap = format!("{}{}/sitemap.xml", visit.origin, visit.base);
    text(
        StatusCode::OK,
        "text/plain; charset=utf-8",
        outputs::robots(visit.indexable(), &sitemap),
    )
}

/// Only sites search engines may index have a sitemap.
pub(super) async fn sitemap(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Response> {
    if !visit.indexable() {
        return Ok(not_found(Some(visit)));
    }
    let pages = listed(state, visit).await?;
    Ok(text(
        StatusCode::OK,
        "application/xml; charset=utf-8",
        outputs::sitemap(&pages),
    ))
}

pub(super) async fn llms(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Response> {
    let pages = listed(state, visit).await?;
    Ok(markdown_response(
        outputs::llms(&visit.site.site.title, &pages),
        visit.indexable(),
    ))
}

/// A file of the space, with an ETag (its content hash) and a long cache
/// life; `None` when the space has no such file.
pub(super) async fn file(
    state: &SiteState,
    snapshot: &Snapshot,
    id: &str,
    headers: &HeaderMap,
) -> quire_app::AppResult<Option<Response>> {
    let Some(file) = snapshot.file(id) else {
        return Ok(None);
    };
    let etag = format!("\"{}\"", file.blob);
    let cache = HeaderValue::from_static("public, max-age=86400");
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        let mut res = StatusCode::NOT_MODIFIED.into_response();
        // The same headers as the 200's (its policy above all).
        quire_http::files::headers(res.headers_mut(), &file.content_type, &file.name);
        res.headers_mut().insert(header::CACHE_CONTROL, cache);
        if let Ok(v) = HeaderValue::from_str(&etag) {
            res.headers_mut().insert(header::ETAG, v);
        }
        return Ok(Some(res));
    }
    let bytes = published::file_bytes(&state.app, file).await?;
    let mut res = Response::new(Body::from(bytes));
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, cache);
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    // An uploaded HTML or SVG file is never active on the site's origin.
    quire_http::files::headers(h, &file.content_type, &file.name);
    Ok(Some(res))
}

/// Every document page of the site the visitor may read, in order, for the
/// index files.
pub(super) async fn listed(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Vec<Listed>> {
    let mut out = Vec::new();
    for (section, space) in visit.site.spaces() {
        let snapshot = published::snapshot(&state.app, &space.space).await?;
        let order = reading_order(state, &snapshot);
        let withheld = visit.withheld(&order);
        let space_base = space_url(&visit.base, section, space);
        let links = SpaceLinks::new(&snapshot, &space_base, &withheld);
        let group = match section {
            Some(s) if s.spaces.len() > 1 => format!("{} / {}", s.section.title, space.space.title),
            Some(s) => s.section.title.clone(),
            None => space.space.title.clone(),
        };
        for id in withheld.documents(&snapshot, &order) {
            let meta = &snapshot.tree.pages[id].meta;
            out.push(Listed {
                group: group.clone(),
                title: meta.title.clone(),
                description: meta.description.clone(),
                url: format!("{}{}", visit.origin, links.page_url(id)),
            });
        }
    }
    Ok(out)
}

/// The feed of the site's 20 most recent merges, each linking to its space.
pub(super) async fn feed(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Response> {
    let merges = published::recent_changes(&state.app, &visit.site, 20).await?;
    let changes: Vec<outputs::Change> = merges
        .into_iter()
        .filter_map(|m| {
            let (section, space) = visit
                .site
                .spaces()
                .into_iter()
                .find(|(_, s)| s.space.id == m.space_id)?;
            // A change request's subject is the team's own words, never the
            // readers': an item names what changed, the space.
            let title = format!("Update to {}", space.space.title);
            Some(outputs::Change {
                title,
                url: format!("{}{}/", visit.origin, space_url(&visit.base, section, space)),
                guid: m.revision_id,
                date: m.created_at.to_rfc2822(),
            })
        })
        .collect();
    let site_url = format!("{}{}/", visit.origin, visit.base);
    let mut res = text(
        StatusCode::OK,
        "application/rss+xml; charset=utf-8",
        outputs::rss(&visit.site.site.title, &site_url, &changes),
    );
    if !visit.indexable() {
        res.headers_mut()
            .insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    Ok(res)
}

/// Every page of the site the visitor may read as markdown, one after the
/// other.
pub(super) async fn llms_full(state: &SiteState, visit: &Visit) -> quire_app::AppResult<Response> {
    let mut out = format!("# {}\n", visit.site.site.title);
    for (_, space) in visit.site.spaces() {
        let snapshot = published::snapshot(&state.app, &space.space).await?;
        let order = reading_order(state, &snapshot);
        let withheld = visit.withheld(&order);
        for id in withheld.documents(&snapshot, &order) {
            let meta = &snapshot.tree.pages[id].meta;
            let body = published::markdown(&state.app, &snapshot, id)
                .await?
                .unwrap_or_default();
            out.push('\n');
            let body = visit.markdown(&body);
            out.push_str(&outputs::markdown(&meta.title, meta.description.as_deref(), &body));
        }
    }
    Ok(markdown_response(out, visit.indexable()))
}

/// Results of a search in the space being read, rendered on the server.
pub(super) async fn search_page(
    state: &SiteState,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    space_base: &str,
    query: &str,
) -> quire_app::AppResult<Response> {
    let order = reading_order(state, snapshot);
    let withheld = visit.withheld(&order);
    let (results, parsed) = quire_app::search::in_published_space(&state.app, &space.space, query, 20).await?;
    let results: Vec<_> = results
        .into_iter()
        .filter(|hit| !withheld.page(snapshot, &hit.page_id))
        .collect();
    let shell = tool_shell(&order, &withheld, visit, section, space, snapshot, space_base, query);
    let t = shell.look.language.strings();
    let shell = Shell {
        page_title: t.search.into(),
        ..shell
    };
    let links = SpaceLinks::new(snapshot, space_base, &withheld);
    let mut body = String::from("<h1>");
    quire_site_render::html::push_escaped(&mut body, t.search);
    body.push_str("</h1>");
    if super::ask::offered(state, visit) && !query.trim().is_empty() {
        body.push_str(&format!(
            "<p class=\"ask\"><a href=\"{}/~gitbook/ask?q={}\">Ask the docs: ",
            visit.base,
            encode_component(query)
        ));
        quire_site_render::html::push_escaped(&mut body, query);
        body.push_str("</a></p>");
    }
    if results.is_empty() {
        let (before, after) = t.no_results_for();
        body.push_str("<p>");
        quire_site_render::html::push_escaped(&mut body, before);
        body.push_str("<strong>");
        quire_site_render::html::push_escaped(&mut body, query);
        body.push_str("</strong>");
        quire_site_render::html::push_escaped(&mut body, after);
        body.push_str("</p>");
    } else {
        body.push_str("<ul class=\"results\">");
        for hit in results {
            body.push_str(&format!(
                "<li><a href=\"{}\">",
                quire_site_render::html::safe_url(&links.page_url(&hit.page_id))
            ));
            quire_site_render::html::push_escaped(&mut body, &hit.title);
            body.push_str("</a>");
            if let Some(section) = hit.sections.iter().find(|s| s.matched).or(hit.sections.first()) {
                body.push_str("<p>");
                let matched = quire_search::matched_ranges(&section.body, &parsed);
                quire_site_render::html::push_marked(&mut body, &section.body, &matched);
                body.push_str("</p>");
            }
            body.push_str("</li>");
        }
        body.push_str("</ul>");
    }
    Ok(html(StatusCode::OK, layout::page(&shell, &body), false))
}

/// A page a site search found, as data (for agents and answers).
pub(super) struct Found {
    pub(super) title: String,
    /// Absolute.
    pub(super) url: String,
    /// The passage that matched, if any.
    pub(super) passage: Option<String>,
    score: f64,
}

/// The site's pages matching `query` that the visitor may see, best
/// first, at most `limit`; `Err` with the reason when the query is not one.
pub(super) async fn found(
    state: &SiteState,
    visit: &Visit,
    query: &str,
    limit: usize,
) -> quire_app::AppResult<Result<Vec<Found>, String>> {
    let mut found = Vec::new();
    for (section, space) in visit.site.spaces() {
        let hits = match quire_app::search::in_published_space(&state.app, &space.space, query, 20).await {
            Ok((hits, _)) => hits,
            Err(quire_app::error::AppError::Invalid(message)) => return Ok(Err(message)),
            Err(other) => return Err(other),
        };
        if hits.is_empty() {
            continue;
        }
        let snapshot = published::snapshot(&state.app, &space.space).await?;
        let order = reading_order(state, &snapshot);
        let withheld = visit.withheld(&order);
        let space_base = space_url(&visit.base, section, space);
        let links = SpaceLinks::new(&snapshot, &space_base, &withheld);
        for hit in hits {
            if withheld.page(&snapshot, &hit.page_id) {
                continue;
            }
            let passage = hit
                .sections
                .iter()
                .find(|s| s.matched)
                .or(hit.sections.first())
                .map(|s| s.body.clone())
                .filter(|p| !p.is_empty());
            found.push(Found {
                url: format!("{}{}", visit.origin, links.page_url(&hit.page_id)),
                title: hit.title,
                passage,
                score: hit.score,
            });
        }
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    found.truncate(limit);
    Ok(Ok(found))
}

/// The path of `url` under the site: an absolute URL of the site, a path
/// from the host's root, or a path inside the site.
fn site_path(visit: &Visit, url: &str) -> Option<Vec<String>> {
    let url = url.trim();
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let path = match url.split_once("://") {
        Some(_) => url.strip_prefix(&visit.origin)?,
        None => url,
    };
    let path = match path.strip_prefix(&visit.base) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ if path.starts_with('/') && !visit.base.is_empty() => return None,
        _ => path,
    };
    let path = path.strip_suffix(".md").unwrap_or(path);
    Some(route::segments(path))
}

/// The markdown of the page at `url` as the visitor may read it (the same
/// answer as `{page URL}.md`); `None` when there is no such page for them.
pub(super) async fn markdown_at(state: &SiteState, visit: &Visit, url: &str) -> quire_app::AppResult<Option<String>> {
    let Some(rest) = site_path(visit, url) else {
        return Ok(None);
    };
    let SiteRoute::Space(InSpace { section, space, target }) = route::within(&visit.site, &rest, "", true) else {
        return Ok(None);
    };
    let route::Target::Page { path, .. } = target else {
        return Ok(None);
    };
    let snapshot = published::snapshot(&state.app, &space.space).await?;
    let res = page(state, visit, section, space, &snapshot, &path, true, None).await?;
    if res.status() != StatusCode::OK {
        return Ok(None);
    }
    let bytes = axum::body::to_bytes(res.into_body(), 64 << 20)
        .await
        .map_err(|e| quire_app::error::AppError::Internal(anyhow::anyhow!("reading a page's markdown: {e}")))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
