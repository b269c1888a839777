//! Published answers kept in memory: a page (HTML or markdown), robots,
//! sitemap, llms, the feed, search results, a page's social image, a site's
//! "not found" — each rendered once, kept with its gzip and brotli forms
//! (not an image's) and an `ETag`, and served again without touching the
//! database while nothing changed.
//!
//! - **What an answer is for**: the request's host, path and query, whether
//!   it asked for markdown, and its `Cookie` header (where a visitor's
//!   token and claims travel), digested together. Two visitors share an
//!   answer only when they send the same thing; an audience is never
//!   crossed.
//! - **What may be kept**: only what the pipeline marks [`Keep`] (an answer
//!   that sets a cookie, redirects or streams a file is never marked); a
//!   visitor's answer no longer than their token lives.
//! - **When it goes**: on the bus messages that say published output may
//!   have changed (`space.revision` from the content engine,
//!   `published.changed` from the writes of sites, specs, organizations and
//!   spaces, see [`may_change_published`]) every node drops every answer at
//!   once, and when its bus reconnected or lagged. An answer rendered while
//!   such a message arrived is not kept: a generation number, read before
//!   rendering, must be unchanged when it is stored.

use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use moka::sync::Cache;
use quire_app::App;
use quire_store::bus::{Heard, Message};

/// Answers larger than this are served without being kept.
const MAX_KEPT_BYTES: usize = 4 * 1024 * 1024;
/// Bodies smaller than this are not compressed (the headers would cost
/// more than they save).
const COMPRESS_FROM: usize = 1024;

/// The mark an answer of the pipeline carries when it may be kept:
/// `until`, the Unix second it stops being valid (a visitor's token's
/// expiry), if any.
#[derive(Debug, Clone, Copy)]
pub(super) struct Keep {
    pub until: Option<i64>,
}

/// One kept answer.
struct Kept {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
    gzip: Option<Bytes>,
    brotli: Option<Bytes>,
    etag: HeaderValue,
    until: Option<i64>,
}

impl Kept {
    /// An answer to keep: its compressed forms and `ETag` made once.
    fn new(status: StatusCode, mut headers: HeaderMap, body: Bytes, until: Option<i64>) -> Kept {
        let compressible = body.len() >= COMPRESS_FROM && !compressed_already(&headers);
        let gzip = compressible.then(|| gzip(&body)).flatten();
        let brotli = compressible.then(|| brotli(&body)).flatten();
        let etag = HeaderValue::from_str(&format!("\"{}\"", &quire_core::digest::sha256_hex(&body)[..32]))
            .unwrap_or_else(|_| HeaderValue::from_static("\"\""));
        headers.remove(header::CONTENT_LENGTH);
        Kept {
            status,
            headers,
            body,
            gzip,
            brotli,
            etag,
            until,
        }
    }

    /// Its bodies, headers (about 64 bytes each) and record, with the
    /// cache's bookkeeping.
    fn weight(&self) -> u32 {
        let size =
            self.body.len() + self.gzip.as_ref().map_or(0, Bytes::len) + self.brotli.as_ref().map_or(0, Bytes::len);
        let record = quire_core::memory::arc_bytes::<Kept>() + 64 * self.headers.len();
        u32::try_from(size + record + quire_core::memory::CACHE_ENTRY_OVERHEAD).unwrap_or(u32::MAX)
    }
}

/// The answers of one node.
pub(super) struct PageCache {
    answers: Cache<String, Arc<Kept>>,
    /// Changes heard so far; an answer is kept only if none was heard while
    /// it was rendered.
    generation: AtomicU64,
    listening: Once,
}

impl PageCache {
    fn new(bytes: u64) -> PageCache {
        PageCache {
            answers: Cache::builder()
                .max_capacity(bytes)
                .weigher(|_: &String, kept: &Arc<Kept>| kept.weight())
                .build(),
            generation: AtomicU64::new(0),
            listening: Once::new(),
        }
    }

    /// A cache of at most `bytes` whose size the metrics report.
    pub(super) fn watched(bytes: u64) -> Arc<PageCache> {
        let cache = Arc::new(PageCache::new(bytes));
        quire_metrics::watch_caches(&cache, |cache| {
            vec![("published", cache.answers.entry_count(), cache.answers.weighted_size())]
        });
        cache
    }

