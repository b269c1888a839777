//! Sessions of the account page, where a person who signed in through
//! single sign-on sees their organizations and manages their API tokens.
//!
//! A session is a random token in a cookie (only its SHA-256 is stored) with
//! its own CSRF token for the page's forms, valid for [`SESSION_LIFETIME_MS`].
//! It remembers the organizations whose single sign-on it went through: a
//! member of an organization that enforces SSO (`sso: true`) gets new API
//! tokens only from a session that went through that organization's SSO
//! ([`sso_blockers`]).

use quire_core::{Role, Timestamp};
use quire_store::orgs::OrgRow;
use quire_store::page::PageRequest;
use quire_store::saml::{self, SessionRow};
use quire_store::users::{self, TokenRow, UserRow};
use quire_store::{Conn, members, orgs};

use crate::error::{AppError, AppResult};
use crate::{App, accounts, input};

/// How long a session lasts: 12 hours.
pub const SESSION_LIFETIME_MS: i64 = 12 * 60 * 60 * 1000;

/// A session cookie to set.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub token: String,
    pub expires_at: Timestamp,
}

/// A live session and its person.
#[derive(Debug, Clone)]
pub struct Session {
    pub token_hash: String,
    pub user: UserRow,
    pub row: SessionRow,
}

/// After a login through `org_id`'s single sign-on: the person's session,
/// the one they had (when it is theirs and live) or a new one.
pub async fn sign_in(
    conn: &mut Conn,
    user_id: &str,
    org_id: &str,
    existing: Option<&str>,
    now: Timestamp,
) -> AppResult<NewSession> {
    if let Some(token) = existing {
        let hash = accounts::hash_token(token);
        if let Some(row) = saml::session(conn, &hash, now).await?
            && row.user_id == user_id
        {
            saml::add_session_sso(conn, &hash, org_id).await?;
            return Ok(NewSession {
                token: token.to_owned(),
                expires_at: row.expires_at,
            });
        }
    }
    let token = quire_core::id::random_alphanumeric(43);
    let hash = accounts::hash_token(&token);
    let expires_at = Timestamp(now.0 + SESSION_LIFETIME_MS);
    let csrf = quire_core::id::random_alphanumeric(32);
    saml::insert_session(conn, &hash, user_id, &csrf, now, expires_at).await?;
    saml::add_session_sso(conn, &hash, org_id).await?;
    Ok(NewSession { token, expires_at })
}

/// The live session a cookie holds.
pub async fn session(app: &App, token: &str) -> AppResult<Option<Session>> {
    let hash = accounts::hash_token(token);
    let mut conn = app.db.read().await?;
    let Some(row) = saml::session(&mut conn, &hash, app.now()).await? else {
        return Ok(None);
    };
    let user = users::get(&mut conn, &row.user_id).await?;
    Ok(Some(Session {
        token_hash: hash,
        user,
        row,
    }))
}

impl Session {
    /// Whether a form's CSRF token is this session's (constant time).
    pub fn csrf_matches(&self, given: &str) -> bool {
        let expected = self.row.csrf_token.as_bytes();
        let given = given.as_bytes();
        expected.len() == given.len() && expected.iter().zip(given).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

/// One of the person's organizations.
#[derive(Debug, Clone)]
pub struct AccountOrg {
    pub org: OrgRow,
    pub role: Option<Role>,
}

/// What the account page shows.
#[derive(Debug, Clone)]
pub struct Account {
    pub organizations: Vec<AccountOrg>,
    pub tokens: Vec<TokenRow>,
    /// Organizations enforcing SSO that this session did not go through:
    /// while any is listed, no new token.
    pub blockers: Vec<OrgRow>,
}

/// Organizations enforcing single sign-on, among the user's, that `through`
/// (the organizations whose SSO the session went through) leaves out.
pub async fn sso_blockers(conn: &mut Conn, user_id: &str, through: &[String]) -> AppResult<Vec<OrgRow>> {
    Ok(all_orgs(conn, user_id)
        .await?
        .into_iter()
        .filter(|o| o.sso && !through.contains(&o.id))
        .collect())
}

async fn all_orgs(conn: &mut Conn, user_id: &str) -> AppResult<Vec<OrgRow>> {
    let mut out = Vec::new();
    let mut request = PageRequest {
        after: None,
        limit: 500,
        descending: false,
    };
    loop {
        let page = orgs::list_for_member(conn, user_id, &request).await?;
        out.extend(page.items);
        match page.next {
            Some(next) => request.after = Some(next),
            None => return Ok(out),
        }
    }
}

pub async fn account(app: &App, session: &Session) -> AppResult<Account> {
    let mut conn = app.db.read().await?;
    let mut organizations = Vec::new();
    for org in all_orgs(&mut conn, &session.user.id).await? {
        let role = members::membership(&mut conn, &org.id, &session.user.id)
            .await?
            .and_then(|m| m.role);
        organizations.push(AccountOrg { org, role });
    }
    let blockers = organizations
        .iter()
        .filter(|o| o.org.sso && !session.row.sso_organizations.contains(&o.org.id))
        .map(|o| o.org.clone())
        .collect();
    Ok(Account {
        organizations,
        tokens: users::tokens_of(&mut conn, &session.user.id).await?,
        blockers,
    })
}

/// A new API token for the session's person, shown once.
pub async fn create_token(app: &App, session: &Session, label: &str) -> AppResult<String> {
    let label = input::title("label", label, 1, 64)?;
    let blockers = {
        let mut conn = app.db.read().await?;
        sso_blockers(&mut conn, &session.user.id, &session.row.sso_organizations).await?
    };
    if let Some(org) = blockers.first() {
        return Err(AppError::forbidden(format!(
            "{} requires signing in through its single sign-on before new tokens are made",
            org.title
        )));
    }
    accounts::create_token(app, &session.user.id, Some(&label)).await
}

/// Revokes one of the session's person's tokens: its hash (for the token
/// cache), or not found.
pub async fn revoke_token(app: &App, session: &Session, token_id: &str) -> AppResult<String> {
    let mut tx = app.db.write().await?;
    let hash = users::delete_token(&mut tx, &session.user.id, token_id)
        .await?
        .ok_or_else(|| AppError::not_found("token", token_id))?;
    tx.commit().await?;
    Ok(hash)
}

pub async fn sign_out(app: &App, session: &Session) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    saml::delete_session(&mut tx, &session.token_hash).await?;
    tx.commit().await?;
    Ok(())
}
