//! The browser session over HTTP: the `quire_session` cookie, the
//! `X-CSRF-Token` header that must come with every request that changes
//! something, and where a request comes from.
//!
//! The cookie is HttpOnly, `SameSite=Lax` (an identity provider's POST or
//! redirect back to Quire is cross-site; what follows is a top-level
//! navigation, which Lax lets through), `Secure` when the public URL is
//! https. The web application reads the CSRF token from `GET /auth/session`
//! and sends it as `X-CSRF-Token`; a page of another site can neither read
//! it nor set that header without a CORS preflight Quire never grants.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use quire_app::sessions::{self, Client, Session};

use crate::error::ApiError;
use crate::state::AppState;

/// The session cookie's name.
pub const COOKIE: &str = "quire_session";
/// The header carrying the session's CSRF token.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The value of a cookie of the request.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    let values = headers
        .get_all(header::COOKIE)
        .into_iter()
        .filter_map(|v| v.to_str().ok());
    // Session tokens are short; anything longer is not one of ours.
    quire_core::cookies::value(values, name, 128).map(str::to_owned)
}

/// The session token the request's cookie holds.
pub fn token(headers: &HeaderMap) -> Option<String> {
    cookie(headers, COOKIE)
}

/// `Set-Cookie` for a session token (an empty value and no age end it).
pub fn set_cookie(state: &AppState, value: &str, max_age_secs: i64) -> HeaderValue {
    let secure = if state.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!("{COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}{secure}");
    HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// `Set-Cookie` ending the session cookie.
pub fn clear_cookie(state: &AppState) -> HeaderValue {
    set_cookie(state, "", 0)
}

/// Whether a request with this method changes something (and so needs the
/// CSRF token when it rides on a session).
pub fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The live session of the request's cookie, checked for CSRF when the
/// request changes something: `Ok(None)` without a cookie or with one that
/// is no longer live. A live one is noted for the rate limits (its requests
/// then count as a browser's, see `limits`).
pub async fn from_parts(parts: &Parts, state: &AppState) -> Result<Option<Session>, ApiError> {
    let Some(token) = token(&parts.headers) else {
        return Ok(None);
    };
    let Some(session) = sessions::session(&state.app, &token).await? else {
        return Ok(None);
    };
    // From now on its requests count as a browser's (see `limits`).
    state.limiter.session_is_live(&session.token_hash);
    if changes_state(&parts.method) {
        let given = parts
            .headers
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if !session.csrf_matches(given) {
            return Err(ApiError::Forbidden(
                "this request needs the session's CSRF token in the X-CSRF-Token header".into(),
            ));
        }
    }
    Ok(Some(session))
}

/// A signed-in browser session (its CSRF token checked for requests that
/// change something); 401 without one.
pub struct SignedIn(pub Session);

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        from_parts(parts, state)
            .await?
            .map(|session| {
                crate::audit::acting(&session.caller());
                SignedIn(session)
            })
            .ok_or_else(|| ApiError::SignInFailed("sign in first".into()))
    }
}

/// Where the request comes from: its user agent and address (the peer's,
/// or the last `X-Forwarded-For` hop when the server runs behind a proxy
/// it trusts).
pub struct ClientInfo(pub Client);

impl FromRequestParts<AppState> for ClientInfo {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let user_agent = parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let forwarded = state
            .behind_proxy
            .then(|| {
                parts
                    .headers
                    .get_all("x-forwarded-for")
                    .into_iter()
                    .filter_map(|v| v.to_str().ok())
                    .flat_map(|v| v.split(','))
                    .map(str::trim)
                    .rfind(|v| v.parse::<std::net::IpAddr>().is_ok())
                    .map(str::to_owned)
            })
            .flatten();
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip().to_string());
        Ok(ClientInfo(Client {
            user_agent,
            address: forwarded.or(peer),
        }))
    }
}
