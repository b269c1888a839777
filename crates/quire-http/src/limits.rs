//! Rate limits: requests per one-minute window, per API token, per address
//! for requests without valid credentials, per address for published sites
//! and the web application, and, stricter, per address for sign-in and
//! token creation (the account page's among them). Every API answer says
//! where its client stands (`X-RateLimit-Limit`, `X-RateLimit-Remaining`,
//! `X-RateLimit-Reset` in Unix seconds); past the limit the answer is a 429
//! in the official error shape with `Retry-After`, and the request does
//! nothing.
//!
//! Each node counts in memory (a map lookup under a mutex: well under a
//! microsecond). On PostgreSQL the nodes share their counts through the
//! database (`quire_store::rate_counts`): a node adds its counts there once
//! a second and reads a client's total on the client's first request of a
//! window, so a client spread over several nodes gets at most its limit plus
//! what the other nodes accepted from it within the last second.
//!
//! Credentials count only once this node knows them valid, so made-up ones
//! open no fresh counter and no larger budget: a token once it is in the
//! token cache, a `quire_session` cookie once a request's session lookup
//! found it live ([`Limiter::session_is_live`], called by
//! `session::from_parts`: every `/v1` and `/auth` request that rides on the
//! cookie looks it up anyway, so knowing it costs no query of its own). The
//! node remembers live sessions (their token hashes) for
//! [`LIVE_SESSION_TTL`] after the last lookup that found them, at most
//! [`LIVE_SESSIONS`] of them. Until then, and for unknown tokens and
//! cookies, requests count against the address as requests without
//! credentials. A signed-out session may keep the browser budget until its
//! entry expires; it authenticates nothing.
//!
//! One request may carry several (an MCP batch): the layer leaves a
//! [`Charge`] on each request it counted, with which the handler counts the
//! others against the same client's limit.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use moka::sync::Cache;
use quire_app::{App, accounts};
use quire_store::db::Backend;
use quire_store::rate_counts;

use crate::error::ApiError;
use crate::session::{self, ClientInfo};
use crate::state::AppState;

/// Requests per minute for each kind of client; 0 is unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// An API token, or a browser session (counted by its address).
    pub per_token: u32,
    /// API requests without valid credentials, per address.
    pub per_address: u32,
    /// Published sites and the web application's pages, per address.
    pub sites_per_address: u32,
    /// Sign-in, sign-in links, password changes and token creation, per
    /// address (on top of the limit their requests also count against).
    pub sign_in_per_address: u32,
}

impl RateLimits {
    /// No limit at all.
    pub const OFF: RateLimits = RateLimits {
        per_token: 0,
        per_address: 0,
        sites_per_address: 0,
        sign_in_per_address: 0,
    };

    /// What `quire serve` applies unless told otherwise.
    pub const DEFAULT: RateLimits = RateLimits {
        per_token: 3_000,
        per_address: 300,
        sites_per_address: 6_000,
        sign_in_per_address: 30,
    };
}

/// One window, in milliseconds.
const WINDOW_MS: i64 = 60_000;
/// The start of the window `now` (Unix milliseconds) falls in.
fn window_of(now: i64) -> i64 {
    now - now.rem_euclid(WINDOW_MS)
}

/// How often a node adds its counts to the shared table.
const SHARE_EVERY: Duration = Duration::from_secs(1);

/// How long a node counts a session as one after a lookup found it live.
pub const LIVE_SESSION_TTL: Duration = Duration::from_secs(60);
/// Live sessions a node remembers at most (the least used go first).
pub const LIVE_SESSIONS: u64 = 10_000;

/// A client's requests in the current window.
#[derive(Debug, Clone, Copy)]
struct Counter {
    window_start: i64,
    /// Accepted by this node.
    here: u32,
    /// Of `here`, added to the shared table already.
    shared: u32,
    /// Accepted by the other nodes, as last read.
    elsewhere: u32,
}

/// Where a client stands after one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub limit: u32,
    pub remaining: u32,
    /// When the window ends, in Unix milliseconds.
    pub resets_at: i64,
    pub allowed: bool,
}

