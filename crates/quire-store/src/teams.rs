//! Teams of an organization and their members.

use quire_core::{TeamRole, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamRow {
    pub id: String,
    pub organization_id: String,
    pub title: String,
    pub created_at: Timestamp,
    /// Number of members.
    pub members: i64,
}

#[derive(Debug, Clone, Default)]
pub struct TeamFilter {
    /// Only teams this user owns.
    pub owner: Option<String>,
    /// Case-insensitive substring of the title.
    pub title: Option<String>,
    /// Only teams this user belongs to.
    pub member: Option<String>,
}

macro_rules! team_select {
    () => {
        "SELECT t.id, t.organization_id, t.title, t.created_at, \
         (SELECT COUNT(*) FROM team_members c WHERE c.team_id = t.id) AS members FROM teams t"
    };
}

fn from_row(row: &AnyRow) -> StoreResult<TeamRow> {
    Ok(TeamRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        title: row.try_get("title")?,
        created_at: Timestamp(row.try_get("created_at")?),
        members: row.try_get("members")?,
    })
}

fn team_role(text: &str) -> StoreResult<TeamRole> {
    text.parse()
        .map_err(|e: quire_core::role::UnknownRole| StoreError::Corrupt(e.to_string()))
}

pub async fn insert(conn: &mut AnyConnection, id: &str, org_id: &str, title: &str, now: Timestamp) -> StoreResult<()> {
    crate::audit::created("team", id);
    sqlx::query("INSERT INTO teams (id, organization_id, title, created_at) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(org_id)
        .bind(title)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn get(conn: &mut AnyConnection, org_id: &str, team_id: &str) -> StoreResult<TeamRow> {
    let row = sqlx::query(concat!(team_select!(), " WHERE t.organization_id = $1 AND t.id = $2"))
        .bind(org_id)
        .bind(team_id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(from_row).transpose().found()
}

pub async fn rename(conn: &mut AnyConnection, team_id: &str, title: &str) -> StoreResult<()> {
    sqlx::query("UPDATE teams SET title = $2 WHERE id = $1")
        .bind(team_id)
        .bind(title)
        .execute(conn)
        .await?;
    Ok(())
}

/// Deletes a team and its memberships; false when it did not exist.
pub async fn delete(conn: &mut AnyConnection, org_id: &str, team_id: &str) -> StoreResult<bool> {
    sqlx::query("DELETE FROM team_members WHERE team_id = $1 AND organization_id = $2")
        .bind(team_id)
        .bind(org_id)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query("DELETE FROM teams WHERE id = $1 AND organization_id = $2")
        .bind(team_id)
        .bind(org_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

fn push_filter(sql: &mut Sql, org_id: &str, filter: &TeamFilter) {
    sql.push(" WHERE t.organization_id = ").bind(org_id.to_owned());
    if let Some(owner) = &filter.owner {
        sql.push(
            " AND EXISTS (SELECT 1 FROM team_members o WHERE o.team_id = t.id AND o.role = 'owner' AND o.user_id = ",
        )
        .bind(owner.clone())
        .push(")");
    }
    if let Some(member) = &filter.member {
        sql.push(" AND EXISTS (SELECT 1 FROM team_members b WHERE b.team_id = t.id AND b.user_id = ")
            .bind(member.clone())
            .push(")");
    }
    if let Some(title) = &filter.title {
        sql.push(" AND ").push_contains("t.title", title);
    }
}

/// Teams in creation order (oldest first).
pub async fn list(
    conn: &mut AnyConnection,
    org_id: &str,
    filter: &TeamFilter,
    page: &PageRequest,
) -> StoreResult<Page<TeamRow>> {
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM teams t");
    push_filter(&mut count, org_id, filter);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(team_select!());
    push_filter(&mut sql, org_id, filter);
    page.push_after(&mut sql, "t.created_at", "t.id");
    page.push_order_and_limit(&mut sql, "t.created_at", "t.id");
    let rows = sql.fetch_all(conn).await?;
    let teams = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(teams, total, |t| Keyset {
        key: SortKey::Int(t.created_at.0),
        id: t.id.clone(),
    }))
}

/// The role of `user_id` in the team, if a member.
pub async fn member_role(conn: &mut AnyConnection, team_id: &str, user_id: &str) -> StoreResult<Option<TeamRole>> {
    let role: Option<String> = sqlx::query_scalar("SELECT role FROM team_members WHERE team_id = $1 AND user_id = $2")
        .bind(team_id)
        .bind(user_id)
        .fetch_optional(conn)
        .await?;
    role.as_deref().map(team_role).transpose()
}

/// True when `user_id` owns at least one team of the organization.
pub async fn owns_any(conn: &mut AnyConnection, org_id: &str, user_id: &str) -> StoreResult<bool> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM team_members WHERE organization_id = $1 AND user_id = $2 AND role = 'owner'",
    )
    .bind(org_id)
    .bind(user_id)
    .fetch_one(conn)
    .await?;
    Ok(n > 0)
}

/// Adds the user to the team, or changes their role when already there.
pub async fn upsert_member(
    conn: &mut AnyConnection,
    team_id: &str,
    org_id: &str,
    user_id: &str,
    role: TeamRole,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO team_members (team_id, organization_id, user_id, role, added_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role",
    )
    .bind(team_id)
    .bind(org_id)
    .bind(user_id)
    .bind(role.as_str())
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds the user as a plain member unless already in the team.
pub async fn add_member(
    conn: &mut AnyConnection,
    team_id: &str,
    org_id: &str,
    user_id: &str,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO team_members (team_id, organization_id, user_id, role, added_at) VALUES ($1, $2, $3, 'member', $4) \
         ON CONFLICT (team_id, user_id) DO NOTHING",
    )
    .bind(team_id)
    .bind(org_id)
    .bind(user_id)
    .bind(now.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn remove_member(conn: &mut AnyConnection, team_id: &str, user_id: &str) -> StoreResult<()> {
    sqlx::query("DELETE FROM team_members WHERE team_id = $1 AND user_id = $2")
        .bind(team_id)
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// A member of a team: their membership in the team and the user id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamMembership {
    pub user_id: String,
    pub role: TeamRole,
    pub added_at: Timestamp,
}

/// Members of a team in the order they were added.
pub async fn list_members(
    conn: &mut AnyConnection,
    team_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<TeamMembership>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM team_members WHERE team_id = $1")
        .bind(team_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new("SELECT tm.user_id, tm.role, tm.added_at FROM team_members tm WHERE tm.team_id = ");
    sql.bind(team_id.to_owned());
    page.push_after(&mut sql, "tm.added_at", "tm.user_id");
    page.push_order_and_limit(&mut sql, "tm.added_at", "tm.user_id");
    let rows = sql.fetch_all(conn).await?;
    let members = rows
        .iter()
        .map(|row| {
            Ok(TeamMembership {
                user_id: row.try_get("user_id")?,
                role: team_role(&row.try_get::<String, _>("role")?)?,
                added_at: Timestamp(row.try_get("added_at")?),
            })
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(members, total, |m| Keyset {
        key: SortKey::Int(m.added_at.0),
        id: m.user_id.clone(),
    }))
}

/// The teams `user_id` belongs to, with their role in each, oldest team first.
pub async fn list_for_member(
    conn: &mut AnyConnection,
    org_id: &str,
    user_id: &str,
    title: Option<&str>,
    page: &PageRequest,
) -> StoreResult<Page<(TeamRow, TeamRole)>> {
    let filter = TeamFilter {
        member: Some(user_id.to_owned()),
        title: title.map(str::to_owned),
        owner: None,
    };
    let mut count = Sql::new("SELECT COUNT(*) AS n FROM teams t");
    push_filter(&mut count, org_id, &filter);
    let total: i64 = count.fetch_one(&mut *conn).await?.try_get("n")?;
    let mut sql = Sql::new(
        "SELECT t.id, t.organization_id, t.title, t.created_at, \
         (SELECT COUNT(*) FROM team_members c WHERE c.team_id = t.id) AS members, \
         (SELECT r.role FROM team_members r WHERE r.team_id = t.id AND r.user_id = ",
    );
    sql.bind(user_id.to_owned()).push(") AS member_role FROM teams t");
    push_filter(&mut sql, org_id, &filter);
    page.push_after(&mut sql, "t.created_at", "t.id");
    page.push_order_and_limit(&mut sql, "t.created_at", "t.id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows
        .iter()
        .map(|row| Ok((from_row(row)?, team_role(&row.try_get::<String, _>("member_role")?)?)))
        .collect::<StoreResult<Vec<_>>>()?;
    let page = page.finish(items, total, |(t, _)| Keyset {
        key: SortKey::Int(t.created_at.0),
        id: t.id.clone(),
    });
    Ok(page)
}
