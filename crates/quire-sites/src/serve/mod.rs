//! The published site: every request the API does not answer. A request
//! goes through one pipeline ([`answer`]):
//!
//! 1. `route` (pure): where the site may be, then what inside it is asked
//!    for;
//! 2. `visit`: the site is found and the visitor admitted; every rule of
//!    what a visitor sees (audiences, share keys, tokens and claims,
//!    withheld pages, conditional blocks) is the visit's; a site with a
//!    custom hostname asked for at its basename is sent there;
//! 3. `redirect`: a path the site's live redirects send elsewhere is
//!    answered with the redirect before anything else is looked up;
//! 4. one answer per kind: `page` (HTML or markdown), `answers` (files,
//!    robots, sitemap, llms, llms-full, rss, search, fonts), `links::public_spec`
//!    (an OpenAPI reference), `pdf` (a PDF), `social` (a page's social
//!    image); beside them `mcp`, the site's MCP server for agents, through
//!    the same visit.
//!
//! What the pipeline answers is kept in memory by `cache` (a page served
//! again without the database until a change is announced on the bus).
//!
//! Beside them: `order` (reading order and withheld pages per revision),
//! `links` (where a page's links, specs, conditions and variables lead),
//! `shell` (navigation), `look` (customization), `security` (the headers
//! every answer carries). Rendering itself is `quire-site-render`'s.

use std::collections::HashMap;
use std::sync::Arc;

use crate::published::{self, Admission, PublishedSection, PublishedSite, PublishedSpace, Visitor};
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
use quire_site_render::layout::{
    self, Font, FontFace, HeaderLink, Look, NavLink, SectionTab, Shell, SocialLink, TreeEntry,
};
use quire_site_render::outputs::{self, Listed};
use quire_site_render::render::{self, FileLink, Links};

mod answers;
mod ask;
mod cache;
mod links;
mod look;
mod mcp;
mod order;
mod page;
mod pdf;
mod redirect;
mod route;
mod security;
mod shell;
mod social;
mod visit;

use answers::*;
use links::*;
use look::*;
use order::*;
use page::*;
use route::{InSpace, Route, SiteRoute};
use shell::*;
use visit::*;

pub use cache::{announce_published_writes, may_change_published};

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
    /// Published answers, kept until a change is heard.
    answers: Arc<cache::PageCache>,
    /// Sites' live redirects, kept until a change is heard.
    redirects: Arc<redirect::RedirectCache>,
}

/// The router of every published site; mount it as the fallback of the
/// instance's router.
pub fn router(app: App, public_url: &str) -> Router {
    let public_url = public_url.trim_end_matches('/');
    let public_host = quire_core::percent::host_of(public_url);
    // Answers kept, bodies and their compressed forms; the least used go first.
    let kept_bytes = app
        .settings
        .cache_budget
        .share(quire_core::memory::CacheShare::PublishedPages);
    // Sites' redirects take a sixty-fourth of that (2 MiB of the default
    // budget: some six thousand redirects of ~300 bytes).
    let redirect_bytes = kept_bytes / 64;
    Router::new()
        .fallback(serve)
        .layer(axum::middleware::map_response(crate::serve::security::secure))
        .with_state(SiteState {
            app,
            public_url: public_url.into(),
            public_host: public_host.into(),
            orders: Cache::new(ORDER_CACHE),
            specs: Cache::new(SPEC_CACHE),
            answers: cache::PageCache::watched(kept_bytes - redirect_bytes),
            redirects: redirect::RedirectCache::watched(redirect_bytes),
        })
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
        let (site_title, look) = look(&v.site.site, None, &v.base, &look::addresses_only, &|c| v.shows(c));
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

async fn serve(
    State(state): State<SiteState>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    charge: quire_http::limits::Charge,
    body: Body,
) -> Response {
    if mcp::endpoint(uri.path()).is_some() {
        return match axum::body::to_bytes(body, mcp::MAX_BODY).await {
            Ok(body) => mcp::serve(&state, &method, &headers, &uri, &charge, body).await,
            Err(_) => text(
                StatusCode::PAYLOAD_TOO_LARGE,
                "application/json",
                quire_mcp::error(
                    &serde_json::Value::Null,
                    quire_mcp::INVALID_REQUEST,
                    "the body is too large",
                )
                .to_string(),
            ),
        };
    }
    if method != Method::GET && method != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "method not allowed\n".into(),
        );
    }
    let render = || async {
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
    };
    cache::serve(&state.answers, &state.app, &method, &headers, &uri, render).await
}