impl Standing {
    fn retry_after_secs(&self, now: i64) -> u64 {
        u64::try_from((self.resets_at - now + 999) / 1000).unwrap_or(1).max(1)
    }

    fn headers(&self, headers: &mut HeaderMap) {
        for (name, value) in [
            ("x-ratelimit-limit", i64::from(self.limit)),
            ("x-ratelimit-remaining", i64::from(self.remaining)),
            ("x-ratelimit-reset", self.resets_at / 1000),
        ] {
            headers.insert(HeaderName::from_static(name), HeaderValue::from(value));
        }
    }
}

/// A node's counters (see the module's documentation).
pub struct Limiter {
    limits: RateLimits,
    counters: Mutex<HashMap<String, Counter>>,
    /// The token hashes of sessions found live lately.
    live_sessions: Cache<String, ()>,
    /// The application, kept by the first count, which also starts the
    /// task that forgets past windows (and on PostgreSQL shares the counts).
    tending: OnceLock<App>,
}

impl Limiter {
    pub fn new(limits: RateLimits) -> Limiter {
        Limiter {
            limits,
            counters: Mutex::default(),
            live_sessions: Cache::builder()
                .max_capacity(LIVE_SESSIONS)
                .time_to_live(LIVE_SESSION_TTL)
                .build(),
            tending: OnceLock::new(),
        }
    }

    pub fn limits(&self) -> RateLimits {
        self.limits
    }

    /// Notes that the session of `token_hash` was just found live: its
    /// requests count as a browser's (nothing is kept when nothing is
    /// limited).
    pub fn session_is_live(&self, token_hash: &str) {
        if self.limits != RateLimits::OFF {
            self.live_sessions.insert(token_hash.to_owned(), ());
        }
    }

    /// Whether this node found the session of `token_hash` live lately.
    fn knows_session(&self, token_hash: &str) -> bool {
        self.live_sessions.contains_key(token_hash)
    }

    fn counters(&self) -> std::sync::MutexGuard<'_, HashMap<String, Counter>> {
        self.counters.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether this node holds no counter of `client` for the window.
    fn is_new(&self, client: &str, window_start: i64) -> bool {
        self.counters()
            .get(client)
            .is_none_or(|counter| counter.window_start != window_start)
    }

    /// Counts one request of `client` against `limit` (unless over it);
    /// `elsewhere`: the other nodes' count, when just read.
    fn count(&self, client: &str, limit: u32, now: i64, elsewhere: Option<u32>) -> Standing {
        let window_start = window_of(now);
        let fresh = Counter {
            window_start,
            here: 0,
            shared: 0,
            elsewhere: 0,
        };
        let mut counters = self.counters();
        let counter = counters.entry(client.to_owned()).or_insert(fresh);
        if counter.window_start != window_start {
            *counter = fresh;
        }
        if let Some(elsewhere) = elsewhere {
            counter.elsewhere = counter.elsewhere.max(elsewhere);
        }
        let used = counter.here.saturating_add(counter.elsewhere);
        let allowed = used < limit;
        if allowed {
            counter.here += 1;
        }
        Standing {
            limit,
            remaining: limit.saturating_sub(used.saturating_add(u32::from(allowed))),
            resets_at: window_start + WINDOW_MS,
            allowed,
        }
    }

    /// Counts a request, first reading the other nodes' count when this is
    /// the client's first request of the window here (PostgreSQL only).
    async fn check(self: &Arc<Self>, app: &App, client: &str, limit: u32) -> Standing {
        self.tend(app);
        let now = app.now().0;
        let window_start = window_of(now);
        let mut elsewhere = None;
        if app.db.backend() == Backend::Postgres && self.is_new(client, window_start) {
            elsewhere = match app.db.read().await {
                Ok(mut conn) => rate_counts::total(&mut conn, client, window_start).await.ok(),
                Err(_) => None,
            }
            .map(|total| u32::try_from(total).unwrap_or(u32::MAX));
        }
        self.count(client, limit, now, elsewhere)
    }

