//! OAuth clients of the organization's MCP server and the authorization
//! codes granted to them (migration 0024).

use quire_core::Timestamp;
use sqlx::{AnyConnection, Row};

use crate::error::StoreResult;

/// A client that registered itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRow {
    pub id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub created_at: Timestamp,
}

pub async fn insert_client(conn: &mut AnyConnection, client: &ClientRow) -> StoreResult<()> {
    let uris = serde_json::to_string(&client.redirect_uris).unwrap_or_else(|_| "[]".to_owned());
    sqlx::query("INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)")
        .bind(&client.id)
        .bind(&client.name)
        .bind(uris)
        .bind(client.created_at.0)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn client(conn: &mut AnyConnection, id: &str) -> StoreResult<Option<ClientRow>> {
    let Some(row) = sqlx::query("SELECT id, name, redirect_uris, created_at FROM oauth_clients WHERE id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?
    else {
        return Ok(None);
    };
    let uris: String = row.try_get("redirect_uris")?;
    Ok(Some(ClientRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        redirect_uris: serde_json::from_str(&uris).unwrap_or_default(),
        created_at: Timestamp(row.try_get("created_at")?),
    }))
}

/// A code granted by a person to a client, until it is exchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeRow {
    pub code_hash: String,
    pub client_id: String,
    pub user_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub expires_at: Timestamp,
}

pub async fn insert_code(conn: &mut AnyConnection, code: &CodeRow) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&code.code_hash)
    .bind(&code.client_id)
    .bind(&code.user_id)
    .bind(&code.redirect_uri)
    .bind(&code.code_challenge)
    .bind(code.expires_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes the code with this hash and returns it, if it was there and had
/// not expired: a code is exchanged once, whatever the outcome. Expired
/// codes go too.
pub async fn take_code(conn: &mut AnyConnection, code_hash: &str, now: Timestamp) -> StoreResult<Option<CodeRow>> {
    let row = sqlx::query(
        "DELETE FROM oauth_codes WHERE code_hash = $1 \
         RETURNING code_hash, client_id, user_id, redirect_uri, code_challenge, expires_at",
    )
    .bind(code_hash)
    .fetch_optional(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM oauth_codes WHERE expires_at < $1")
        .bind(now.0)
        .execute(&mut *conn)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let code = CodeRow {
        code_hash: row.try_get("code_hash")?,
        client_id: row.try_get("client_id")?,
        user_id: row.try_get("user_id")?,
        redirect_uri: row.try_get("redirect_uri")?,
        code_challenge: row.try_get("code_challenge")?,
        expires_at: Timestamp(row.try_get("expires_at")?),
    };
    Ok((code.expires_at.0 >= now.0).then_some(code))
}
