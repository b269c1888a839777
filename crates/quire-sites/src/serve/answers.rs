//! The answers other than a page, one function each: files, `robots.txt`,
//! `sitemap.xml`, `llms.txt`, `llms-full.txt`, `rss.xml`, the search
//! results page and the named fonts' files.

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

/// A file of one of GitBook's named fonts, the same at every site and named
/// by its content: kept by browsers and shared caches for a year, and
/// readable from any origin (browsers fetch fonts in CORS mode). A file
/// there is no such font's is a 404 in the API's error shape.
pub(super) fn font_file(name: &str) -> Response {
    let Some(bytes) = quire_site_fonts::file(name) else {
        return quire_http::error::error_body(StatusCode::NOT_FOUND, "there is no such font file");
    };
    let mut res = Response::new(Body::from(bytes));
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("font/woff2"));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    res
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

/// The search results page: the whole site's pages (every section and
/// variant the visitor may read, ranked together, each labelled with where
/// it is and leading to the heading that matched), or only this space's
/// with `scope=space`. The labels above the results narrow a search to one
/// space, or widen it again.
#[allow(clippy::too_many_arguments)]
pub(super) async fn search_page(
    state: &SiteState,
    visit: &Visit,
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    snapshot: &Snapshot,
    space_base: &str,
    query: &str,
    whole_site: bool,
) -> quire_app::AppResult<Response> {
    let every = visit.site.spaces();
    let scope: Vec<(Option<&PublishedSection>, &PublishedSpace)> = if whole_site {
        every.clone()
    } else {
        vec![(section, space)]
    };
    let searched = found_in(state, visit, &scope, query, SEARCH_LIMIT).await?;
    let order = reading_order(state, snapshot);
    let withheld = visit.withheld(&order);
    let shell = tool_shell(&order, &withheld, visit, section, space, snapshot, space_base, query);
    let t = shell.look.language.strings();
    let shell = Shell {
        page_title: t.search.into(),
        ..shell
    };
    let mut body = String::from("<h1>");
    quire_site_render::html::push_escaped(&mut body, t.search);
    body.push_str("</h1>");
    // A query that is none (too long) is said so, as a 400.
    let (results, parsed) = match searched {
        Ok(found) => found,
        Err(message) => {
            body.push_str("<p>");
            quire_site_render::html::push_escaped(&mut body, &message);
            body.push_str("</p>");
            return Ok(html(StatusCode::BAD_REQUEST, layout::page(&shell, &body), false));
        }
    };
    if every.len() > 1 && !query.trim().is_empty() {
        push_scopes(
            &mut body,
            visit,
            &every,
            section,
            space,
            query,
            whole_site,
            t.everywhere,
        );
    }
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
                quire_site_render::html::safe_url(&hit.path)
            ));
            quire_site_render::html::push_escaped(&mut body, &hit.title);
            body.push_str("</a>");
            if let Some(place) = hit.place.as_deref().filter(|_| whole_site) {
                body.push_str("<span class=\"place\">");
                quire_site_render::html::push_escaped(&mut body, place);
                body.push_str("</span>");
            }
            if let Some(passage) = &hit.passage {
                body.push_str("<p>");
                let matched = quire_search::matched_ranges(passage, &parsed);
                quire_site_render::html::push_marked(&mut body, passage, &matched);
                body.push_str("</p>");
            }
            body.push_str("</li>");
        }
        body.push_str("</ul>");
    }
    Ok(html(StatusCode::OK, layout::page(&shell, &body), false))
}

/// Results a search page shows.
const SEARCH_LIMIT: usize = 20;

/// The search's scopes: the whole site, then each section and variant
/// (each a link to the same query narrowed to it), the current one marked.
#[allow(clippy::too_many_arguments)]
fn push_scopes(
    body: &mut String,
    visit: &Visit,
    every: &[(Option<&PublishedSection>, &PublishedSpace)],
    section: Option<&PublishedSection>,
    space: &PublishedSpace,
    query: &str,
    whole_site: bool,
    everywhere: &str,
) {
    let q = encode_component(query);
    body.push_str("<nav class=\"scopes\" aria-label=\"Search in\">");
    let current = |yes: bool| if yes { " aria-current=\"true\"" } else { "" };
    body.push_str(&format!(
        "<a href=\"{}/?q={q}\"{}>",
        quire_site_render::html::safe_url(&space_url(&visit.base, section, space)),
        current(whole_site)
    ));
    quire_site_render::html::push_escaped(body, everywhere);
    body.push_str("</a>");
    for (s, sp) in every {
        let here = !whole_site && sp.site_space.id == space.site_space.id;
        body.push_str(&format!(
            "<a href=\"{}/?q={q}&amp;scope=space\"{}>",
            quire_site_render::html::safe_url(&space_url(&visit.base, *s, sp)),
            current(here)
        ));
        quire_site_render::html::push_escaped(
            body,
            &place_of(&visit.site, *s, sp).unwrap_or_else(|| sp.space.title.clone()),
        );
        body.push_str("</a>");
    }
    body.push_str("</nav>");
}

