//! The web application, served by the same binary: the files `web/` builds
//! (embedded at compile time, so running Quire needs no Node.js) at the
//! addresses the API's `urls.app` fields name.
//!
//! - `/assets/...`: hashed file names, cached for a year (`immutable`),
//!   brotli or gzip as the client accepts (precompressed by the build);
//! - `/`, `/sign-in...`, `/me`, `/o/...`, `/s/...`, `/c/...`: the
//!   application's page (never cached), which routes in the browser. These
//!   first segments are reserved: no site takes them as its basename. On
//!   any other host than the public URL's (a site's custom hostname), the
//!   request goes to the published sites instead.

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower::ServiceExt;

/// One built file.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
    gzip: Option<&'static [u8]>,
    brotli: Option<&'static [u8]>,
}

static ASSETS: &[Asset] = include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The first path segments of the application's screens.
pub const APP_SEGMENTS: [&str; 6] = ["sign-in", "me", "o", "s", "c", "assets"];

const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; \
                   connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'";

#[derive(Clone)]
struct Web {
    /// The public URL's host (and port): the application answers there.
    public_host: String,
    /// Where requests for other hosts go (published sites).
    sites: Router,
}

fn asset(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

/// The application's routes; `sites` answers requests for other hosts.
pub fn router<S: Clone + Send + Sync + 'static>(public_url: &str, sites: Router) -> Router<S> {
    let web = Web {
        public_host: quire_core::percent::host_of(public_url),
        sites,
    };
    let mut app = Router::new().route("/", get(page)).route("/assets/{*file}", get(file));
    for segment in ["sign-in", "me", "o", "s", "c"] {
        app = app
            .route(&format!("/{segment}"), get(page))
            .route(&format!("/{segment}/"), get(page))
            .route(&format!("/{segment}/{{*rest}}"), get(page));
    }
    app.with_state(web)
}

fn on_public_host(web: &Web, headers: &HeaderMap) -> bool {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    host.is_empty() || host == web.public_host
}

/// The encoding to answer with: brotli, then gzip, as accepted.
fn encoding(headers: &HeaderMap, asset: &Asset) -> (&'static [u8], Option<&'static str>) {
    let accepted = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let takes = |name: &str| {
        accepted.split(',').any(|part| {
            let mut pieces = part.trim().split(';');
            pieces.next().is_some_and(|n| n.trim().eq_ignore_ascii_case(name))
                && !pieces.any(|p| p.trim().replace(' ', "") == "q=0")
        })
    };
    match (asset.brotli, asset.gzip) {
        (Some(br), _) if takes("br") => (br, Some("br")),
        (_, Some(gz)) if takes("gzip") => (gz, Some("gzip")),
        _ => (asset.bytes, None),
    }
}

fn respond(headers: &HeaderMap, asset: &Asset, cache: &'static str) -> Response {
    let (bytes, encoding) = encoding(headers, asset);
    let mut response = Response::new(Body::from(bytes));
    let out = response.headers_mut();
    out.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    out.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    if let Some(encoding) = encoding {
        out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    response
}

async fn page(State(web): State<Web>, request: Request) -> Response {
    if !on_public_host(&web, request.headers()) {
        return forward(web, request).await;
    }
    let Some(index) = asset("index.html") else {
        return (StatusCode::NOT_FOUND, "the web application was not built").into_response();
    };
    let mut response = respond(request.headers(), index, "no-cache");
    let out = response.headers_mut();
    out.insert("content-security-policy", HeaderValue::from_static(CSP));
    out.insert("x-frame-options", HeaderValue::from_static("DENY"));
    out.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    response
}

async fn file(State(web): State<Web>, request: Request) -> Response {
    if !on_public_host(&web, request.headers()) {
        return forward(web, request).await;
    }
    let path = request.uri().path().trim_start_matches('/');
    match asset(path) {
        Some(asset) => respond(request.headers(), asset, "public, max-age=31536000, immutable"),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

async fn forward(web: Web, request: Request) -> Response {
    match web.sites.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
