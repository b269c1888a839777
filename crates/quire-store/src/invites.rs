//! Invitations: pending invites by email (for people without an account
//! yet, and for people with one until they accept) and shareable invite
//! links.

use quire_core::{Role, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::{Sql, flag, flag_column, role_column};

/// Records (or refreshes) an invite of `email` into the organization, by
/// `invited_by`.
#[allow(clippy::too_many_arguments)]
pub async fn upsert_pending(
    conn: &mut AnyConnection,
    id: &str,
    org_id: &str,
    email: &str,
    role: Option<Role>,
    sso: bool,
    invited_by: &str,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO pending_invites (id, organization_id, email, role, sso, created_at, invited_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, sso = excluded.sso, \
         invited_by = excluded.invited_by",
    )
    .bind(id)
    .bind(org_id)
    .bind(email)
    .bind(role.map(Role::as_str))
    .bind(flag(sso))
    .bind(now.0)
    .bind(invited_by)
    .execute(conn)
    .await?;
    Ok(())
}

/// An invitation waiting for its person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvitationRow {
    pub id: String,
    pub organization_id: String,
    pub organization_title: String,
    pub role: Option<Role>,
    pub sso: bool,
    pub invited_by: Option<String>,
    pub created_at: Timestamp,
}

/// The invitations with their organization's title, to be filtered.
macro_rules! select_invitations {
    () => {
        "SELECT i.id, i.organization_id, o.title AS organization_title, i.role, i.sso, i.invited_by, \
         i.created_at FROM pending_invites i JOIN organizations o ON o.id = i.organization_id"
    };
}

fn invitation_from_row(row: &AnyRow) -> StoreResult<InvitationRow> {
    Ok(InvitationRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        organization_title: row.try_get("organization_title")?,
        role: role_column(row, "role")?,
        sso: flag_column(row, "sso")?,
        invited_by: row.try_get("invited_by")?,
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

/// The invitations addressed to `email`, oldest first.
pub async fn invitations_for_email(conn: &mut AnyConnection, email: &str) -> StoreResult<Vec<InvitationRow>> {
    let rows = sqlx::query(concat!(
        select_invitations!(),
        " WHERE i.email = $1 ORDER BY i.created_at, i.id"
    ))
    .bind(email)
    .fetch_all(conn)
    .await?;
    rows.iter().map(invitation_from_row).collect()
}

/// The invitation `id` into `org_id` addressed to `email`, if there is one.
pub async fn invitation(
    conn: &mut AnyConnection,
    org_id: &str,
    id: &str,
    email: &str,
) -> StoreResult<Option<InvitationRow>> {
    let row = sqlx::query(concat!(
        select_invitations!(),
        " WHERE i.id = $1 AND i.organization_id = $2 AND i.email = $3"
    ))
    .bind(id)
    .bind(org_id)
    .bind(email)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(invitation_from_row).transpose()
}

/// Removes the invitation `id` addressed to `email` (accepted or
/// declined); whether there was one.
pub async fn delete_invitation(conn: &mut AnyConnection, id: &str, email: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM pending_invites WHERE id = $1 AND email = $2")
        .bind(id)
        .bind(email)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// An invitation by email as its organization's admins see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRow {
    pub id: String,
    pub email: String,
    pub role: Option<Role>,
    pub invited_by: Option<String>,
    pub created_at: Timestamp,
}

/// The organization's invitations by email waiting for an answer, oldest
/// first.
pub async fn list_pending(conn: &mut AnyConnection, org_id: &str, page: &PageRequest) -> StoreResult<Page<PendingRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM pending_invites WHERE organization_id = $1")
        .bind(org_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql =
        Sql::new("SELECT id, email, role, invited_by, created_at FROM pending_invites WHERE organization_id = ");
    sql.bind(org_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let invites = rows
        .iter()
        .map(|row| {
            Ok(PendingRow {
                id: row.try_get("id")?,
                email: row.try_get("email")?,
                role: role_column(row, "role")?,
                invited_by: row.try_get("invited_by")?,
                created_at: Timestamp(row.try_get("created_at")?),
            })
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(invites, total, |i| Keyset {
        key: SortKey::Int(i.created_at.0),
        id: i.id.clone(),
    }))
}

/// Removes the organization's invitation `id` (revoked by an admin);
/// whether there was one.
pub async fn revoke(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<bool> {
    let done = sqlx::query("DELETE FROM pending_invites WHERE organization_id = $1 AND id = $2")
        .bind(org_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
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
