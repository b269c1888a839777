//! Authentication: the [`Auth`] extractor turns `Authorization: Bearer
//! <token>` into the [`Caller`] every operation runs for.
//!
//! Every `/v1` request authenticates, so each node keeps recently seen token
//! hashes for [`TOKEN_CACHE_TTL`]. Revoking a token (on the account page)
//! clears it from this node's cache at once; other nodes stop accepting it
//! within the TTL. Tokens are never logged.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use quire_app::Caller;
use quire_app::accounts;
use quire_store::users::UserRow;

use crate::error::ApiError;
use crate::state::AppState;

/// How long a node trusts a token it has looked up.
pub const TOKEN_CACHE_TTL: Duration = Duration::from_secs(30);
const TOKEN_CACHE_CAPACITY: usize = 10_000;

/// Token hashes recently found valid, with their user.
#[derive(Default)]
pub struct TokenCache {
    entries: Mutex<HashMap<String, (UserRow, Instant)>>,
}

impl TokenCache {
    fn get(&self, hash: &str) -> Option<UserRow> {
        let entries = self.entries.lock().expect("token cache lock");
        entries
            .get(hash)
            .filter(|(_, at)| at.elapsed() < TOKEN_CACHE_TTL)
            .map(|(user, _)| user.clone())
    }

    /// Drops a revoked token.
    pub fn forget(&self, hash: &str) {
        self.entries.lock().expect("token cache lock").remove(hash);
    }

    fn put(&self, hash: String, user: UserRow) {
        let mut entries = self.entries.lock().expect("token cache lock");
        if entries.len() >= TOKEN_CACHE_CAPACITY {
            entries.retain(|_, (_, at)| at.elapsed() < TOKEN_CACHE_TTL);
            if entries.len() >= TOKEN_CACHE_CAPACITY {
                entries.clear();
            }
        }
        entries.insert(hash, (user, Instant::now()));
    }
}

/// The authenticated caller of a request; 401 without a valid token.
pub struct Auth(pub Caller);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let header = parts.headers.get(AUTHORIZATION).ok_or(ApiError::Unauthorized)?;
        let value = header.to_str().map_err(|_| ApiError::Unauthorized)?;
        let (scheme, token) = value.trim().split_once(' ').ok_or(ApiError::Unauthorized)?;
        if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
            return Err(ApiError::Unauthorized);
        }
        let hash = accounts::hash_token(token.trim());
        if let Some(user) = state.tokens.get(&hash) {
            return Ok(Auth(Caller { user }));
        }
        let user = accounts::user_for_token_hash(&state.app, &hash)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        state.tokens.put(hash, user.clone());
        Ok(Auth(Caller { user }))
    }
}