    /// Starts the task that tends the counters (once) and keeps `app`.
    fn tend(self: &Arc<Self>, app: &App) {
        self.tending.get_or_init(|| {
            tokio::spawn(tend_counters(Arc::downgrade(self), app.clone()));
            app.clone()
        });
    }

    /// Forgets the counters of windows before `window_start` (so a node
    /// keeps a counter only for the clients of the current minute).
    fn forget_before(&self, window_start: i64) {
        self.counters()
            .retain(|_, counter| counter.window_start >= window_start);
    }
}

/// Once a second while the limiter lives: forgets past windows; on
/// PostgreSQL also adds this node's new counts to the shared table, learns
/// each client's total from the answer, and deletes past windows there.
async fn tend_counters(limiter: Weak<Limiter>, app: App) {
    let mut forgotten_before = 0;
    loop {
        tokio::time::sleep(SHARE_EVERY).await;
        let Some(limiter) = limiter.upgrade() else { return };
        let now = app.now().0;
        let window_start = window_of(now);
        limiter.forget_before(window_start);
        if app.db.backend() != Backend::Postgres {
            continue;
        }
        let deltas: Vec<(String, i64)> = {
            let mut counters = limiter.counters();
            counters
                .iter_mut()
                .filter(|(_, counter)| counter.here > counter.shared)
                .map(|(client, counter)| {
                    let delta = counter.here - counter.shared;
                    counter.shared = counter.here;
                    (client.clone(), i64::from(delta))
                })
                .collect()
        };
        if !deltas.is_empty() {
            match add_counts(&app, window_start, &deltas).await {
                Ok(totals) => {
                    let mut counters = limiter.counters();
                    for (client, total) in totals {
                        if let Some(counter) = counters.get_mut(&client)
                            && counter.window_start == window_start
                        {
                            let total = u32::try_from(total).unwrap_or(u32::MAX);
                            counter.elsewhere = total.saturating_sub(counter.shared);
                        }
                    }
                }
                Err(err) => tracing::warn!(error = %err, "could not share rate-limit counts"),
            }
        }
        if window_start > forgotten_before
            && let Ok(mut tx) = app.db.write().await
            && rate_counts::forget_before(&mut tx, window_start - WINDOW_MS)
                .await
                .is_ok()
            && tx.commit().await.is_ok()
        {
            forgotten_before = window_start;
        }
    }
}

async fn add_counts(app: &App, window_start: i64, deltas: &[(String, i64)]) -> anyhow::Result<Vec<(String, i64)>> {
    let mut tx = app.db.write().await?;
    let totals = rate_counts::add(&mut tx, window_start, deltas).await?;
    tx.commit().await?;
    Ok(totals)
}

/// What a request is, for its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The management API and the web application's `/auth` API.
    Api,
    /// Published sites, the web application's pages, everything else.
    Site,
    /// Probes: never limited.
    Probe,
}

fn kind(path: &str) -> Kind {
    if path == "/health" || path == "/ready" {
        Kind::Probe
    } else if path == "/v1"
        || path.starts_with("/v1/")
        || path.starts_with("/auth/")
        || path == "/mcp"
        || path.starts_with("/oauth/")
    {
        Kind::Api
    } else {
        Kind::Site
    }
}

/// Sign-in, sign-in links, password changes, token creation (the web
/// application's, the account page's, and an MCP client's registration,
/// consent and code exchange).
fn is_sign_in(method: &Method, path: &str) -> bool {
    method != Method::GET
        && method != Method::HEAD
        && (matches!(
            path,
            "/auth/sign-in" | "/auth/tokens" | "/auth/password" | "/account/tokens"
        ) || path.starts_with("/auth/links")
            || path.starts_with("/oauth/")
            || (path.starts_with("/saml/") && path.ends_with("/acs")))
}

/// Who a request is counted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Client {
    /// A token this node knows valid.
    Token,
    /// An address, for API requests without valid credentials.
    Address,
    /// A browser session's address.
    Browser,
    /// An address, on sites.
    Site,
    /// An address, signing in or creating a token.
    SignIn,
}

