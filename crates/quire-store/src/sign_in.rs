//! What signing in without an identity provider keeps: password hashes,
//! one-time links, failed attempts, OpenID Connect requests under way and
//! the provider identities people signed in with.

use quire_core::Timestamp;
use sqlx::{AnyConnection, Row};

use crate::error::StoreResult;

pub async fn password_hash(conn: &mut AnyConnection, user_id: &str) -> StoreResult<Option<String>> {
    Ok(sqlx::query_scalar("SELECT hash FROM user_passwords WHERE user_id = $1")
        .bind(user_id)
        .fetch_optional(conn)
        .await?)
}

pub async fn set_password_hash(conn: &mut AnyConnection, user_id: &str, hash: &str, now: Timestamp) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO user_passwords (user_id, hash, updated_at) VALUES ($1, $2, $3) \
         ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at",
    )
    .bind(user_id)
    .bind(hash)
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRow {
    pub purpose: String,
    pub email: String,
    pub created_by: Option<String>,
    pub expires_at: Timestamp,
}

pub async fn insert_link(
    conn: &mut AnyConnection,
    token_hash: &str,
    link: &LinkRow,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM sign_in_links WHERE expires_at <= $1")
        .bind(now.0)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "INSERT INTO sign_in_links (token_hash, purpose, email, created_by, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(token_hash)
    .bind(&link.purpose)
    .bind(&link.email)
    .bind(&link.created_by)
    .bind(now.0)
    .bind(link.expires_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// A live link, left in place.
pub async fn link(conn: &mut AnyConnection, token_hash: &str, now: Timestamp) -> StoreResult<Option<LinkRow>> {
    let row = sqlx::query(
        "SELECT purpose, email, created_by, expires_at FROM sign_in_links WHERE token_hash = $1 AND expires_at > $2",
    )
    .bind(token_hash)
    .bind(now.0)
    .fetch_optional(conn)
    .await?;
    row.map(|row| {
        Ok(LinkRow {
            purpose: row.try_get("purpose")?,
            email: row.try_get("email")?,
            created_by: row.try_get("created_by")?,
            expires_at: Timestamp(row.try_get("expires_at")?),
        })
    })
    .transpose()
}

/// Uses a link up: whether it was still there (two concurrent uses: one
/// wins).
pub async fn take_link(conn: &mut AnyConnection, token_hash: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM sign_in_links WHERE token_hash = $1")
        .bind(token_hash)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Failed attempts of `subject` since `since`.
pub async fn failures_since(
    conn: &mut AnyConnection,
    subject: &str,
    since: Timestamp,
) -> StoreResult<(i64, Option<Timestamp>)> {
    let row = sqlx::query(
        "SELECT COUNT(*) AS n, MIN(failed_at) AS first FROM sign_in_failures WHERE subject = $1 AND failed_at > $2",
    )
    .bind(subject)
    .bind(since.0)
    .fetch_one(conn)
    .await?;
    let first: Option<i64> = row.try_get("first")?;
    Ok((row.try_get("n")?, first.map(Timestamp)))
}

/// Counts an attempt (`attempt`: its id) against each subject before it is
/// checked, dropping rows older than `forget_before`. The rows stay as the
/// attempt's failure unless [`take_back_attempt`] removes them.
pub async fn record_attempt(
    conn: &mut AnyConnection,
    attempt: &str,
    subjects: &[&str],
    now: Timestamp,
    forget_before: Timestamp,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM sign_in_failures WHERE failed_at <= $1")
        .bind(forget_before.0)
        .execute(&mut *conn)
        .await?;
    for subject in subjects {
        sqlx::query("INSERT INTO sign_in_failures (subject, failed_at, attempt) VALUES ($1, $2, $3)")
            .bind(subject)
            .bind(now.0)
            .bind(attempt)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Removes an attempt's rows (it succeeded, or was refused unchecked).
pub async fn take_back_attempt(conn: &mut AnyConnection, attempt: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM sign_in_failures WHERE attempt = $1")
        .bind(attempt)
        .execute(conn)
        .await?;
    Ok(())
}

/// Forgets a subject's failures (after a successful sign-in).
pub async fn clear_failures(conn: &mut AnyConnection, subject: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM sign_in_failures WHERE subject = $1")
        .bind(subject)
        .execute(conn)
        .await?;
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcRequestRow {
    pub state: String,
    pub nonce: String,
    pub code_verifier: String,
    pub return_to: String,
    pub expires_at: Timestamp,
}

pub async fn insert_oidc_request(
    conn: &mut AnyConnection,
    request: &OidcRequestRow,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM oidc_requests WHERE expires_at <= $1")
        .bind(now.0)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "INSERT INTO oidc_requests (state, nonce, code_verifier, return_to, expires_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&request.state)
    .bind(&request.nonce)
    .bind(&request.code_verifier)
    .bind(&request.return_to)
    .bind(request.expires_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Takes a live request by its state: each is used once.
pub async fn take_oidc_request(
    conn: &mut AnyConnection,
    state: &str,
    now: Timestamp,
) -> StoreResult<Option<OidcRequestRow>> {
    let row = sqlx::query(
        "DELETE FROM oidc_requests WHERE state = $1 AND expires_at > $2 \
         RETURNING state, nonce, code_verifier, return_to, expires_at",
    )
    .bind(state)
    .bind(now.0)
    .fetch_optional(conn)
    .await?;
    row.map(|row| {
        Ok(OidcRequestRow {
            state: row.try_get("state")?,
            nonce: row.try_get("nonce")?,
            code_verifier: row.try_get("code_verifier")?,
            return_to: row.try_get("return_to")?,
            expires_at: Timestamp(row.try_get("expires_at")?),
        })
    })
    .transpose()
}

pub async fn oidc_identity(conn: &mut AnyConnection, issuer: &str, subject: &str) -> StoreResult<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT user_id FROM oidc_identities WHERE issuer = $1 AND subject = $2")
            .bind(issuer)
            .bind(subject)
            .fetch_optional(conn)
            .await?,
    )
}

pub async fn insert_oidc_identity(
    conn: &mut AnyConnection,
    issuer: &str,
    subject: &str,
    user_id: &str,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO oidc_identities (issuer, subject, user_id) VALUES ($1, $2, $3) \
         ON CONFLICT (issuer, subject) DO NOTHING",
    )
    .bind(issuer)
    .bind(subject)
    .bind(user_id)
    .execute(conn)
    .await?;
    Ok(())
}
