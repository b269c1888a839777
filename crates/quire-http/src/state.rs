//! What every handler can reach: the application and where this server is
//! reached from outside (for the `urls` fields of responses).

use std::sync::Arc;

use quire_app::App;

#[derive(Clone)]
pub struct AppState {
    pub app: App,
    /// Recently authenticated tokens (see `auth`).
    pub tokens: Arc<crate::auth::TokenCache>,
    /// The hottest API reads, kept (see `reads`).
    pub reads: Arc<crate::reads::ReadCache>,
    /// Requests counted against the rate limits (see `limits`); none by
    /// default, the binary sets the operator's.
    pub limiter: Arc<crate::limits::Limiter>,
    /// Absolute base URL this server is reached at, without a trailing slash;
    /// `urls` fields in responses are built from it.
    pub public_url: Arc<str>,
    /// Whether requests come through a reverse proxy that sets
    /// `X-Forwarded-For` (then its last address is the client's).
    pub behind_proxy: bool,
    /// Whether every request is counted and timed for `/metrics` (set when
    /// the operator serves them; otherwise those layers are left out).
    pub metrics: bool,
}

impl AppState {
    pub fn new(app: App, public_url: &str) -> AppState {
        let kept_bytes = app
            .settings
            .cache_budget
            .share(quire_core::memory::CacheShare::ApiReads);
        AppState {
            app,
            tokens: Arc::default(),
            reads: crate::reads::ReadCache::watched(kept_bytes),
            limiter: Arc::new(crate::limits::Limiter::new(crate::limits::RateLimits::OFF)),
            public_url: public_url.trim_end_matches('/').into(),
            behind_proxy: false,
            metrics: false,
        }
    }

    /// `<public url>/v1<path>`: the API location of a resource.
    pub fn api_url(&self, path: &str) -> String {
        format!("{}/v1{}", self.public_url, path)
    }

    /// `<public url><path>`: a location in the web application, the path
    /// (and `#fragment`) percent-encoded where URIs need it (page slugs may
    /// hold any letter).
    pub fn app_url(&self, path: &str) -> String {
        format!("{}{}", self.public_url, quire_core::percent::encode_uri(path))
    }
}
