//! Invitations: pending invites by email (for people without an account yet)
//! and shareable invite links.

use quire_core::{Role, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::{Sql, flag, flag_column, role_column};

/// Records (or refreshes) an invite of `email` into the organization.
pub async fn upsert_pending(
    conn: &mut AnyConnection,
    id: &str,
    org_id: &str,
    email: &str,
    role: Option<Role>,
    sso: bool,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO pending_invites (id, organization_id, email, role, sso, created_at) VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, sso = excluded.sso",
    )
    .bind(id)
    .bind(org_id)
    .bind(email)
    .bind(role.map(Role::as_str))
    .bind(flag(sso))
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// A pending invite waiting for its user to exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingInvite {
    pub organization_id: String,
    pub role: Option<Role>,
    pub sso: bool,
}

/// Removes and returns every pending invite addressed to `email`.
pub async fn take_pending_for_email(conn: &mut AnyConnection, email: &str) -> StoreResult<Vec<PendingInvite>> {
    let rows =
        sqlx::query("SELECT organization_id, role, sso FROM pending_invites WHERE email = $1 ORDER BY created_at")
            .bind(email)
            .fetch_all(&mut *conn)
            .await?;
    let invites = rows
        .iter()
        .map(|row| {
            Ok(PendingInvite {
                organization_id: row.try_get("organization_id")?,
                role: role_column(row, "role")?,
                sso: flag_column(row, "sso")?,
            })
        })
        .collect::<StoreResult<Vec<_>>>()?;
    sqlx::query("DELETE FROM pending_invites WHERE email = $1")
        .bind(email)
        .execute(conn)
        .await?;
    Ok(invites)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteLinkRow {
    pub id: String,
    pub organization_id: String,
    pub role: Option<Role>,
    pub created_at: Timestamp,
}

fn link_from_row(row: &AnyRow) -> StoreResult<InviteLinkRow> {
    Ok(InviteLinkRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        role: role_column(row, "role")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

pub async fn insert_link(conn: &mut AnyConnection, link: &InviteLinkRow) -> StoreResult<()> {
    sqlx::query("INSERT INTO invite_links (id, organization_id, role, created_at) VALUES ($1, $2, $3, $4)")
        .bind(&link.id)
        .bind(&link.organization_id)
        .bind(link.role.map(Role::as_str))
        .bind(link.created_at.0)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn get_link(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<InviteLinkRow> {
    let row = sqlx::query(
        "SELECT id, organization_id, role, created_at FROM invite_links WHERE organization_id = $1 AND id = $2",
    )
    .bind(org_id)
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(link_from_row).transpose().found()
}

pub async fn set_link_role(conn: &mut AnyConnection, org_id: &str, id: &str, role: Option<Role>) -> StoreResult<()> {
    sqlx::query("UPDATE invite_links SET role = $3 WHERE organization_id = $1 AND id = $2")
        .bind(org_id)
        .bind(id)
        .bind(role.map(Role::as_str))
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn delete_link(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM invite_links WHERE organization_id = $1 AND id = $2")
        .bind(org_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Invite links of an organization, oldest first.
pub async fn list_links(
    conn: &mut AnyConnection,
    org_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<InviteLinkRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM invite_links WHERE organization_id = $1")
        .bind(org_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new("SELECT id, organization_id, role, created_at FROM invite_links WHERE organization_id = ");
    sql.bind(org_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let links = rows.iter().map(link_from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(links, total, |l| Keyset {
        key: SortKey::Int(l.created_at.0),
        id: l.id.clone(),
    }))
}

/// The organizations with a pending invitation for `email`.
pub async fn pending_orgs_for_email(conn: &mut AnyConnection, email: &str) -> StoreResult<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT organization_id FROM pending_invites WHERE email = $1 ORDER BY organization_id")
            .bind(email)
            .fetch_all(conn)
            .await?,
    )
}
