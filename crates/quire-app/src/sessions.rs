//! Browser sessions: how a person is signed in to the web application and
//! the account page, whatever way they signed in (password, one-time link,
//! OpenID Connect, SAML).
//!
//! A session is a random token in a cookie (only its SHA-256 is stored) with
//! its own CSRF token, valid for [`SESSION_LIFETIME_MS`]. It has an id, so
//! its person can list their sessions and end any of them. It remembers the
//! organizations whose single sign-on it went through: a member who must use
//! an organization's SSO reaches that organization only from a session that
//! went through it ([`crate::access`]), and gets new API tokens only then
//! ([`sso_blockers`]).

use quire_core::{Role, Timestamp};
use quire_store::orgs::OrgRow;
use quire_store::page::PageRequest;
use quire_store::sessions::{self as store, NewSessionRow, SessionRow};
use quire_store::users::{self, TokenRow, UserRow};
use quire_store::{Conn, members, orgs};

use crate::error::{AppError, AppResult};
use crate::{App, Caller, Via, accounts, input};

/// How long a session lasts: 12 hours.
pub const SESSION_LIFETIME_MS: i64 = 12 * 60 * 60 * 1000;
/// How often a session's "last seen" time is written at most.
const TOUCH_EVERY_MS: i64 = 5 * 60 * 1000;
/// The longest user agent kept with a session.
const MAX_USER_AGENT: usize = 200;

/// How a session began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Password,
    /// A one-time link (sign-in, password reset, invitation).
    Link,
    Oidc,
    Saml,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Password => "password",
            Method::Link => "link",
            Method::Oidc => "oidc",
            Method::Saml => "saml",
        }
    }
}

/// Where a sign-in comes from, kept with the session for its list.
#[derive(Debug, Clone, Default)]
pub struct Client {
    pub user_agent: Option<String>,
    pub address: Option<String>,
}

/// A session cookie to set.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub token: String,
    pub csrf_token: String,
    pub expires_at: Timestamp,
}

/// A live session and its person.
#[derive(Debug, Clone)]
pub struct Session {
    pub token_hash: String,
    pub user: UserRow,
    pub row: SessionRow,
}

/// Starts a session for `user_id`, inside the caller's transaction.
pub async fn start(
    conn: &mut Conn,
    user_id: &str,
    method: Method,
    client: &Client,
    now: Timestamp,
) -> AppResult<NewSession> {
    let token = quire_core::id::random_alphanumeric(43);
    let hash = accounts::hash_token(&token);
    // Whoever signs in is who the request acts for.
    quire_store::audit::acting(
        quire_store::audit::Actor::user(user_id, None),
        quire_store::audit::Source::Ui,
    );
    let expires_at = Timestamp(now.0 + SESSION_LIFETIME_MS);
    let csrf = quire_core::id::random_alphanumeric(32);
    let id = quire_core::id::random_alphanumeric(20);
    let user_agent = client
        .user_agent
        .as_deref()
        .map(|ua| ua.chars().take(MAX_USER_AGENT).collect::<String>());
    store::insert(
        conn,
        &NewSessionRow {
            token_hash: &hash,
            id: &id,
            user_id,
            csrf_token: &csrf,
            method: method.as_str(),
            user_agent: user_agent.as_deref(),
            address: client.address.as_deref(),
            now,
            expires_at,
        },
    )
    .await?;
    users::mark_signed_in(conn, user_id, now).await?;
    Ok(NewSession {
        token,
        csrf_token: csrf,
        expires_at,
    })
}

/// After a login through `org_id`'s single sign-on: the person's session,
/// the one they had (when it is theirs and live) or a new one.
pub async fn sign_in_through_sso(
    conn: &mut Conn,
    user_id: &str,
    org_id: &str,
    existing: Option<&str>,
    client: &Client,
    now: Timestamp,
) -> AppResult<NewSession> {
    if let Some(token) = existing {
        let hash = accounts::hash_token(token);
        if let Some(row) = store::get(conn, &hash, now).await?
            && row.user_id == user_id
        {
            store::add_sso(conn, &hash, org_id).await?;
            return Ok(NewSession {
                token: token.to_owned(),
                csrf_token: row.csrf_token,
                expires_at: row.expires_at,
            });
        }
    }
    let session = start(conn, user_id, Method::Saml, client, now).await?;
    store::add_sso(conn, &accounts::hash_token(&session.token), org_id).await?;
    Ok(session)
}

