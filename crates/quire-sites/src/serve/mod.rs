//! The site's router: finds the site a request names, admits the visitor
//! (`crate::published`), resolves the section, the site space
//! and the page from the rest of the path, and answers with HTML, markdown,
//! a file or a machine-readable file.
//!
//! URLs: `{base}/{section path}/{space path}/{page path}`, where `{base}`
//! is `/{basename}` (or nothing on the site's own hostname), followed by
//! `/{share key}` on `share-link` sites, and the default section and space
//! leave their segment out. A page is also served as markdown with `.md`
//! appended or `Accept: text/markdown`; files are at
//! `{space URL}/~files/{fileId}`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::published::{self, Address, Admission, PublishedSection, PublishedSite, PublishedSpace, Visitor};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use moka::sync::Cache;
use quire_app::App;
use quire_content::document::{Block, Document, LinkTarget, OpenApiOperation, OpenApiSchemas, plain_text};
use quire_content::tree::PageKind;
use quire_core::percent::{decode as percent_decode, encode_component, encode_uri};
use quire_engine::Snapshot;
use quire_engine::links::Target;

use quire_site_render::i18n::Language;
use quire_site_render::layout::{self, Font, FontFace, Look, NavLink, SectionTab, Shell, TreeEntry};
use quire_site_render::outputs::{self, Listed};
use quire_site_render::render::{self, FileLink, Links};

mod answers;
mod links;
mod look;
mod order;
mod security;
mod shell;
mod visitor;

use answers::*;
use links::*;
use look::*;
use order::*;
use shell::*;
use visitor::*;

#[derive(Clone)]
struct SiteState {
    app: App,
    /// The instance's public URL, without a trailing slash.
    public_url: Arc<str>,
    /// Its host (`localhost:8080`), to tell custom hostnames apart.
    public_host: Arc<str>,
    /// Reading orders by revision id (revisions never change), at most
    /// [`ORDER_CACHE`], the least used evicted first.
    orders: Cache<String, Arc<ReadingOrder>>,
    /// Parsed OpenAPI documents by version id (versions never change), at
    /// most [`SPEC_CACHE`].
    specs: Cache<String, Arc<quire_openapi::Spec>>,
}

/// The router of every published site; mount it as the fallback of the
/// instance's router.
pub fn router(app: App, public_url: &str) -> Router {
    let public_url = public_url.trim_end_matches('/');
    let public_host = public_url
        .split_once("://")
        .map_or(public_url, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    Router::new()
        .fallback(serve)
        .layer(axum::middleware::map_response(crate::serve::security::secure))
        .with_state(SiteState {
            app,
            public_url: public_url.into(),
            public_host: public_host.into(),
            orders: Cache::new(ORDER_CACHE),
            specs: Cache::new(SPEC_CACHE),
        })
}

/// What a request resolved to, for answering.
struct Visit {
    site: PublishedSite,
    /// Absolute path prefix of the site (`/docs`, `/docs/{key}`, or ``).
    base: String,
    /// Scheme and host the site's absolute URLs start with.
    origin: String,
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let mut res = (status, body).into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    res
}

fn html(status: StatusCode, body: String, indexable: bool) -> Response {
    let mut res = text(status, "text/html; charset=utf-8", body);
    if !indexable {
        res.headers_mut()
            .insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    res
}

fn not_found(visit: Option<&Visit>) -> Response {
    let shell = visit.map(|v| {
        let (site_title, look) = look(&v.site.site, None);
        Shell {
            wide: false,
            tree_hidden: false,
            look,
            site_title,
            home: format!("{}/", v.base),
            ..Shell::default()
        }
    });
    html(StatusCode::NOT_FOUND, layout::not_found(shell.as_ref()), false)
}

async fn serve(State(state): State<SiteState>, method: Method, headers: HeaderMap, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "method not allowed\n".into(),
        );
    }
    match answer(&state, &headers, &uri).await {
        Ok(res) => res,
        Err(err) => {
            tracing::error!(error = %err, "site request failed");
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain; charset=utf-8",
                "something went wrong\n".into(),
            )
        }
    }
}

