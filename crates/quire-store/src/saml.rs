//! SAML single sign-on: identity providers, the requests sent to them and
//! the assertions already used.

use quire_core::{Role, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::sql::{flag, flag_column, role_column};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRow {
    pub id: String,
    pub organization_id: String,
    pub label: String,
    pub entity_id: Option<String>,
    pub sso_url: Option<String>,
    pub certificate: Option<String>,
    pub default_team_id: Option<String>,
    pub default_role: Option<Role>,
    pub allow_idp_initiated: bool,
    pub created_at: Timestamp,
}

macro_rules! provider_select {
    () => {
        "SELECT id, organization_id, label, entity_id, sso_url, certificate, default_team_id, default_role, \
         allow_idp_initiated, created_at FROM saml_providers"
    };
}

fn provider(row: &AnyRow) -> StoreResult<ProviderRow> {
    Ok(ProviderRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        label: row.try_get("label")?,
        entity_id: row.try_get("entity_id")?,
        sso_url: row.try_get("sso_url")?,
        certificate: row.try_get("certificate")?,
        default_team_id: row.try_get("default_team_id")?,
        default_role: role_column(row, "default_role")?,
        allow_idp_initiated: flag_column(row, "allow_idp_initiated")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

pub async fn insert_provider(conn: &mut AnyConnection, p: &ProviderRow) -> StoreResult<()> {
    crate::audit::created("saml-provider", &p.id);
    sqlx::query(
        "INSERT INTO saml_providers (id, organization_id, label, entity_id, sso_url, certificate, default_team_id, \
         default_role, allow_idp_initiated, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&p.id)
    .bind(&p.organization_id)
    .bind(&p.label)
    .bind(&p.entity_id)
    .bind(&p.sso_url)
    .bind(&p.certificate)
    .bind(&p.default_team_id)
    .bind(p.default_role.map(Role::as_str))
    .bind(flag(p.allow_idp_initiated))
    .bind(p.created_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn update_provider(conn: &mut AnyConnection, p: &ProviderRow) -> StoreResult<()> {
    sqlx::query(
        "UPDATE saml_providers SET label = $2, entity_id = $3, sso_url = $4, certificate = $5, default_team_id = $6, \
         default_role = $7, allow_idp_initiated = $8 WHERE id = $1",
    )
    .bind(&p.id)
    .bind(&p.label)
    .bind(&p.entity_id)
    .bind(&p.sso_url)
    .bind(&p.certificate)
    .bind(&p.default_team_id)
    .bind(p.default_role.map(Role::as_str))
    .bind(flag(p.allow_idp_initiated))
    .execute(conn)
    .await?;
    Ok(())
}

/// A provider of the organization (not found for another organization's).
pub async fn provider_in(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<ProviderRow> {
    let row = sqlx::query(concat!(provider_select!(), " WHERE organization_id = $1 AND id = $2"))
        .bind(org_id)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(provider).transpose().found()
}

/// A provider by id alone (the public login routes).
pub async fn provider_by_id(conn: &mut AnyConnection, id: &str) -> StoreResult<Option<ProviderRow>> {
    let row = sqlx::query(concat!(provider_select!(), " WHERE id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(provider).transpose()
}

/// The organization's providers, oldest first.
pub async fn providers_of(conn: &mut AnyConnection, org_id: &str) -> StoreResult<Vec<ProviderRow>> {
    let rows = sqlx::query(concat!(
        provider_select!(),
        " WHERE organization_id = $1 ORDER BY created_at, id"
    ))
    .bind(org_id)
    .fetch_all(conn)
    .await?;
    rows.iter().map(provider).collect()
}

/// Deletes a provider; false when there was none.
pub async fn delete_provider(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM saml_providers WHERE organization_id = $1 AND id = $2")
        .bind(org_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Records a request sent to a provider (and forgets expired ones).
pub async fn insert_request(
    conn: &mut AnyConnection,
    id: &str,
    provider_id: &str,
    now: Timestamp,
    expires_at: Timestamp,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM saml_requests WHERE expires_at <= $1")
        .bind(now.0)
        .execute(&mut *conn)
        .await?;
    sqlx::query("INSERT INTO saml_requests (id, provider_id, expires_at) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(provider_id)
        .bind(expires_at.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether the request is outstanding for the provider.
pub async fn request_outstanding(
    conn: &mut AnyConnection,
    id: &str,
    provider_id: &str,
    now: Timestamp,
) -> StoreResult<bool> {
    let row =
        sqlx::query("SELECT 1 AS found FROM saml_requests WHERE id = $1 AND provider_id = $2 AND expires_at > $3")
            .bind(id)
            .bind(provider_id)
            .bind(now.0)
            .fetch_optional(conn)
            .await?;
    Ok(row.is_some())
}

/// Takes an outstanding request: true once, for the first caller.
pub async fn take_request(conn: &mut AnyConnection, id: &str, provider_id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM saml_requests WHERE id = $1 AND provider_id = $2")
        .bind(id)
        .bind(provider_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Records that an assertion was used: false when it already was (a
/// replay). Expired records are forgotten on the way.
pub async fn use_assertion(
    conn: &mut AnyConnection,
    provider_id: &str,
    assertion_id: &str,
    now: Timestamp,
    expires_at: Timestamp,
) -> StoreResult<bool> {
    sqlx::query("DELETE FROM saml_assertions WHERE expires_at <= $1")
        .bind(now.0)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query(
        "INSERT INTO saml_assertions (provider_id, assertion_id, expires_at) VALUES ($1, $2, $3) \
         ON CONFLICT (provider_id, assertion_id) DO NOTHING",
    )
    .bind(provider_id)
    .bind(assertion_id)
    .bind(expires_at.0)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