impl Client {
    /// The client's name in counters and metrics.
    fn label(self) -> &'static str {
        match self {
            Client::Token => "token",
            Client::Address => "address",
            Client::Browser => "browser",
            Client::Site => "site",
            Client::SignIn => "sign_in",
        }
    }

    /// Counts a request of this client refused for its limit.
    fn count_refusal(self) {
        quire_metrics::metrics()
            .rate_limited
            .get_or_create(&quire_metrics::LimitLabels { client: self.label() })
            .inc();
    }
}

/// The client a request was counted as, left on the request by the layer:
/// a handler whose one request carries several (an MCP batch) counts each
/// of the others with [`Charge::one_more`]. Extracted where nothing is
/// limited, it never refuses.
#[derive(Clone, Default)]
pub struct Charge(Option<Arc<Charged>>);

struct Charged {
    limiter: Arc<Limiter>,
    client: Client,
    /// The client's counter.
    key: String,
    limit: u32,
    /// Where the client stands after its latest request (for the answer's
    /// headers).
    standing: Mutex<Standing>,
}

/// A client past its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitReached {
    pub limit: u32,
    pub retry_after_secs: u64,
}

impl std::fmt::Display for LimitReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rate limit reached: {} requests a minute; retry in {} s",
            self.limit, self.retry_after_secs
        )
    }
}

impl Charge {
    /// Counts one more request of this request's client; refused (and not
    /// counted) past its limit.
    pub async fn one_more(&self) -> Result<(), LimitReached> {
        let Some(charged) = &self.0 else {
            return Ok(());
        };
        // The layer counted this request first, so the limiter has the app.
        let Some(app) = charged.limiter.tending.get() else {
            return Ok(());
        };
        let standing = charged.limiter.check(app, &charged.key, charged.limit).await;
        *charged
            .standing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = standing;
        if standing.allowed {
            return Ok(());
        }
        charged.client.count_refusal();
        Err(LimitReached {
            limit: standing.limit,
            retry_after_secs: standing.retry_after_secs(app.now().0),
        })
    }

