//! Authentication: API tokens and the [`Caller`] extractor.
//!
//! Tokens are 40 random alphanumerics behind a `quire_` prefix. Only their
//! SHA-256 is stored (a token is high-entropy, so a fast hash is enough); the
//! token itself is shown once, when created, and never logged.
//!
//! Every `/v1` request authenticates, so each node keeps recently seen token
//! hashes for [`TOKEN_CACHE_TTL`]. Tokens cannot be revoked or users deleted
//! yet; when they can, that operation must clear this cache (and other nodes
//! see the change within the TTL).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use quire_store::users::{self, UserRow};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::state::AppState;

const TOKEN_PREFIX: &str = "quire_";

/// A fresh API token, as shown to its owner.
pub fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", quire_core::id::random_alphanumeric(40))
}

/// The form a token is stored and looked up in.
pub fn hash_token(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

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

/// The authenticated user making the request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: UserRow,
}

impl Caller {
    pub fn id(&self) -> &str {
        &self.user.id
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let header = parts.headers.get(AUTHORIZATION).ok_or(ApiError::Unauthorized)?;
        let value = header.to_str().map_err(|_| ApiError::Unauthorized)?;
        let (scheme, token) = value.trim().split_once(' ').ok_or(ApiError::Unauthorized)?;
        if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
            return Err(ApiError::Unauthorized);
        }
        let hash = hash_token(token.trim());
        if let Some(user) = state.tokens.get(&hash) {
            return Ok(Caller { user });
        }
        let mut conn = state.db.read().await?;
        let user = users::by_token_hash(&mut conn, &hash)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        state.tokens.put(hash, user.clone());
        Ok(Caller { user })
    }
}