    /// Starts following the bus (once per node, on the first request).
    fn listen(self: &Arc<Self>, app: &App) {
        self.listening.call_once(|| {
            app.db.bus().follow(self, |cache, heard| match heard {
                Heard::Message(message) if !changes_published(&message) => {}
                Heard::Message(_) | Heard::Missed => cache.clear(),
            })
        });
    }

    fn clear(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.answers.invalidate_all();
    }
}

/// Whether a bus message may change what published sites show.
fn changes_published(message: &Message) -> bool {
    matches!(
        message.topic.as_str(),
        quire_engine::revisions::SPACE_REVISION | quire_app::changes::PUBLISHED_CHANGED
    )
}

/// What an answer is for (see the module's documentation), digested.
fn key(headers: &HeaderMap, uri: &Uri) -> String {
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let markdown = text(header::ACCEPT).contains("text/markdown");
    quire_core::digest::sha256_hex(
        format!(
            "{}\n{}\n{}\n{}",
            text(header::HOST),
            uri.path_and_query().map(|p| p.as_str()).unwrap_or_default(),
            markdown,
            text(header::COOKIE)
        )
        .as_bytes(),
    )
}

/// Serves `uri` from memory when an answer for it is kept; otherwise
/// renders it with `render` and keeps it if it may be kept.
pub(super) async fn serve<F, Fut>(
    cache: &Arc<PageCache>,
    app: &App,
    method: &Method,
    headers: &HeaderMap,
    uri: &Uri,
    render: F,
) -> Response
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Response>,
{
    cache.listen(app);
    let key = key(headers, uri);
    let now = app.now().0 / 1000;
    if let Some(kept) = cache.answers.get(&key) {
        if kept.until.is_none_or(|until| now < until) {
            quire_metrics::cache_lookup("published", true);
            return answer_from(&kept, method, headers);
        }
        cache.answers.invalidate(&key);
    }
    quire_metrics::cache_lookup("published", false);
    let generation = cache.generation.load(Ordering::SeqCst);
    let response = render().await;
    let Some(keep) = response.extensions().get::<Keep>().copied() else {
        return response;
    };
    // A body of unknown or large size (a big `llms-full.txt`) goes out
    // as it is.
    if !quire_http::reads::body_at_most(&response, MAX_KEPT_BYTES) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let body = match axum::body::to_bytes(body, MAX_KEPT_BYTES).await {
        Ok(body) => body,
        Err(e) => {
            tracing::error!(error = %e, "a published answer could not be read");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let kept = Arc::new(Kept::new(parts.status, parts.headers, body, keep.until));
    if cache.generation.load(Ordering::SeqCst) == generation {
        cache.answers.insert(key, kept.clone());
    }
    answer_from(&kept, method, headers)
}

/// Whether an answer's type is compressed already (a PNG: a page's social
/// image), so gzip and brotli would only cost memory.
fn compressed_already(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("image/") && !t.starts_with("image/svg"))
}

fn gzip(body: &[u8]) -> Option<Bytes> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    encoder.write_all(body).ok()?;
    encoder.finish().ok().map(Bytes::from)
}

/// Brotli at quality 5, with a window no larger than the body needs: the
/// default 4 MiB window made every compression allocate (and touch) 4 MiB
/// for pages of some kilobytes.
fn brotli(body: &[u8]) -> Option<Bytes> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 5,
        lgwin: brotli_window_bits(body.len()),
        size_hint: body.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &body[..], &mut out, &params).ok()?;
    Some(Bytes::from(out))
}

/// The smallest brotli window (10 to 22 bits, the default) that holds
/// `len` bytes.
fn brotli_window_bits(len: usize) -> i32 {
    let bits = usize::BITS - len.max(1).saturating_sub(1).leading_zeros();
    i32::try_from(bits.clamp(10, 22)).unwrap_or(22)
}

