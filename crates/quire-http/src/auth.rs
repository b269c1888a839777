//! Authentication: the [`Auth`] extractor turns `Authorization: Bearer
//! <token>` into the [`Caller`] every operation runs for. Without that
//! header, the browser session's cookie authenticates (the web application
//! is a client of the API), with its CSRF token on every request that
//! changes something (see [`crate::session`]).
//!
//! Every `/v1` request authenticates, so each node keeps recently seen token
//! hashes for [`TOKEN_CACHE_TTL`]. Revoking a token announces it on the bus
//! (`token.revoked`, from the revoking transaction), and every node that
//! hears it forgets the token at once; a node whose bus reconnected or fell
//! behind forgets every token. Tokens are never logged.

use std::sync::{Arc, Once};
use std::time::Duration;

use moka::sync::Cache;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use quire_app::Caller;
use quire_app::accounts;
use quire_app::sessions::Credential;
use quire_store::bus::Heard;
use quire_store::users::UserRow;

use crate::error::ApiError;
use crate::state::AppState;

/// How long a node trusts a token it has looked up.
pub const TOKEN_CACHE_TTL: Duration = Duration::from_secs(30);
/// Tokens a node remembers at most.
pub const TOKEN_CACHE_CAPACITY: u64 = 10_000;

/// Token hashes recently found valid, with their user: at most
/// [`TOKEN_CACHE_CAPACITY`] (the least used go first), each for
/// [`TOKEN_CACHE_TTL`].
pub struct TokenCache {
    entries: Cache<String, UserRow>,
    listening: Once,
}

impl Default for TokenCache {
    fn default() -> TokenCache {
        TokenCache {
            entries: Cache::builder()
                .max_capacity(TOKEN_CACHE_CAPACITY)
                .time_to_live(TOKEN_CACHE_TTL)
                .build(),
            listening: Once::new(),
        }
    }
}

impl TokenCache {
    /// Starts following revocations on the bus (once per node).
    fn follow(self: &Arc<Self>, app: &quire_app::App) {
        self.listening.call_once(|| {
            app.db.bus().follow(self, |cache, heard| match heard {
                Heard::Message(message) if message.topic == accounts::TOKEN_REVOKED => cache.forget(&message.body),
                Heard::Message(_) => {}
                Heard::Missed => cache.entries.invalidate_all(),
            })
        });
    }

    fn get(&self, hash: &str) -> Option<UserRow> {
        self.entries.get(hash)
    }

    /// Whether this node knows the token (by its hash) valid.
    pub fn knows(&self, hash: &str) -> bool {
        self.entries.contains_key(hash)
    }

    /// Drops a revoked token.
    pub fn forget(&self, hash: &str) {
        self.entries.invalidate(hash);
    }

    fn put(&self, hash: String, user: UserRow) {
        self.entries.insert(hash, user);
    }
}

/// What the request authenticates with, as [`Auth`] reads it (a bearer
/// token first, else the session cookie), for a connection that outlives
/// the request and must be checked again later (co-editing sockets).
pub fn credential(headers: &axum::http::HeaderMap) -> Option<Credential> {
    if let Some(header) = headers.get(AUTHORIZATION) {
        let (scheme, token) = header.to_str().ok()?.trim().split_once(' ')?;
        return (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty())
            .then(|| Credential::Token(accounts::hash_token(token.trim())));
    }
    crate::session::token(headers).map(|token| Credential::Session(accounts::hash_token(&token)))
}

/// The authenticated caller of a request; 401 without a valid token.
pub struct Auth(pub Caller);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(header) = parts.headers.get(AUTHORIZATION) else {
            return match crate::session::from_parts(parts, state).await? {
                Some(session) => {
                    let caller = session.caller();
                    crate::audit::acting(&caller);
                    Ok(Auth(caller))
                }
                None => Err(ApiError::Unauthorized),
            };
        };
        let value = header.to_str().map_err(|_| ApiError::Unauthorized)?;
        let (scheme, token) = value.trim().split_once(' ').ok_or(ApiError::Unauthorized)?;
        if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
            return Err(ApiError::Unauthorized);
        }
        let hash = accounts::hash_token(token.trim());
        state.tokens.follow(&state.app);
        if let Some(user) = state.tokens.get(&hash) {
            quire_metrics::cache_lookup("tokens", true);
            let caller = Caller::with_token(user);
            crate::audit::acting(&caller);
            return Ok(Auth(caller));
        }
        quire_metrics::cache_lookup("tokens", false);
        let user = accounts::user_for_token_hash(&state.app, &hash)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        state.tokens.put(hash, user.clone());
        let caller = Caller::with_token(user);
        crate::audit::acting(&caller);
        Ok(Auth(caller))
    }
}