async fn answer(state: &SiteState, headers: &HeaderMap, uri: &Uri) -> quire_app::AppResult<Response> {
    let segments: Vec<String> = uri
        .path()
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    if let [first, org, slug, rest @ ..] = segments.as_slice()
        && first == "~openapi"
    {
        return public_spec(org, slug, rest, state).await;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| h.to_ascii_lowercase())
        .unwrap_or_default();
    let host_name = host.split(':').next().unwrap_or_default().to_owned();
    // Where the site may be: at the root of the request's host when that is
    // not the instance's own (a custom hostname), then under a basename.
    let mut candidates: Vec<(Address<'_>, &[String], String, String)> = Vec::new();
    if !host.is_empty() && host != *state.public_host {
        candidates.push((
            Address::Hostname(&host_name),
            &segments[..],
            String::new(),
            format!("https://{host_name}"),
        ));
    }
    if let Some((first, rest)) = segments.split_first() {
        let origin = state.public_url.split('/').take(3).collect::<Vec<_>>().join("/");
        candidates.push((Address::Basename(first), rest, format!("/{first}"), origin));
    }
    // The visitor: a token from `?jwt_token=` (then kept in a cookie) or
    // the cookie, claims they set with `?visitor.<name>=` (kept likewise).
    let query = uri.query().unwrap_or_default();
    let query_token = query_value(query, "jwt_token");
    let cookie_token = cookie(headers, TOKEN_COOKIE);
    let mut unsigned = cookie(headers, CLAIMS_COOKIE)
        .and_then(|c| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&percent_decode(&c)).ok())
        .unwrap_or_default();
    let mut claims_changed = false;
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if let Some(name) = k.strip_prefix("visitor.").filter(|n| !n.is_empty() && n.len() <= 64) {
            unsigned.insert(percent_decode(name), claim_value(&percent_decode(&v.replace('+', " "))));
            claims_changed = true;
        }
    }
    let token = query_token.as_deref().or(cookie_token.as_deref());
    let mut found = None;
    for (address, rest, base, origin) in candidates {
        let mut visitor = Visitor {
            share_key: None,
            token,
            unsigned: unsigned.clone(),
        };
        let mut outcome = published::open(&state.app, address.clone(), &visitor).await?;
        let (mut rest, mut base) = (rest, base);
        if matches!(outcome, Admission::Absent)
            && let Some(key) = rest.first()
        {
            visitor.share_key = Some(key);
            outcome = published::open(&state.app, address, &visitor).await?;
            if !matches!(outcome, Admission::Absent) {
                base = format!("{base}/{key}");
                rest = &rest[1..];
            }
        }
        match outcome {
            Admission::Absent => continue,
            Admission::SignIn { fallback_url } => return Ok(sign_in(fallback_url, &origin, uri)),
            Admission::Admitted(site) => {
                // On a site open to everyone, a share link's URL still works.
                if visitor.share_key.is_none()
                    && let Some(key) = rest.first().filter(|k| looks_like_share_key(k))
                    && published::is_share_key(&state.app, &site, key).await?
                {
                    found = Some((*site, &rest[1..], format!("{base}/{key}"), origin));
                    break;
                }
                found = Some((*site, rest, base, origin));
                break;
            }
        }
    }
    let Some((site, mut rest, base, origin)) = found else {
        return Ok(not_found(None));
    };
    // A token given in the URL moves into a cookie scoped to the site, and
    // the visitor lands on the same page without it.
    if query_token.is_some() || claims_changed {
        let path = format!("{base}/");
        let mut res = StatusCode::SEE_OTHER.into_response();
        let clean: Vec<&str> = query
            .split('&')
            .filter(|p| !p.starts_with("jwt_token=") && !p.starts_with("visitor.") && !p.is_empty())
            .collect();
        let location = if clean.is_empty() {
            uri.path().to_owned()
        } else {
            format!("{}?{}", uri.path(), clean.join("&"))
        };
        let h = res.headers_mut();
        if let Ok(v) = HeaderValue::from_str(&location) {
            h.insert(header::LOCATION, v);
        }
        let secure = if state.public_url.starts_with("https:") || origin.starts_with("https:") && base.is_empty() {
            "; Secure"
        } else {
            ""
        };
        if let (Some(token), Some(exp)) = (query_token.as_deref(), site.token_expires) {
            let max_age = (exp - state.app.now().0 / 1000).max(0);
            let cookie =
                format!("{TOKEN_COOKIE}={token}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                h.append(header::SET_COOKIE, v);
            }
        }
        if claims_changed {
            let value = encode_component(&serde_json::Value::Object(unsigned).to_string());
            let cookie = format!("{CLAIMS_COOKIE}={value}; Path={path}; HttpOnly; SameSite=Lax{secure}");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                h.append(header::SET_COOKIE, v);
            }
        }
        return Ok(res);
    }
    if rest.is_empty() && !base.is_empty() && !uri.path().ends_with('/') {
        let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
        if let Ok(location) = HeaderValue::from_str(&format!("{base}/")) {
            res.headers_mut().insert(header::LOCATION, location);
        }
        return Ok(res);
    }
    let visit = Visit { site, base, origin };
    match rest {
        [one] if one == "robots.txt" => {
            let sitemap = format!("{}{}/sitemap.xml", visit.origin, visit.base);
            return Ok(text(
                StatusCode::OK,
                "text/plain; charset=utf-8",
                outputs::robots(visit.site.indexable(), &sitemap),
            ));
        }
        [one] if one == "sitemap.xml" => {
            if !visit.site.indexable() {
                return Ok(not_found(Some(&visit)));
            }
            let pages = listed(state, &visit).await?;
            return Ok(text(
                StatusCode::OK,
                "application/xml; charset=utf-8",
                outputs::sitemap(&pages),
            ));
        }
        [one] if one == "llms.txt" => {
            let pages = listed(state, &visit).await?;
            return Ok(markdown_response(
                outputs::llms(&visit.site.site.title, &pages),
                visit.site.indexable(),
            ));
        }
        [one] if one == "llms-full.txt" => return llms_full(state, &visit).await,
        [one] if one == "rss.xml" => return feed(state, &visit).await,
        _ => {}
    }
    // The section, then the site space.
    let (section, spaces): (Option<&PublishedSection>, &[PublishedSpace]) = if visit.site.sections.is_empty() {
        (None, &visit.site.root)
    } else {
        let named = rest.first().and_then(|first| {
            visit
                .site
                .sections
                .iter()
                .find(|s| !s.default && &s.section.path == first)
        });
        match named {
            Some(section) => {
                rest = &rest[1..];
                (Some(section), &section.spaces)
            }
            None => match visit.site.sections.iter().find(|s| s.default) {
                Some(section) => (Some(section), &section.spaces),
                None => return Ok(not_found(Some(&visit))),
            },
        }
    };
    let named = rest
        .first()
        .and_then(|first| spaces.iter().find(|s| !s.default && &s.site_space.path == first));
    let space = match named {
        Some(space) => {
            rest = &rest[1..];
            space
        }
        None => match spaces.iter().find(|s| s.default) {
            Some(space) => space,
            None => return Ok(not_found(Some(&visit))),
        },
    };
    let snapshot = published::snapshot(&state.app, &space.space).await?;
    let space_base = space_url(&visit.base, section, space);
    if let [files, id] = rest
        && files == "~files"
    {
        return file(state, &snapshot, id, headers)
            .await
            .map(|r| r.unwrap_or_else(|| not_found(Some(&visit))));
    }
    let mut path = rest.join("/");
    let wants_markdown = path.ends_with(".md")
        || headers
            .get(header::ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.contains("text/markdown"));
    if let Some(stripped) = path.strip_suffix(".md") {
        path = stripped.to_owned();
    }
    let order = reading_order(state, &snapshot);
    let withheld = order.withheld(&visit.site);
    let page_id = if path.is_empty() {
        withheld.documents(&snapshot, &order).next().cloned()
    } else {
        snapshot.page_by_path(&path)
    };
    if let Some(q) = query_value(query, "q") {
        return search_page(state, &visit, section, space, &snapshot, &space_base, &q).await;
    }
    let absent = page_id.is_none();
    let Some(page_id) = page_id.filter(|id| !withheld.page(&snapshot, id)) else {
        // An old path the space's `.gitbook.yaml` redirects, or the path
        // of a Git-synced page's file (its GitBook URL, when the tree's
        // slugs say otherwise).
        let target = match absent {
            true => match published::redirect(&state.app, &space.space, &path).await? {
                Some(target) => Some(target),
                None => snapshot.page_by_git_path(&path),
            },
            false => None,
        };
        if let Some(target) = target
            && snapshot.tree.pages.contains_key(&target)
            && !withheld.page(&snapshot, &target)
        {
            let links = SpaceLinks::new(&snapshot, &space_base, &withheld);
            let mut res = StatusCode::PERMANENT_REDIRECT.into_response();
            if let Ok(v) = HeaderValue::from_str(&encode_uri(&links.page_url(&target))) {
                res.headers_mut().insert(header::LOCATION, v);
            }
            return Ok(res);
        }
        return Ok(not_found(Some(&visit)));
    };
    let meta = &snapshot.tree.pages[&page_id].meta;
    let body = published::markdown(&state.app, &snapshot, &page_id)
        .await?
        .unwrap_or_default();
    if wants_markdown {
        let body = for_visitor(&body, &visit.site);
        return Ok(markdown_response(
            outputs::markdown(&meta.title, meta.description.as_deref(), &body),
            visit.site.indexable(),
        ));
    }
    let mut document = Document::from_markdown(&body);
    document.remove_title_heading(&meta.title);
    // Conditional blocks this visitor may not see go before anything reads
    // the document (the outline lists its headings).
    document.retain_conditions(&|condition| visit.site.shows(Some(condition)));
    let mut links = SpaceLinks::new(&snapshot, &space_base, &withheld);
    links.page = Some(&page_id);
    links.site = Some(&visit.site);
    // Only a page that shows an expression reads the space's variables
    // (a file of the space: blob I/O kept off every other page view).
    if body.contains("class=\"expression\"") {
        links.variables = variables(state, &snapshot, document.front_matter.as_deref()).await?;
    }
    for block in document.walk() {
        if let Block::OpenApiOperation(pointer) = block
            && !links.operations.contains_key(pointer)
            && let Some(spec) =
                spec_for_page(state, &space.space.organization_id, &snapshot, &page_id, &pointer.spec).await?
            && let Some(operation) = spec.operation(&pointer.path, &pointer.method)
        {
            links.operations.insert(pointer.clone(), operation);
        }
        if let Block::OpenApiSchemas(pointer) = block
            && !links.schemas.contains_key(pointer)
            && let Some(spec) =
                spec_for_page(state, &space.space.organization_id, &snapshot, &page_id, &pointer.spec).await?
        {
            let named: Option<Vec<_>> = pointer
                .schemas
                .iter()
                .map(|name| spec.component_schema(name).map(|s| (name.clone(), s)))
                .collect();
            if let Some(named) = named {
                links.schemas.insert(pointer.clone(), named);
            }
        }
        if let Block::Include { path } = block
            && !links.includes.contains_key(path)
            && let Some(reusable) = snapshot.included_by(&page_id, path)
        {
            let text = published::document(&state.app, &reusable.document).await?;
            links.includes.insert(path.clone(), Document::from_markdown(&text));
        }
    }
    let page_layout = quire_content::markdown::page_layout(document.front_matter.as_deref());
    let mut article = String::new();
    if page_layout.title {
        article.push_str("<h1>");
        quire_site_render::html::push_escaped(&mut article, &meta.title);
        article.push_str("</h1>");
    }
    if let Some(d) = meta
        .description
        .as_deref()
        .filter(|d| !d.is_empty() && page_layout.description)
    {
        article.push_str("<p class=\"lead\">");
        quire_site_render::html::push_escaped(&mut article, d);
        article.push_str("</p>");
    }
    article.push_str(&render::document(&document, &links));
    let mut shell = shell(
        &order,
        &withheld,
        &visit,
        section,
        space,
        &snapshot,
        &space_base,
        Some(&page_id),
        &document,
        "",
    );
    shell.wide = page_layout.wide;
    if !page_layout.table_of_contents {
        shell.tree.clear();
        shell.tree_hidden = true;
    }
    if !page_layout.outline {
        shell.outline.clear();
    }
    if !page_layout.pagination {
        shell.previous = None;
        shell.next = None;
    }
    Ok(html(
        StatusCode::OK,
        layout::page(&shell, &article),
        visit.site.indexable(),
    ))
}

fn markdown_response(body: String, indexable: bool) -> Response {
    let mut res = text(StatusCode::OK, "text/markdown; charset=utf-8", body);
    if !indexable {
        res.headers_mut()
            .insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    }
    res
}

/// The URL path of a site space: the site's base, then the section's and
/// the space's path unless they are the defaults.
fn space_url(base: &str, section: Option<&PublishedSection>, space: &PublishedSpace) -> String {
    let mut url = base.to_owned();
    if let Some(section) = section.filter(|s| !s.default) {
        url.push('/');
        url.push_str(&section.section.path);
    }
    if !space.default {
        url.push('/');
        url.push_str(&space.site_space.path);
    }
    url
}