/// Where a site space is, for a reader: its section's title when the site
/// has several sections, and its own when its level has several variants.
fn place_of(site: &PublishedSite, section: Option<&PublishedSection>, space: &PublishedSpace) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(section) = section.filter(|_| site.sections.len() > 1) {
        parts.push(section.section.title.clone());
    }
    let siblings = section.map_or(site.root.len(), |s| s.spaces.len());
    if siblings > 1 {
        parts.push(space.space.title.clone());
    }
    (!parts.is_empty()).then(|| parts.join(" › "))
}

/// A page a site search found, as the visitor may read it.
pub(super) struct Found {
    pub(super) title: String,
    /// The page's absolute URL (what agents and answers cite).
    pub(super) url: String,
    /// Inside the site's origin, with the anchor of the heading that
    /// matched (`/docs/start#install`: where a reader is taken).
    pub(super) path: String,
    /// The passage that matched, if any.
    pub(super) passage: Option<String>,
    /// Where it is (section, variant), when the site has several.
    pub(super) place: Option<String>,
}

/// The site's pages matching `query` that the visitor may see, best
/// first, at most `limit`; `Err` with the reason when the query is not one.
pub(super) async fn found(
    state: &SiteState,
    visit: &Visit,
    query: &str,
    limit: usize,
) -> quire_app::AppResult<Result<Vec<Found>, String>> {
    let every = visit.site.spaces();
    Ok(found_in(state, visit, &every, query, limit)
        .await?
        .map(|(found, _)| found))
}

/// [`found`] in some of the site's spaces, searched and ranked together,
/// with the query as understood (a typo forgiven matches more than typed).
async fn found_in(
    state: &SiteState,
    visit: &Visit,
    spaces: &[(Option<&PublishedSection>, &PublishedSpace)],
    query: &str,
    limit: usize,
) -> quire_app::AppResult<Result<(Vec<Found>, quire_search::Query), String>> {
    let rows: Vec<quire_store::spaces::SpaceRow> = spaces.iter().map(|(_, s)| s.space.clone()).collect();
    // Withheld pages are dropped after ranking: ask for a few more.
    let (hits, parsed) =
        match quire_app::search::in_published_spaces(&state.app, &rows, query, (limit + limit / 2) as u32).await {
            Ok(found) => found,
            Err(quire_app::error::AppError::Invalid(message)) => return Ok(Err(message)),
            Err(other) => return Err(other),
        };
    // Per space: its snapshot, what this visitor may not see, its URL.
    let mut views: HashMap<String, (Arc<Snapshot>, Withheld, String)> = HashMap::new();
    let mut found = Vec::new();
    for hit in hits {
        let Some((section, space)) = spaces.iter().find(|(_, s)| s.space.id == hit.space_id) else {
            continue;
        };
        if !views.contains_key(&hit.space_id) {
            let snapshot = published::snapshot(&state.app, &space.space).await?;
            let withheld = visit.withheld(&reading_order(state, &snapshot));
            let base = space_url(&visit.base, *section, space);
            views.insert(hit.space_id.clone(), (snapshot, withheld, base));
        }
        let (snapshot, withheld, base) = &views[&hit.space_id];
        if withheld.page(snapshot, &hit.page_id) {
            continue;
        }
        let links = SpaceLinks::new(snapshot, base, withheld);
        let best = hit.sections.iter().find(|s| s.matched).or(hit.sections.first());
        let page = links.page_url(&hit.page_id);
        let mut path = page.clone();
        if let Some(anchor) = best.filter(|s| s.matched).and_then(|s| s.anchor.as_deref()) {
            path.push('#');
            path.push_str(&encode_component(anchor));
        }
        found.push(Found {
            url: format!("{}{}", visit.origin, page),
            path,
            title: hit.title,
            passage: best.map(|s| s.body.clone()).filter(|p| !p.is_empty()),
            place: place_of(&visit.site, *section, space),
        });
        if found.len() == limit {
            break;
        }
    }
    Ok(Ok((found, parsed)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_fonts_files_are_kept_a_year_and_read_from_any_origin() {
        let (_, faces) = quire_site_fonts::faces("Poppins").expect("Poppins");
        let res = font_file(faces[0].file);
        assert_eq!(res.status(), StatusCode::OK);
        let h = res.headers();
        assert_eq!(h[header::CONTENT_TYPE], "font/woff2");
        assert_eq!(h[header::CACHE_CONTROL], "public, max-age=31536000, immutable");
        assert_eq!(h[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
        let missing = font_file("poppins-latin-400-normal.00000000.woff2");
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert_eq!(missing.headers()[header::CONTENT_TYPE], "application/json");
    }
}
