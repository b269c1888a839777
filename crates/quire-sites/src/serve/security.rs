//! The security headers of everything a published site answers.
//!
//! Pages get a content security policy that lets exactly their own
//! inline scripts run (by hash: the theme switch, search as you type, copy
//! buttons on code), styles inline (the stylesheet is inline, and
//! customization sets colours), images and web fonts from anywhere (logos,
//! favicons and fonts are URLs an administrator chose), `fetch` to the site
//! itself (search as you type), and frames only from the players embeds may
//! show. Everything else a site answers (files, markdown, XML) is a document
//! that runs nothing: an uploaded HTML or SVG file opened directly is
//! sandboxed. Nothing answered may be framed by another origin, and no type
//! is sniffed.

use std::sync::LazyLock;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use base64::Engine;
use sha2::{Digest, Sha256};

use quire_site_render::embed::EMBED_ORIGINS;
use quire_site_render::layout::{ACTIONS_SCRIPT, COPY_SCRIPT, SEARCH_SCRIPT, THEME_SCRIPT};

/// The policy of HTML pages.
static PAGE_POLICY: LazyLock<HeaderValue> = LazyLock::new(|| {
    let hashes: Vec<String> = [THEME_SCRIPT, SEARCH_SCRIPT, COPY_SCRIPT, ACTIONS_SCRIPT]
        .iter()
        .map(|script| {
            let digest = Sha256::digest(script.as_bytes());
            format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest))
        })
        .collect();
    let policy = format!(
        "default-src 'self'; script-src {}; style-src 'self' 'unsafe-inline'; img-src * data:; \
         font-src * data:; connect-src 'self'; frame-src {}; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'self'",
        hashes.join(" "),
        EMBED_ORIGINS.join(" ")
    );
    HeaderValue::from_str(&policy).unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"))
});

/// The policy of everything else: shown, never run.
const DOCUMENT_POLICY: &str =
    "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox; frame-ancestors 'self'";

/// The policy of an answer of `content_type`: pages run their own scripts,
/// everything else nothing.
pub fn policy_for(content_type: Option<&HeaderValue>) -> HeaderValue {
    let is_html = content_type
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if is_html {
        PAGE_POLICY.clone()
    } else {
        HeaderValue::from_static(DOCUMENT_POLICY)
    }
}

/// Adds the security headers to a site's answer (keeping any it set
/// itself). A `304` has no type to choose a policy by: it carries the
/// policy of the answer it stands for (set where it is made), since
/// browsers merge a `304`'s headers into the page they keep.
pub async fn secure(mut res: Response) -> Response {
    let not_modified = res.status() == StatusCode::NOT_MODIFIED;
    let policy = policy_for(res.headers().get(header::CONTENT_TYPE));
    let headers = res.headers_mut();
    if !not_modified {
        headers.entry(header::CONTENT_SECURITY_POLICY).or_insert(policy);
    }
    headers
        .entry(header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(HeaderValue::from_static("nosniff"));
    headers
        .entry(header::X_FRAME_OPTIONS)
        .or_insert(HeaderValue::from_static("SAMEORIGIN"));
    headers
        .entry(header::REFERRER_POLICY)
        .or_insert(HeaderValue::from_static("strict-origin-when-cross-origin"));
    res
}
