//! The JSON shapes of `/auth/...`.

use quire_app::accounts::Visibility as UserVisibility;
use quire_app::sessions::Session;
use quire_core::Timestamp;
use quire_http::state::AppState;
use quire_http::views::{User, user_as};
use quire_store::sessions::SessionRow;
use quire_store::users::{TokenRow, UserRow};
use serde::Serialize;

use crate::links::{IssuedLink, LinkInfo};

/// The signed-in person with what the web application needs.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub object: &'static str,
    pub user: User,
    /// Send it as `X-CSRF-Token` with every request that changes something.
    pub csrf_token: String,
    pub method: String,
    pub expires_at: String,
}

pub fn session(state: &AppState, user: &UserRow, row_csrf: &str, method: &str, expires_at: Timestamp) -> SessionView {
    SessionView {
        object: "session",
        user: user_as(state, user, UserVisibility::Full),
        csrf_token: row_csrf.to_owned(),
        method: method.to_owned(),
        expires_at: expires_at.to_rfc3339(),
    }
}

pub fn current(state: &AppState, session: &Session) -> SessionView {
    self::session(
        state,
        &session.user,
        &session.row.csrf_token,
        &session.row.method,
        session.row.expires_at,
    )
}

/// One of the person's API tokens, in their list (never the token).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenEntry {
    pub object: &'static str,
    pub id: String,
    pub label: Option<String>,
    pub created_at: String,
}

pub fn token(row: &TokenRow) -> TokenEntry {
    TokenEntry {
        object: "api-token",
        id: row.id.clone(),
        label: row.label.clone(),
        created_at: row.created_at.to_rfc3339(),
    }
}

#[derive(Debug, Serialize)]
pub struct TokenList {
    pub items: Vec<TokenEntry>,
}

/// A token just made: the only time it is shown.
#[derive(Debug, Serialize)]
pub struct CreatedToken {
    pub token: String,
}

/// One of the person's sessions, in their list.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    pub object: &'static str,
    pub id: String,
    pub method: String,
    pub user_agent: Option<String>,
    pub address: Option<String>,
    pub created_at: String,
    pub last_seen_at: String,
    pub expires_at: String,
    /// The session this request came with.
    pub current: bool,
}

pub fn entry(row: &SessionRow, current_id: &str) -> SessionEntry {
    SessionEntry {
        object: "session",
        id: row.id.clone(),
        method: row.method.clone(),
        user_agent: row.user_agent.clone(),
        address: row.address.clone(),
        created_at: row.created_at.to_rfc3339(),
        last_seen_at: row.last_seen_at.to_rfc3339(),
        expires_at: row.expires_at.to_rfc3339(),
        current: row.id == current_id,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuedLinkView {
    pub object: &'static str,
    pub purpose: &'static str,
    pub email: String,
    /// Shown once; hand it to the person.
    pub url: String,
    pub expires_at: String,
}

pub fn issued(link: &IssuedLink) -> IssuedLinkView {
    IssuedLinkView {
        object: "sign-in-link",
        purpose: link.purpose.as_str(),
        email: link.email.clone(),
        url: link.url.clone(),
        expires_at: link.expires_at.to_rfc3339(),
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkInfoView {
    pub object: &'static str,
    pub purpose: &'static str,
    pub email: String,
    pub needs_password: bool,
    pub needs_display_name: bool,
    pub expires_at: String,
}

pub fn link_info(info: &LinkInfo) -> LinkInfoView {
    LinkInfoView {
        object: "sign-in-link",
        purpose: info.purpose.as_str(),
        email: info.email.clone(),
        needs_password: info.needs_password,
        needs_display_name: info.needs_name,
        expires_at: info.expires_at.to_rfc3339(),
    }
}

/// The ways to sign in this server offers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Methods {
    pub password: bool,
    pub oidc: Option<OidcMethod>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OidcMethod {
    pub name: String,
    /// Where the browser goes to sign in (`?returnTo=/path` to come back
    /// somewhere).
    pub start_url: String,
    /// The redirect URI to register with the provider.
    pub redirect_uri: String,
}