/// Marks an answer of `visit` as one the cache may keep (a page, a site's
/// listing, a search, its "not found"): not one that sets a cookie or
/// sends the visitor elsewhere, and no longer than the visitor's token.
fn keep(visit: &Visit, mut res: Response) -> Response {
    let plain = matches!(res.status(), StatusCode::OK | StatusCode::NOT_FOUND)
        && !res.headers().contains_key(header::SET_COOKIE)
        && !res.headers().contains_key(header::LOCATION);
    if plain {
        res.extensions_mut().insert(cache::Keep {
            until: visit.site.token_expires,
        });
    }
    res
}

/// The pipeline: the route, the visit, then one answer per kind of thing
/// asked for.
async fn answer(state: &SiteState, headers: &HeaderMap, uri: &Uri) -> quire_app::AppResult<Response> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let candidates = match route::route(route::segments(uri.path()), host, &state.public_host, &state.public_url) {
        Route::PublicSpec {
            organization,
            slug,
            rest,
        } => return public_spec(&organization, &slug, &rest, state).await,
        Route::Site(candidates) => candidates,
    };
    let (visit, rest) = match admit(state, headers, uri, candidates).await? {
        Admitted::Answer(res) => return Ok(res),
        Admitted::Visit(visit, rest) => (visit, rest),
    };
    if let Some(res) = redirect::follow(state, &visit, &rest, uri).await? {
        return Ok(res);
    }
    let accepts_markdown = headers
        .get(header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_some_and(|a| a.contains("text/markdown"));
    let in_space = match route::within(&visit.site, &rest, uri.query().unwrap_or_default(), accepts_markdown) {
        SiteRoute::Robots => return Ok(keep(&visit, robots(&visit))),
        SiteRoute::Sitemap => return sitemap(state, &visit).await.map(|r| keep(&visit, r)),
        SiteRoute::Llms => return llms(state, &visit).await.map(|r| keep(&visit, r)),
        SiteRoute::LlmsFull => return llms_full(state, &visit).await.map(|r| keep(&visit, r)),
        SiteRoute::Rss => return feed(state, &visit).await.map(|r| keep(&visit, r)),
        SiteRoute::Missing => return Ok(keep(&visit, not_found(Some(&visit)))),
        SiteRoute::Ask(question) => return ask::page(state, &visit, &question).await,
        SiteRoute::Font(file) => return Ok(font_file(&file)),
        SiteRoute::Space(in_space) => in_space,
    };
    let InSpace { section, space, target } = in_space;
    let snapshot = published::snapshot(&state.app, &space.space).await?;
    match target {
        route::Target::File(id) => file(state, &snapshot, &id, headers)
            .await
            .map(|r| r.unwrap_or_else(|| not_found(Some(&visit)))),
        route::Target::Search { query, whole_site } => {
            let space_base = space_url(&visit.base, section, space);
            search_page(
                state,
                &visit,
                section,
                space,
                &snapshot,
                &space_base,
                &query,
                whole_site,
            )
            .await
            .map(|r| keep(&visit, r))
        }
        route::Target::Pdf { page, only } => pdf::answer(state, &visit, space, &snapshot, page, only).await,
        route::Target::OgImage(id) => social::answer(state, &visit, space, &snapshot, &id)
            .await
            .map(|r| keep(&visit, r)),
        route::Target::Page { path, markdown } => {
            page(state, &visit, section, space, &snapshot, &path, markdown, Some(uri))
                .await
                .map(|r| keep(&visit, r))
        }
    }
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