/// A kept answer for this request: `304` when the client holds it, else in
/// the best encoding the client accepts.
fn answer_from(kept: &Kept, method: &Method, request: &HeaderMap) -> Response {
    let mut headers = kept.headers.clone();
    headers.insert(header::ETAG, kept.etag.clone());
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Accept, Accept-Encoding, Cookie"),
    );
    // Kept answers change with any publication: browsers may keep them,
    // asking each time whether they still hold (a 304 when they do).
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-cache"));
    let policy = super::security::policy_for(headers.get(header::CONTENT_TYPE));
    headers.entry(header::CONTENT_SECURITY_POLICY).or_insert(policy);
    let held = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',').any(|tag| {
                tag.trim().trim_start_matches("W/") == kept.etag.to_str().unwrap_or_default() || tag.trim() == "*"
            })
        });
    if held && kept.status == StatusCode::OK {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        // The headers a browser merges into what it kept: the same as the
        // 200's, so nothing of the page changes (the policy above all).
        for name in [
            header::ETAG,
            header::VARY,
            header::CACHE_CONTROL,
            header::CONTENT_SECURITY_POLICY,
        ] {
            if let Some(value) = headers.get(&name) {
                response.headers_mut().insert(name, value.clone());
            }
        }
        return response;
    }
    let accepts = request
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let accepted = |coding: &str| {
        accepts.split(',').any(|part| {
            let mut pieces = part.split(';');
            let name = pieces.next().unwrap_or_default().trim();
            let refused = pieces.any(|p| matches!(p.trim(), "q=0" | "q=0.0" | "q=0.00" | "q=0.000"));
            name.eq_ignore_ascii_case(coding) && !refused
        })
    };
    let (body, coding) = match (&kept.brotli, &kept.gzip) {
        (Some(br), _) if accepted("br") => (br.clone(), Some("br")),
        (_, Some(gz)) if accepted("gzip") => (gz.clone(), Some("gzip")),
        _ => (kept.body.clone(), None),
    };
    if let Some(coding) = coding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(body)
    };
    let mut response = Response::new(body);
    *response.status_mut() = kept.status;
    *response.headers_mut() = headers;
    response
}

/// Whether a write through the API (`method` on `path`, the path inside
/// `/v1`) may change what published sites show beyond a space's revision
/// (which the engine announces): an organization itself, its sites and
/// everything under them, its OpenAPI specs, a space's settings, a space
/// restored, moved or transferred.
pub fn may_change_published(method: &Method, path: &str) -> bool {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return false;
    }
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["orgs", _] | ["spaces", _] => true,
        ["orgs", _, area, ..] => matches!(*area, "sites" | "openapi"),
        ["spaces", _, action] => matches!(*action, "restore" | "move" | "transfer"),
        _ => false,
    }
}

/// The layer around the API: after a write [`may_change_published`] names
/// succeeded (its transaction committed), every node hears
/// `published.changed`.
pub async fn announce_published_writes(State(app): State<App>, request: Request, next: Next) -> Response {
    let announce = may_change_published(request.method(), request.uri().path());
    let response = next.run(request).await;
    if announce && response.status().is_success() {
        quire_app::changes::announce(&app, quire_app::changes::PUBLISHED_CHANGED).await;
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_that_change_published_sites_are_named() {
        let post = Method::POST;
        assert!(may_change_published(&Method::PATCH, "/orgs/o1"));
        assert!(may_change_published(&post, "/orgs/o1/sites/s1/share-links"));
        assert!(may_change_published(
            &Method::DELETE,
            "/orgs/o1/sites/s1/share-links/l1"
        ));
        assert!(may_change_published(&Method::PUT, "/orgs/o1/openapi/pets"));
        assert!(may_change_published(&Method::PATCH, "/spaces/s1"));
        assert!(may_change_published(&post, "/spaces/s1/transfer"));
        // Reads, and writes whose effect the engine announces (or none).
        assert!(!may_change_published(&Method::GET, "/orgs/o1/sites/s1"));
        assert!(!may_change_published(&post, "/orgs/o1/members"));
        assert!(!may_change_published(&post, "/spaces/s1/change-requests"));
        assert!(!may_change_published(&post, "/spaces/s1/comments"));
    }

    #[test]
    fn brotli_windows_fit_the_body_and_bodies_come_back_whole() {
        assert_eq!(brotli_window_bits(0), 10);
        assert_eq!(brotli_window_bits(1024), 10);
        assert_eq!(brotli_window_bits(1025), 11);
        assert_eq!(brotli_window_bits(40_000), 16);
        assert_eq!(brotli_window_bits(64 << 20), 22);
        for len in [0, 900, 40_000, 300_000] {
            let body: Vec<u8> = (0..len)
                .map(|i| b"published page text "[i % 20] ^ u8::from(i % 97 == 0))
                .collect();
            let compressed = brotli(&body).expect("compressed");
            let mut back = Vec::new();
            std::io::Read::read_to_end(&mut brotli::Decompressor::new(&compressed[..], 4096), &mut back)
                .expect("decompressed");
            assert_eq!(back, body, "{len} bytes");
        }
    }
}
