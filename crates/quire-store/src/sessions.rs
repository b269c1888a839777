//! Browser sessions: a cookie's token (kept as its SHA-256) for a person,
//! with its CSRF token, how it began, from where, and the organizations
//! whose single sign-on it went through.

use quire_core::Timestamp;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub user_id: String,
    pub csrf_token: String,
    /// How it began: `password`, `link`, `oidc`, `saml`.
    pub method: String,
    pub user_agent: Option<String>,
    pub address: Option<String>,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
    pub expires_at: Timestamp,
    /// Organizations whose single sign-on this session went through.
    pub sso_organizations: Vec<String>,
}

/// A session to store.
pub struct NewSessionRow<'a> {
    pub token_hash: &'a str,
    pub id: &'a str,
    pub user_id: &'a str,
    pub csrf_token: &'a str,
    pub method: &'a str,
    pub user_agent: Option<&'a str>,
    pub address: Option<&'a str>,
    pub now: Timestamp,
    pub expires_at: Timestamp,
}

/// Stores a session, dropping expired ones on the way.
pub async fn insert(conn: &mut AnyConnection, new: &NewSessionRow<'_>) -> StoreResult<()> {
    sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
        .bind(new.now.0)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "INSERT INTO sessions (token_hash, id, user_id, csrf_token, method, user_agent, address, created_at, \
         last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)",
    )
    .bind(new.token_hash)
    .bind(new.id)
    .bind(new.user_id)
    .bind(new.csrf_token)
    .bind(new.method)
    .bind(new.user_agent)
    .bind(new.address)
    .bind(new.now.0)
    .bind(new.expires_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Notes that a session went through an organization's single sign-on.
pub async fn add_sso(conn: &mut AnyConnection, token_hash: &str, org_id: &str) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO session_sso (token_hash, organization_id) VALUES ($1, $2) \
         ON CONFLICT (token_hash, organization_id) DO NOTHING",
    )
    .bind(token_hash)
    .bind(org_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The columns session queries select (a macro: sqlx takes literal SQL).
macro_rules! columns {
    () => {
        "token_hash, id, user_id, csrf_token, method, user_agent, address, created_at, last_seen_at, expires_at"
    };
}

fn from_row(row: &AnyRow, sso_organizations: Vec<String>) -> StoreResult<SessionRow> {
    Ok(SessionRow {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        csrf_token: row.try_get("csrf_token")?,
        method: row.try_get("method")?,
        user_agent: row.try_get("user_agent")?,
        address: row.try_get("address")?,
        created_at: Timestamp(row.try_get("created_at")?),
        last_seen_at: Timestamp(row.try_get("last_seen_at")?),
        expires_at: Timestamp(row.try_get("expires_at")?),
        sso_organizations,
    })
}

/// A live session.
pub async fn get(conn: &mut AnyConnection, token_hash: &str, now: Timestamp) -> StoreResult<Option<SessionRow>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        columns!(),
        " FROM sessions WHERE token_hash = $1 AND expires_at > $2"
    ))
    .bind(token_hash)
    .bind(now.0)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let orgs = sqlx::query("SELECT organization_id FROM session_sso WHERE token_hash = $1 ORDER BY organization_id")
        .bind(token_hash)
        .fetch_all(conn)
        .await?;
    let orgs = orgs
        .iter()
        .map(|r| r.try_get("organization_id"))
        .collect::<Result<_, _>>()?;
    from_row(&row, orgs).map(Some)
}

/// A person's live sessions, newest first (without their SSO list).
pub async fn of_user(conn: &mut AnyConnection, user_id: &str, now: Timestamp) -> StoreResult<Vec<SessionRow>> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        columns!(),
        " FROM sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id"
    ))
    .bind(user_id)
    .bind(now.0)
    .fetch_all(conn)
    .await?;
    rows.iter().map(|r| from_row(r, Vec::new())).collect()
}

/// Notes that a session was used at `now`.
pub async fn touch(conn: &mut AnyConnection, token_hash: &str, now: Timestamp) -> StoreResult<()> {
    sqlx::query("UPDATE sessions SET last_seen_at = $2 WHERE token_hash = $1")
        .bind(token_hash)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn delete(conn: &mut AnyConnection, token_hash: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM session_sso WHERE token_hash = $1")
        .bind(token_hash)
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
        .bind(token_hash)
        .execute(conn)
        .await?;
    Ok(())
}

/// Ends one of a person's sessions by id: its token hash, or `None` when
/// they have no such session.
pub async fn delete_by_id(conn: &mut AnyConnection, user_id: &str, id: &str) -> StoreResult<Option<String>> {
    let hash: Option<String> = sqlx::query_scalar("SELECT token_hash FROM sessions WHERE user_id = $1 AND id = $2")
        .bind(user_id)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    if let Some(hash) = &hash {
        delete(conn, hash).await?;
    }
    Ok(hash)
}

/// Ends every session of a person but `keep` (a password change or reset):
/// the token hashes ended.
pub async fn delete_others(conn: &mut AnyConnection, user_id: &str, keep: Option<&str>) -> StoreResult<Vec<String>> {
    let hashes: Vec<String> = sqlx::query_scalar("SELECT token_hash FROM sessions WHERE user_id = $1")
        .bind(user_id)
        .fetch_all(&mut *conn)
        .await?;
    let mut ended = Vec::new();
    for hash in hashes {
        if Some(hash.as_str()) != keep {
            delete(conn, &hash).await?;
            ended.push(hash);
        }
    }
    Ok(ended)
}
