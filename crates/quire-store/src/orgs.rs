//! Organizations and their email domains.

use quire_core::{Role, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::{Sql, flag, flag_column, role_column};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgRow {
    pub id: String,
    pub title: String,
    pub hostname: Option<String>,
    /// Role given to members who join without one; `None` means guest.
    pub default_role: Option<Role>,
    pub default_content_site: Option<String>,
    pub logo_url: Option<String>,
    pub sso: bool,
    pub ai: bool,
    pub invite_links: bool,
    pub created_at: Timestamp,
    pub email_domains: Vec<String>,
}

/// The organization columns, as a literal so `concat!` can build queries.
macro_rules! org_columns {
    () => {
        "o.id, o.title, o.hostname, o.default_role, o.default_content_site, \
         o.logo_url, o.sso, o.ai, o.invite_links, o.created_at"
    };
}

fn from_row(row: &AnyRow) -> StoreResult<OrgRow> {
    Ok(OrgRow {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        hostname: row.try_get("hostname")?,
        default_role: role_column(row, "default_role")?,
        default_content_site: row.try_get("default_content_site")?,
        logo_url: row.try_get("logo_url")?,
        sso: flag_column(row, "sso")?,
        ai: flag_column(row, "ai")?,
        invite_links: flag_column(row, "invite_links")?,
        created_at: Timestamp(row.try_get("created_at")?),
        email_domains: Vec::new(),
    })
}

pub async fn insert(conn: &mut AnyConnection, org: &OrgRow) -> StoreResult<()> {
    crate::audit::created("organization", &org.id);
    sqlx::query(
        "INSERT INTO organizations (id, title, hostname, default_role, default_content_site, logo_url, \
         sso, ai, invite_links, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&org.id)
    .bind(&org.title)
    .bind(&org.hostname)
    .bind(org.default_role.map(Role::as_str))
    .bind(&org.default_content_site)
    .bind(&org.logo_url)
    .bind(flag(org.sso))
    .bind(flag(org.ai))
    .bind(flag(org.invite_links))
    .bind(org.created_at.0)
    .execute(&mut *conn)
    .await?;
    set_email_domains(conn, &org.id, &org.email_domains).await
}

/// Writes every mutable field of `org`.
pub async fn update(conn: &mut AnyConnection, org: &OrgRow) -> StoreResult<()> {
    sqlx::query(
        "UPDATE organizations SET title = $2, hostname = $3, default_role = $4, default_content_site = $5, \
         logo_url = $6, sso = $7, ai = $8, invite_links = $9 WHERE id = $1",
    )
    .bind(&org.id)
    .bind(&org.title)
    .bind(&org.hostname)
    .bind(org.default_role.map(Role::as_str))
    .bind(&org.default_content_site)
    .bind(&org.logo_url)
    .bind(flag(org.sso))
    .bind(flag(org.ai))
    .bind(flag(org.invite_links))
    .execute(&mut *conn)
    .await?;
    set_email_domains(conn, &org.id, &org.email_domains).await
}

async fn set_email_domains(conn: &mut AnyConnection, org_id: &str, domains: &[String]) -> StoreResult<()> {
    sqlx::query("DELETE FROM organization_email_domains WHERE organization_id = $1")
        .bind(org_id)
        .execute(&mut *conn)
        .await?;
    for (position, domain) in domains.iter().enumerate() {
        sqlx::query("INSERT INTO organization_email_domains (organization_id, domain, position) VALUES ($1, $2, $3)")
            .bind(org_id)
            .bind(domain)
            .bind(position as i64)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn load_email_domains(conn: &mut AnyConnection, org: &mut OrgRow) -> StoreResult<()> {
    org.email_domains = sqlx::query_scalar(
        "SELECT domain FROM organization_email_domains WHERE organization_id = $1 ORDER BY position",
    )
    .bind(&org.id)
    .fetch_all(conn)
    .await?;
    Ok(())
}

pub async fn get(conn: &mut AnyConnection, id: &str) -> StoreResult<OrgRow> {
    let row = sqlx::query(concat!(
        "SELECT ",
        org_columns!(),
        " FROM organizations o WHERE o.id = $1"
    ))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let mut org = row.as_ref().map(from_row).transpose().found()?;
    load_email_domains(conn, &mut org).await?;
    Ok(org)
}

async fn with_domains(conn: &mut AnyConnection, rows: Vec<AnyRow>) -> StoreResult<Vec<OrgRow>> {
    let mut orgs = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    for org in &mut orgs {
        load_email_domains(conn, org).await?;
    }
    Ok(orgs)
}

/// The organizations `user_id` is a member of, oldest first by default.
pub async fn list_for_member(conn: &mut AnyConnection, user_id: &str, page: &PageRequest) -> StoreResult<Page<OrgRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM members WHERE user_id = $1")
        .bind(user_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new("SELECT ");
    sql.push(org_columns!())
        .push(" FROM organizations o JOIN members m ON m.organization_id = o.id WHERE m.user_id = ")
        .bind(user_id.to_owned());
    page.push_after(&mut sql, "o.created_at", "o.id");
    page.push_order_and_limit(&mut sql, "o.created_at", "o.id");
    let rows = sql.fetch_all(conn).await?;
    let orgs = with_domains(conn, rows).await?;
    Ok(page.finish(orgs, total, |o| Keyset {
        key: SortKey::Int(o.created_at.0),
        id: o.id.clone(),
    }))
}

/// Organizations that claim `domain`, among those `user_id` belongs to or may
/// join because their own email is on that domain.
pub async fn by_email_domain(
    conn: &mut AnyConnection,
    domain: &str,
    user_id: &str,
    user_may_join: bool,
) -> StoreResult<Vec<OrgRow>> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        org_columns!(),
        " FROM organizations o JOIN organization_email_domains d ON d.organization_id = o.id \
         WHERE d.domain = $1 AND ($3 = 1 OR EXISTS (SELECT 1 FROM members m WHERE m.organization_id = o.id AND m.user_id = $2)) \
         ORDER BY o.created_at, o.id"
    ))
    .bind(domain)
    .bind(user_id)
    .bind(flag(user_may_join))
    .fetch_all(&mut *conn)
    .await?;
    with_domains(conn, rows).await
}