    /// Where the client stands after this request's latest count.
    fn standing(&self) -> Option<Standing> {
        let charged = self.0.as_ref()?;
        Some(
            *charged
                .standing
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Charge {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Charge, Infallible> {
        Ok(parts.extensions.get::<Charge>().cloned().unwrap_or_default())
    }
}

/// The layer: counts the request against its limits, refuses it with a 429
/// past one, and writes the standing on API answers.
pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limits = state.limiter.limits;
    let kind = kind(request.uri().path());
    if kind == Kind::Probe {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let address = match ClientInfo::from_request_parts(&mut parts, &state).await {
        Ok(ClientInfo(client)) => client.address.unwrap_or_else(|| "unknown".to_owned()),
        Err(_) => "unknown".to_owned(),
    };
    let now = state.app.now().0;
    if limits.sign_in_per_address > 0 && is_sign_in(&parts.method, parts.uri.path()) {
        let key = format!("{}:{address}", Client::SignIn.label());
        let standing = state.limiter.check(&state.app, &key, limits.sign_in_per_address).await;
        if !standing.allowed {
            return refused(Client::SignIn, standing, now);
        }
    }
    let (client, id, limit) = match kind {
        Kind::Site => (Client::Site, address, limits.sites_per_address),
        _ => match bearer_hash(&parts.headers) {
            Some(hash) if state.tokens.knows(&hash) => (Client::Token, hash, limits.per_token),
            Some(_) => (Client::Address, address, limits.per_address),
            None => match session::token(&parts.headers) {
                Some(token) if state.limiter.knows_session(&accounts::hash_token(&token)) => {
                    (Client::Browser, address, limits.per_token)
                }
                _ => (Client::Address, address, limits.per_address),
            },
        },
    };
    if limit == 0 {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let key = format!("{}:{id}", client.label());
    let standing = state.limiter.check(&state.app, &key, limit).await;
    if !standing.allowed {
        return refused(client, standing, now);
    }
    let charge = Charge(Some(Arc::new(Charged {
        limiter: state.limiter.clone(),
        client,
        key,
        limit,
        standing: Mutex::new(standing),
    })));
    parts.extensions.insert(charge.clone());
    let mut response = next.run(Request::from_parts(parts, body)).await;
    if kind == Kind::Api
        && let Some(standing) = charge.standing()
    {
        standing.headers(response.headers_mut());
    }
    response
}

/// The hash of the request's bearer token, if it has one.
fn bearer_hash(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| accounts::hash_token(token.trim()))
}

/// The 429 for a client past its limit.
fn refused(client: Client, standing: Standing, now: i64) -> Response {
    client.count_refusal();
    let reached = LimitReached {
        limit: standing.limit,
        retry_after_secs: standing.retry_after_secs(now),
    };
    let mut response = ApiError::TooManyRequests {
        message: reached.to_string(),
        retry_after_secs: reached.retry_after_secs,
    }
    .into_response();
    standing.headers(response.headers_mut());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_up_to_its_limit_then_resets() {
        let limiter = Limiter::new(RateLimits::DEFAULT);
        let start = 120_000;
        let first = limiter.count("a", 2, start + 5, None);
        assert_eq!((first.allowed, first.remaining, first.resets_at), (true, 1, 180_000));
        assert!(limiter.count("a", 2, start + 6, None).allowed);
        let third = limiter.count("a", 2, start + 7, None);
        assert_eq!((third.allowed, third.remaining), (false, 0));
        assert_eq!(third.retry_after_secs(start + 7), 60);
        assert!(limiter.count("b", 2, start + 8, None).allowed, "clients count apart");
        assert!(limiter.count("a", 2, start + WINDOW_MS, None).allowed, "a new window");
    }

    #[test]
    fn past_windows_are_forgotten() {
        let limiter = Limiter::new(RateLimits::DEFAULT);
        limiter.count("old", 5, 10, None);
        limiter.count("new", 5, WINDOW_MS + 10, None);
        limiter.forget_before(WINDOW_MS);
        assert_eq!(limiter.counters().keys().collect::<Vec<_>>(), ["new"]);
    }

    #[test]
    fn other_nodes_counts_use_up_the_limit() {
        let limiter = Limiter::new(RateLimits::DEFAULT);
        assert!(limiter.count("a", 5, 0, Some(4)).allowed);
        assert!(!limiter.count("a", 5, 1, None).allowed);
    }

    #[test]
    fn live_sessions_are_remembered_only_when_something_is_limited() {
        let limiter = Limiter::new(RateLimits::DEFAULT);
        assert!(!limiter.knows_session("hash"));
        limiter.session_is_live("hash");
        assert!(limiter.knows_session("hash"));
        assert!(!limiter.knows_session("made-up"));
        let unlimited = Limiter::new(RateLimits::OFF);
        unlimited.session_is_live("hash");
        assert!(!unlimited.knows_session("hash"));
    }

    #[test]
    fn kinds_of_requests() {
        assert_eq!(kind("/v1/user"), Kind::Api);
        assert_eq!(kind("/auth/tokens"), Kind::Api);
        assert_eq!(kind("/health"), Kind::Probe);
        assert_eq!(kind("/docs/page"), Kind::Site);
        assert_eq!(kind("/mcp"), Kind::Api);
        assert_eq!(kind("/docs/~gitbook/mcp"), Kind::Site);
        assert!(is_sign_in(&Method::POST, "/oauth/token"));
        assert!(is_sign_in(&Method::POST, "/oauth/register"));
        assert!(!is_sign_in(&Method::GET, "/oauth/authorize"));
        assert!(is_sign_in(&Method::POST, "/auth/sign-in"));
        assert!(is_sign_in(&Method::POST, "/saml/abc/acs"));
        assert!(!is_sign_in(&Method::GET, "/auth/tokens"));
        assert!(is_sign_in(&Method::POST, "/auth/tokens"));
        assert!(
            is_sign_in(&Method::POST, "/account/tokens"),
            "the account page makes tokens too"
        );
        assert!(!is_sign_in(&Method::GET, "/account"));
        assert!(!is_sign_in(&Method::DELETE, "/v1/user"));
    }
}
