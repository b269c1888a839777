//! Content grants: a role on a space or collection for a user or a team.

use quire_core::{Role, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;
use crate::teams::TeamRow;
use crate::users::UserRow;

/// Who holds a grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal {
    User,
    Team,
}

impl Principal {
    fn as_str(self) -> &'static str {
        match self {
            Principal::User => "user",
            Principal::Team => "team",
        }
    }
}

/// What a grant is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Space,
    Collection,
}

impl Resource {
    fn as_str(self) -> &'static str {
        match self {
            Resource::Space => "space",
            Resource::Collection => "collection",
        }
    }
}

fn role_of(row: &AnyRow) -> StoreResult<Role> {
    let text: String = row.try_get("grant_role")?;
    text.parse()
        .map_err(|_| StoreError::Corrupt(format!("grant role {text:?}")))
}

/// Gives `principal_id` the role on the resource, replacing an earlier grant.
#[allow(clippy::too_many_arguments)]
pub async fn upsert(
    conn: &mut AnyConnection,
    resource: Resource,
    resource_id: &str,
    org_id: &str,
    principal: Principal,
    principal_id: &str,
    role: Role,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO content_grants (resource_id, resource_kind, principal_kind, principal_id, organization_id, role, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (resource_id, principal_kind, principal_id) DO UPDATE SET role = excluded.role",
    )
    .bind(resource_id)
    .bind(resource.as_str())
    .bind(principal.as_str())
    .bind(principal_id)
    .bind(org_id)
    .bind(role.as_str())
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// True when a grant existed and was changed.
pub async fn set_role(
    conn: &mut AnyConnection,
    resource_id: &str,
    principal: Principal,
    principal_id: &str,
    role: Role,
) -> StoreResult<bool> {
    let done = sqlx::query(
        "UPDATE content_grants SET role = $4 WHERE resource_id = $1 AND principal_kind = $2 AND principal_id = $3",
    )
    .bind(resource_id)
    .bind(principal.as_str())
    .bind(principal_id)
    .bind(role.as_str())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn remove(
    conn: &mut AnyConnection,
    resource_id: &str,
    principal: Principal,
    principal_id: &str,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM content_grants WHERE resource_id = $1 AND principal_kind = $2 AND principal_id = $3")
        .bind(resource_id)
        .bind(principal.as_str())
        .bind(principal_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Removes every grant on the resources.
pub async fn remove_all_on(conn: &mut AnyConnection, resource_ids: &[String]) -> StoreResult<()> {
    for id in resource_ids {
        sqlx::query("DELETE FROM content_grants WHERE resource_id = $1")
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Removes every grant held by a principal in an organization (a team deleted,
/// a member removed).
pub async fn remove_all_of(
    conn: &mut AnyConnection,
    org_id: &str,
    principal: Principal,
    principal_id: &str,
) -> StoreResult<()> {
    sqlx::query("DELETE FROM content_grants WHERE organization_id = $1 AND principal_kind = $2 AND principal_id = $3")
        .bind(org_id)
        .bind(principal.as_str())
        .bind(principal_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Continues a query of `content_grants g` after `WHERE g.organization_id = `
/// with the organization and the grants `user_id` holds, directly or
/// through their teams.
fn held_by(sql: &mut Sql, org_id: &str, user_id: &str) {
    sql.bind(org_id.to_owned())
        .push(" AND ((g.principal_kind = 'user' AND g.principal_id = ")
        .bind(user_id.to_owned())
        .push(") OR (g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ")
        .bind(user_id.to_owned())
        .push(")))");
}

/// The grants a user holds, directly or through their teams, on any of
/// `resource_ids`: `(resource id, role)` pairs.
pub async fn held_by_user(
    conn: &mut AnyConnection,
    org_id: &str,
    user_id: &str,
    resource_ids: Option<&[String]>,
) -> StoreResult<Vec<(String, Role)>> {
    let mut sql =
        Sql::new("SELECT g.resource_id, g.role AS grant_role FROM content_grants g WHERE g.organization_id = ");
    held_by(&mut sql, org_id, user_id);
    if let Some(ids) = resource_ids {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        sql.push(" AND g.resource_id IN ").bind_list(ids);
    }
    let rows = sql.fetch_all(conn).await?;
    rows.iter()
        .map(|row| Ok((row.try_get("resource_id")?, role_of(row)?)))
        .collect()
}

/// Users granted a role on the resource, oldest grant first.
pub async fn list_users(
    conn: &mut AnyConnection,
    resource_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<(UserRow, Role)>> {
    let total: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM content_grants WHERE resource_id = $1 AND principal_kind = 'user'")
            .bind(resource_id)
            .fetch_one(&mut *conn)
            .await?;
    let mut sql = Sql::new(concat!(
        "SELECT g.role AS grant_role, g.created_at AS grant_created_at, ",
        crate::user_columns!(),
        " FROM content_grants g JOIN users u ON u.id = g.principal_id \
          WHERE g.principal_kind = 'user' AND g.resource_id = "
    ));
    sql.bind(resource_id.to_owned());
    page.push_after(&mut sql, "g.created_at", "g.principal_id");
    page.push_order_and_limit(&mut sql, "g.created_at", "g.principal_id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows
        .iter()
        .map(|row| {
            Ok((
                UserRow::from_row(row)?,
                role_of(row)?,
                Timestamp(row.try_get("grant_created_at")?),
            ))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    let page = page.finish(items, total, |(u, _, at)| Keyset {
        key: SortKey::Int(at.0),
        id: u.id.clone(),
    });
    Ok(Page {
        items: page.items.into_iter().map(|(u, r, _)| (u, r)).collect(),
        next: page.next,
        total: page.total,
    })
}

/// Teams granted a role on the resource, oldest grant first.
pub async fn list_teams(
    conn: &mut AnyConnection,
    resource_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<(TeamRow, Role)>> {
    let total: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM content_grants WHERE resource_id = $1 AND principal_kind = 'team'")
            .bind(resource_id)
            .fetch_one(&mut *conn)
            .await?;
    let mut sql = Sql::new(
        "SELECT g.role AS grant_role, g.created_at AS grant_created_at, t.id, t.organization_id, t.title, t.created_at, \
         (SELECT COUNT(*) FROM team_members c WHERE c.team_id = t.id) AS members \
         FROM content_grants g JOIN teams t ON t.id = g.principal_id \
         WHERE g.principal_kind = 'team' AND g.resource_id = ",
    );
    sql.bind(resource_id.to_owned());
    page.push_after(&mut sql, "g.created_at", "g.principal_id");
    page.push_order_and_limit(&mut sql, "g.created_at", "g.principal_id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows
        .iter()
        .map(|row| {
            let team = TeamRow {
                id: row.try_get("id")?,
                organization_id: row.try_get("organization_id")?,
                title: row.try_get("title")?,
                created_at: Timestamp(row.try_get("created_at")?),
                members: row.try_get("members")?,
            };
            Ok((team, role_of(row)?, Timestamp(row.try_get("grant_created_at")?)))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    let page = page.finish(items, total, |(t, _, at)| Keyset {
        key: SortKey::Int(at.0),
        id: t.id.clone(),
    });
    Ok(Page {
        items: page.items.into_iter().map(|(t, r, _)| (t, r)).collect(),
        next: page.next,
        total: page.total,
    })
}

/// The users who hold at least one grant in the organization, directly or
/// through a team. (One fixed statement, so it stays prepared.)
pub async fn users_with_grants(
    conn: &mut AnyConnection,
    org_id: &str,
) -> StoreResult<std::collections::HashSet<String>> {
    let rows: Vec<String> = sqlx::query_scalar(
        "SELECT g.principal_id FROM content_grants g WHERE g.organization_id = $1 AND g.principal_kind = 'user' \
         UNION SELECT tm.user_id FROM team_members tm JOIN content_grants g \
         ON g.principal_kind = 'team' AND g.principal_id = tm.team_id WHERE g.organization_id = $1",
    )
    .bind(org_id)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().collect())
}

/// A grant a user holds on one of a set of resources, and through whom:
/// themself, or a team (its id and title).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldGrant {
    pub resource_id: String,
    pub role: Role,
    pub team: Option<(String, String)>,
}

/// Like [`held_by_user`], naming the team each grant comes through.
pub async fn held_by_user_with_sources(
    conn: &mut AnyConnection,
    org_id: &str,
    user_id: &str,
    resource_ids: &[String],
) -> StoreResult<Vec<HeldGrant>> {
    if resource_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut sql = Sql::new(
        "SELECT g.resource_id, g.role AS grant_role, t.id AS team_id, t.title AS team_title \
         FROM content_grants g LEFT JOIN teams t ON g.principal_kind = 'team' AND t.id = g.principal_id \
         WHERE g.organization_id = ",
    );
    held_by(&mut sql, org_id, user_id);
    sql.push(" AND g.resource_id IN ")
        .bind_list(resource_ids)
        .push(" ORDER BY g.resource_id, g.principal_kind DESC");
    let rows = sql.fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            let team_id: Option<String> = row.try_get("team_id")?;
            let team_title: Option<String> = row.try_get("team_title")?;
            Ok(HeldGrant {
                resource_id: row.try_get("resource_id")?,
                role: role_of(row)?,
                team: team_id.zip(team_title),
            })
        })
        .collect()
}
