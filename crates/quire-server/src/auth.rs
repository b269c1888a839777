//! Authentication: API tokens and the [`Caller`] extractor.
//!
//! Tokens are 40 random alphanumerics behind a `quire_` prefix. Only their
//! SHA-256 is stored (a token is high-entropy, so a fast hash is enough); the
//! token itself is shown once, when created, and never logged.

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
        let mut conn = state.db.read().await?;
        let user = users::by_token_hash(&mut conn, &hash_token(token.trim()))
            .await?
            .ok_or(ApiError::Unauthorized)?;
        Ok(Caller { user })
    }
}