/// The live session a cookie holds.
pub async fn session(app: &App, token: &str) -> AppResult<Option<Session>> {
    let hash = accounts::hash_token(token);
    let now = app.now();
    let (row, user) = {
        let mut conn = app.db.read().await?;
        let Some(row) = store::get(&mut conn, &hash, now).await? else {
            return Ok(None);
        };
        let user = users::get(&mut conn, &row.user_id).await?;
        (row, user)
    };
    if now.0 - row.last_seen_at.0 >= TOUCH_EVERY_MS {
        let mut tx = app.db.write().await?;
        store::touch(&mut tx, &hash, now).await?;
        tx.commit_unaudited().await?;
    }
    Ok(Some(Session {
        token_hash: hash,
        user,
        row,
    }))
}

/// What a long-lived connection (a co-editing socket) authenticated with,
/// kept to ask later whether it still holds: never the secret itself,
/// only its stored hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Credential {
    /// An API token.
    Token(String),
    /// A browser session.
    Session(String),
}

/// The caller `credential` stands for now (with the person's current
/// name); `None` once the token was revoked or the session ended or
/// expired.
pub async fn caller_of(app: &App, credential: &Credential) -> AppResult<Option<Caller>> {
    let mut conn = app.db.read().await?;
    match credential {
        Credential::Token(hash) => Ok(users::by_token_hash(&mut conn, hash).await?.map(Caller::with_token)),
        Credential::Session(hash) => {
            let Some(row) = store::get(&mut conn, hash, app.now()).await? else {
                return Ok(None);
            };
            let user = users::get(&mut conn, &row.user_id).await?;
            Ok(Some(
                Session {
                    token_hash: hash.clone(),
                    user,
                    row,
                }
                .caller(),
            ))
        }
    }
}

impl Session {
    /// Whether a form's CSRF token is this session's (constant time).
    pub fn csrf_matches(&self, given: &str) -> bool {
        let expected = self.row.csrf_token.as_bytes();
        let given = given.as_bytes();
        expected.len() == given.len() && expected.iter().zip(given).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// The caller the session's requests run for.
    pub fn caller(&self) -> Caller {
        Caller {
            user: self.user.clone(),
            via: Via::Session {
                sso_organizations: self.row.sso_organizations.clone(),
            },
        }
    }
}

/// The person's live sessions, newest first.
pub async fn list(app: &App, user_id: &str) -> AppResult<Vec<SessionRow>> {
    let mut conn = app.db.read().await?;
    Ok(store::of_user(&mut conn, user_id, app.now()).await?)
}

/// Ends one of the person's sessions by id: not found when they have none
/// such.
pub async fn revoke(app: &App, user_id: &str, session_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    store::delete_by_id(&mut tx, user_id, session_id)
        .await?
        .ok_or_else(|| AppError::not_found("session", session_id))?;
    tx.commit().await?;
    Ok(())
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

/// The session's person's API tokens (never the tokens themselves).
pub async fn tokens(app: &App, session: &Session) -> AppResult<Vec<users::TokenRow>> {
    let mut conn = app.db.read().await?;
    Ok(users::tokens_of(&mut conn, &session.user.id).await?)
}

/// Revokes one of the session's person's tokens: its hash (for the token
/// cache), or not found.
pub async fn revoke_token(app: &App, session: &Session, token_id: &str) -> AppResult<String> {
    let mut tx = app.db.write().await?;
    let hash = users::delete_token(&mut tx, &session.user.id, token_id)
        .await?
        .ok_or_else(|| AppError::not_found("token", token_id))?;
    accounts::announce_revoked(&mut tx, app, &hash).await?;
    tx.commit().await?;
    Ok(hash)
}

pub async fn sign_out(app: &App, session: &Session) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    store::delete(&mut tx, &session.token_hash).await?;
    tx.commit().await?;
    Ok(())
}
