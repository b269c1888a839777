//! The hottest API reads kept in memory, and every write announced.
//!
//! - **Kept**: a `200` of `GET /v1/user`, `/v1/orgs/{id}`, `/v1/spaces/{id}`
//!   and `/v1/spaces/{id}/content` ([`kept_route`]), found by a digest of
//!   the caller's credentials (the `Authorization` and `Cookie` headers),
//!   the path and query and `Accept`: an answer is only ever given again to
//!   the same credentials, so every access rule already applied to it.
//! - **Dropped**, on every node, when the bus says something changed:
//!   `state.changed` (which this layer announces after every successful
//!   write through `/v1` or `/auth`, and the job runner after every job),
//!   `space.revision`, `token.revoked`, and when the bus reconnected or
//!   fell behind. An answer rendered while such a message arrived is not
//!   kept (a generation number read before must still hold). What changes
//!   without any of these (a command run beside a SQLite server, in
//!   another process; a session reaching its end) is dropped after
//!   [`KEEP_AT_MOST`] anyway.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use moka::sync::Cache;
use quire_app::App;
use quire_app::changes::{self, STATE_CHANGED};
use quire_core::memory::CACHE_ENTRY_OVERHEAD;
use quire_store::bus::{Heard, Message};

use crate::state::AppState;

/// Answers larger than this are not kept.
const MAX_KEPT_BYTES: usize = 1024 * 1024;
/// How long an answer is kept even if nothing is heard.
pub const KEEP_AT_MOST: Duration = Duration::from_secs(10);

struct Kept {
    headers: HeaderMap,
    body: Bytes,
    /// The route that answered, for the request metrics.
    route: Option<axum::extract::MatchedPath>,
}

/// The kept reads of one node.
pub struct ReadCache {
    answers: Cache<String, Arc<Kept>>,
    generation: AtomicU64,
    listening: Once,
}

impl ReadCache {
    /// A cache of at most `bytes` of answers.
    fn new(bytes: u64) -> ReadCache {
        ReadCache {
            answers: Cache::builder()
                .max_capacity(bytes)
                .weigher(|key: &String, kept: &Arc<Kept>| {
                    let record = quire_core::memory::arc_bytes::<Kept>() + 64 * kept.headers.len();
                    u32::try_from(key.len() + kept.body.len() + record + CACHE_ENTRY_OVERHEAD).unwrap_or(u32::MAX)
                })
                .time_to_live(KEEP_AT_MOST)
                .build(),
            generation: AtomicU64::new(0),
            listening: Once::new(),
        }
    }

    /// A cache of at most `bytes` whose size the metrics report.
    pub fn watched(bytes: u64) -> Arc<ReadCache> {
        let cache = Arc::new(ReadCache::new(bytes));
        quire_metrics::watch_caches(&cache, |cache| {
            vec![("api_reads", cache.answers.entry_count(), cache.answers.weighted_size())]
        });
        cache
    }
}

impl ReadCache {
    fn follow(self: &Arc<Self>, app: &App) {
        self.listening.call_once(|| {
            app.db.bus().follow(self, |cache, heard| match heard {
                Heard::Message(message) if !changes_reads(&message) => {}
                Heard::Message(_) | Heard::Missed => cache.clear(),
            })
        });
    }

    fn clear(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.answers.invalidate_all();
    }
}

fn changes_reads(message: &Message) -> bool {
    matches!(
        message.topic.as_str(),
        STATE_CHANGED
            | changes::PUBLISHED_CHANGED
            | quire_engine::revisions::SPACE_REVISION
            | quire_app::accounts::TOKEN_REVOKED
    )
}

/// Whether a `GET` of `path` (the whole path, `/v1/...`) is one whose
/// answer is kept.
pub fn kept_route(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
    matches!(
        segments.as_slice(),
        ["v1", "user"] | ["v1", "orgs", _] | ["v1", "spaces", _] | ["v1", "spaces", _, "content"]
    )
}

/// Whether a request writes (and is announced once it succeeded).
fn writes(method: &Method, path: &str) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
        && (path.starts_with("/v1/") || path.starts_with("/auth/"))
}

fn key(request: &Request) -> String {
    let headers = request.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default();
    quire_core::digest::sha256_hex(
        format!(
            "{}\n{}\n{}\n{}",
            text(header::AUTHORIZATION),
            text(header::COOKIE),
            request.uri().path_and_query().map(|p| p.as_str()).unwrap_or_default(),
            text(header::ACCEPT)
        )
        .as_bytes(),
    )
}

/// Whether the answer's body is of known size, at most `max` bytes (what
/// a layer may read whole to keep it).
pub fn body_at_most(response: &Response, max: usize) -> bool {
    axum::body::HttpBody::size_hint(response.body())
        .upper()
        .is_some_and(|n| n <= max as u64)
}

/// The layer: answers a kept read from memory, keeps what may be kept, and
/// announces every successful write.
pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if writes(request.method(), path) {
        let response = next.run(request).await;
        if response.status().is_success() || response.status().is_redirection() {
            changes::announce(&state.app, STATE_CHANGED).await;
        }
        return response;
    }
    if request.method() != Method::GET || !kept_route(path) {
        return next.run(request).await;
    }
    let cache = &state.reads;
    cache.follow(&state.app);
    let key = key(&request);
    if let Some(kept) = cache.answers.get(&key) {
        quire_metrics::cache_lookup("api_reads", true);
        let mut response = Response::new(Body::from(kept.body.clone()));
        *response.headers_mut() = kept.headers.clone();
        if let Some(route) = &kept.route {
            response.extensions_mut().insert(route.clone());
        }
        return response;
    }
    quire_metrics::cache_lookup("api_reads", false);
    let generation = cache.generation.load(Ordering::SeqCst);
    let response = next.run(request).await;
    // Only a complete body of known, modest size is kept; anything else
    // (a large page list) goes out as it is.
    if response.status() != StatusCode::OK
        || response.headers().contains_key(header::SET_COOKIE)
        || !body_at_most(&response, MAX_KEPT_BYTES)
    {
        return response;
    }
    let (parts, body) = response.into_parts();
    let body = match axum::body::to_bytes(body, MAX_KEPT_BYTES).await {
        Ok(body) => body,
        Err(e) => {
            tracing::error!(error = %e, "an API answer could not be read");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    if cache.generation.load(Ordering::SeqCst) == generation {
        cache.answers.insert(
            key,
            Arc::new(Kept {
                headers: parts.headers.clone(),
                body: body.clone(),
                route: parts.extensions.get::<axum::extract::MatchedPath>().cloned(),
            }),
        );
    }
    Response::from_parts(parts, Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_reads_are_named() {
        assert!(kept_route("/v1/user"));
        assert!(kept_route("/v1/orgs/o1"));
        assert!(kept_route("/v1/spaces/s1"));
        assert!(kept_route("/v1/spaces/s1/content"));
        assert!(!kept_route("/v1/orgs/o1/members"));
        assert!(!kept_route("/v1/spaces/s1/change-requests"));
        assert!(!kept_route("/auth/session"));
        assert!(writes(&Method::POST, "/auth/sign-out"));
        assert!(writes(&Method::PATCH, "/v1/spaces/s1"));
        assert!(!writes(&Method::GET, "/v1/spaces/s1"));
        assert!(!writes(&Method::POST, "/docs/search"));
    }
}
