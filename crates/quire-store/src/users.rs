//! Users and their API tokens (stored only as hashes).

use std::collections::HashMap;

use quire_core::Timestamp;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRow {
    pub id: String,
    pub email: String,
    pub display_name: String,
    pub photo_url: Option<String>,
    pub created_at: Timestamp,
}

/// The user columns every query that returns users selects, aliased so a
/// row can carry a user next to other columns. A macro, because sqlx only
/// takes literal SQL (`concat!` builds it at compile time).
#[macro_export]
#[doc(hidden)]
macro_rules! user_columns {
    () => {
        "u.id AS user_id, u.email AS user_email, u.display_name AS user_display_name, \
         u.photo_url AS user_photo_url, u.created_at AS user_created_at"
    };
}

impl UserRow {
    /// Reads the columns selected by `user_columns!()`.
    pub(crate) fn from_row(row: &AnyRow) -> StoreResult<UserRow> {
        Ok(UserRow {
            id: row.try_get("user_id")?,
            email: row.try_get("user_email")?,
            display_name: row.try_get("user_display_name")?,
            photo_url: row.try_get("user_photo_url")?,
            created_at: Timestamp(row.try_get("user_created_at")?),
        })
    }
}

pub async fn insert(conn: &mut AnyConnection, user: &UserRow) -> StoreResult<()> {
    sqlx::query("INSERT INTO users (id, email, display_name, photo_url, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(&user.id)
        .bind(&user.email)
        .bind(&user.display_name)
        .bind(&user.photo_url)
        .bind(user.created_at.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// Notes that the person signed in (any way: password, link, single
/// sign-on), migration 0026.
pub async fn mark_signed_in(conn: &mut AnyConnection, user_id: &str, now: Timestamp) -> StoreResult<()> {
    sqlx::query("UPDATE users SET signed_in_at = $2 WHERE id = $1")
        .bind(user_id)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether the person has a way in of their own: a password, an OpenID
/// identity, an API token, a session, or a sign-in on record.
pub async fn has_own_sign_in(conn: &mut AnyConnection, user_id: &str) -> StoreResult<bool> {
    let ways: i64 = sqlx::query_scalar(
        "SELECT (SELECT COUNT(*) FROM user_passwords WHERE user_id = $1) \
              + (SELECT COUNT(*) FROM oidc_identities WHERE user_id = $1) \
              + (SELECT COUNT(*) FROM api_tokens WHERE user_id = $1) \
              + (SELECT COUNT(*) FROM sessions WHERE user_id = $1) \
              + (SELECT COUNT(*) FROM users WHERE id = $1 AND signed_in_at IS NOT NULL)",
    )
    .bind(user_id)
    .fetch_one(conn)
    .await?;
    Ok(ways > 0)
}

pub async fn find_by_email(conn: &mut AnyConnection, email: &str) -> StoreResult<Option<UserRow>> {
    let row = sqlx::query(concat!("SELECT ", user_columns!(), " FROM users u WHERE u.email = $1"))
        .bind(email)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(UserRow::from_row).transpose()
}

pub async fn get(conn: &mut AnyConnection, id: &str) -> StoreResult<UserRow> {
    let row = sqlx::query(concat!("SELECT ", user_columns!(), " FROM users u WHERE u.id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(UserRow::from_row).transpose().found()
}

/// The users with these ids, by id (unknown ids are left out).
pub async fn get_many(conn: &mut AnyConnection, ids: &[String]) -> StoreResult<HashMap<String, UserRow>> {
    let mut out = HashMap::new();
    for chunk in ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql = Sql::new(concat!("SELECT ", user_columns!(), " FROM users u WHERE u.id IN "));
        sql.bind_list(chunk);
        for row in sql.fetch_all(&mut *conn).await? {
            let user = UserRow::from_row(&row)?;
            out.insert(user.id.clone(), user);
        }
    }
    Ok(out)
}

/// An API token as its owner sees it in lists (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    pub id: String,
    pub label: Option<String>,
    pub created_at: Timestamp,
}

pub async fn insert_token(
    conn: &mut AnyConnection,
    token_hash: &str,
    id: &str,
    label: Option<&str>,
    user_id: &str,
    now: Timestamp,
) -> StoreResult<()> {
    crate::audit::created("token", id);
    sqlx::query("INSERT INTO api_tokens (token_hash, id, label, user_id, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(token_hash)
        .bind(id)
        .bind(label)
        .bind(user_id)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// The user's tokens, newest first.
pub async fn tokens_of(conn: &mut AnyConnection, user_id: &str) -> StoreResult<Vec<TokenRow>> {
    let rows =
        sqlx::query("SELECT id, label, created_at FROM api_tokens WHERE user_id = $1 ORDER BY created_at DESC, id")
            .bind(user_id)
            .fetch_all(conn)
            .await?;
    rows.iter()
        .map(|row| {
            Ok(TokenRow {
                id: row.try_get("id")?,
                label: row.try_get("label")?,
                created_at: Timestamp(row.try_get("created_at")?),
            })
        })
        .collect()
}

/// Deletes one of the user's tokens; its hash, or `None` when the user has
/// no token with that id.
pub async fn delete_token(conn: &mut AnyConnection, user_id: &str, id: &str) -> StoreResult<Option<String>> {
    let row = sqlx::query("DELETE FROM api_tokens WHERE user_id = $1 AND id = $2 RETURNING token_hash")
        .bind(user_id)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    Ok(row.map(|r| r.try_get("token_hash")).transpose()?)
}

/// The user owning the token whose hash is `token_hash`, if any.
pub async fn by_token_hash(conn: &mut AnyConnection, token_hash: &str) -> StoreResult<Option<UserRow>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        user_columns!(),
        " FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1"
    ))
    .bind(token_hash)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(UserRow::from_row).transpose()
}
