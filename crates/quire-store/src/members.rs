//! Organization memberships: who belongs to an organization, with which role.

use quire_core::events::EventType;
use quire_core::{Role, TeamRole, Timestamp};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use crate::error::{FoundExt, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::{Sql, flag, flag_column, role_column};
use crate::users::UserRow;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRow {
    pub organization_id: String,
    pub user: UserRow,
    /// `None` for guests.
    pub role: Option<Role>,
    pub disabled: bool,
    pub sso: bool,
    pub joined_at: Timestamp,
    pub last_seen_at: Option<Timestamp>,
    /// Number of teams of the organization this member belongs to.
    pub teams: i64,
}

/// What authorization needs to know about a caller in an organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Membership {
    pub role: Option<Role>,
    pub disabled: bool,
    /// Whether the member must sign in through the organization's single
    /// sign-on (invited so, or the organization enforces it).
    pub sso: bool,
}

/// The order of a member list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberSort {
    JoinedAt,
    /// Only members seen at least once are listed.
    LastSeenAt,
    Name,
}

/// Which role a member list keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleFilter {
    Role(Role),
    Guest,
}

#[derive(Debug, Clone, Default)]
pub struct MemberFilter {
    pub role: Option<RoleFilter>,
    /// Case-insensitive substring of the display name or the email.
    pub search: Option<String>,
}

macro_rules! member_columns {
    () => {
        concat!(
            "m.organization_id, m.role, m.disabled, m.sso, m.joined_at, m.last_seen_at, \
             (SELECT COUNT(*) FROM team_members tm WHERE tm.organization_id = m.organization_id \
              AND tm.user_id = m.user_id) AS teams, ",
            crate::user_columns!()
        )
    };
}

macro_rules! member_select {
    () => {
        concat!(
            "SELECT ",
            member_columns!(),
            " FROM members m JOIN users u ON u.id = m.user_id"
        )
    };
}

fn from_row(row: &AnyRow) -> StoreResult<MemberRow> {
    Ok(MemberRow {
        organization_id: row.try_get("organization_id")?,
        user: UserRow::from_row(row)?,
        role: role_column(row, "role")?,
        disabled: flag_column(row, "disabled")?,
        sso: flag_column(row, "sso")?,
        joined_at: Timestamp(row.try_get("joined_at")?),
        last_seen_at: row.try_get::<Option<i64>, _>("last_seen_at")?.map(Timestamp),
        teams: row.try_get("teams")?,
    })
}

pub async fn get(conn: &mut AnyConnection, org_id: &str, user_id: &str) -> StoreResult<MemberRow> {
    let row = sqlx::query(concat!(
        member_select!(),
        " WHERE m.organization_id = $1 AND m.user_id = $2"
    ))
    .bind(org_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(from_row).transpose().found()
}

/// The members of the organization among these users, by user id (users
/// who are not members are left out).
pub async fn get_many(
    conn: &mut AnyConnection,
    org_id: &str,
    user_ids: &[String],
) -> StoreResult<std::collections::HashMap<String, MemberRow>> {
    let mut out = std::collections::HashMap::new();
    for chunk in user_ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql = Sql::new(concat!(member_select!(), " WHERE m.organization_id = "));
        sql.bind(org_id.to_owned()).push(" AND m.user_id IN ").bind_list(chunk);
        for row in sql.fetch_all(&mut *conn).await? {
            let member = from_row(&row)?;
            out.insert(member.user.id.clone(), member);
        }
    }
    Ok(out)
}

/// Which of `user_ids` are members of the organization (disabled members
/// and guests included), in one query per 500 ids.
pub async fn among(
    conn: &mut AnyConnection,
    org_id: &str,
    user_ids: &[String],
) -> StoreResult<std::collections::HashSet<String>> {
    let mut out = std::collections::HashSet::new();
    for chunk in user_ids.chunks(500).filter(|c| !c.is_empty()) {
        let mut sql = Sql::new("SELECT user_id FROM members WHERE organization_id = ");
        sql.bind(org_id.to_owned()).push(" AND user_id IN ").bind_list(chunk);
        for row in sql.fetch_all(&mut *conn).await? {
            out.insert(row.try_get("user_id")?);
        }
    }
    Ok(out)
}

pub async fn membership(conn: &mut AnyConnection, org_id: &str, user_id: &str) -> StoreResult<Option<Membership>> {
    let row = sqlx::query(
        "SELECT m.role, m.disabled, CAST(CASE WHEN m.sso = 1 OR o.sso = 1 THEN 1 ELSE 0 END AS BIGINT) AS sso \
         FROM members m JOIN organizations o ON o.id = m.organization_id \
         WHERE m.organization_id = $1 AND m.user_id = $2",
    )
    .bind(org_id)
    .bind(user_id)
    .fetch_optional(conn)
    .await?;
    row.map(|row| {
        Ok(Membership {
            role: role_column(&row, "role")?,
            disabled: flag_column(&row, "disabled")?,
            sso: flag_column(&row, "sso")?,
        })
    })
    .transpose()
}

/// The viewer's active memberships in the organizations `user_id` also
/// belongs to: what decides how much of that user the viewer may see.
pub async fn shared_with(conn: &mut AnyConnection, viewer_id: &str, user_id: &str) -> StoreResult<Vec<Membership>> {
    let rows = sqlx::query(
        "SELECT v.role, v.disabled, v.sso FROM members v JOIN members u ON u.organization_id = v.organization_id \
         WHERE v.user_id = $1 AND u.user_id = $2 AND v.disabled = 0",
    )
    .bind(viewer_id)
    .bind(user_id)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(Membership {
                role: role_column(row, "role")?,
                disabled: flag_column(row, "disabled")?,
                sso: flag_column(row, "sso")?,
            })
        })
        .collect()
}

fn push_filter(sql: &mut Sql, org_id: &str, sort: MemberSort, filter: &MemberFilter) {
    sql.push(" WHERE m.organization_id = ").bind(org_id.to_owned());
    match filter.role {
        Some(RoleFilter::Role(role)) => {
            sql.push(" AND m.role = ").bind(role.as_str().to_owned());
        }
        Some(RoleFilter::Guest) => {
            sql.push(" AND m.role IS NULL");
        }
        None => {}
    }
    if let Some(search) = &filter.search {
        sql.push(" AND (").push_contains("u.display_name", search);
        sql.push(" OR ").push_contains("u.email", search).push(")");
    }
    if sort == MemberSort::LastSeenAt {
        sql.push(" AND m.last_seen_at IS NOT NULL");
    }
}

pub async fn list(
    conn: &mut AnyConnection,
    org_id: &str,
    sort: MemberSort,
    filter: &MemberFilter,
    page: &PageRequest,
) -> StoreResult<Page<MemberRow>> {
    let unfiltered = filter.role.is_none() && filter.search.is_none() && sort != MemberSort::LastSeenAt;
    let total: i64 = if unfiltered {
        sqlx::query_scalar("SELECT member_count FROM organizations WHERE id = $1")
            .bind(org_id)
            .fetch_optional(&mut *conn)
            .await?
            .unwrap_or(0)
    } else {
        // Only a search looks at user columns; without one, counting needs
        // no join (every member has a user) and reads one index.
        let mut count = Sql::new(if filter.search.is_some() {
            "SELECT COUNT(*) AS n FROM members m JOIN users u ON u.id = m.user_id"
        } else {
            "SELECT COUNT(*) AS n FROM members m"
        });
        push_filter(&mut count, org_id, sort, filter);
        count.fetch_one(&mut *conn).await?.try_get("n")?
    };

    let sort_col = match sort {
        MemberSort::JoinedAt => "m.joined_at",
        MemberSort::LastSeenAt => "m.last_seen_at",
        MemberSort::Name => "u.display_name",
    };
    let mut sql = Sql::new(member_select!());
    push_filter(&mut sql, org_id, sort, filter);
    page.push_after(&mut sql, sort_col, "m.user_id");
    page.push_order_and_limit(&mut sql, sort_col, "m.user_id");
    let rows = sql.fetch_all(conn).await?;
    let members = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(members, total, |m| {
        let key = match sort {
            MemberSort::JoinedAt => SortKey::Int(m.joined_at.0),
            MemberSort::LastSeenAt => SortKey::Int(m.last_seen_at.map_or(0, |t| t.0)),
            MemberSort::Name => SortKey::Text(m.user.display_name.clone()),
        };
        Keyset {
            key,
            id: m.user.id.clone(),
        }
    }))
}

/// Adds a member; returns false (and changes nothing) when already a member.
pub async fn insert(
    conn: &mut AnyConnection,
    org_id: &str,
    user_id: &str,
    role: Option<Role>,
    sso: bool,
    now: Timestamp,
) -> StoreResult<bool> {
    let done = sqlx::query(
        "INSERT INTO members (organization_id, user_id, role, disabled, sso, joined_at) \
         VALUES ($1, $2, $3, 0, $4, $5) ON CONFLICT (organization_id, user_id) DO NOTHING",
    )
    .bind(org_id)
    .bind(user_id)
    .bind(role.map(Role::as_str))
    .bind(flag(sso))
    .bind(now.0)
    .execute(&mut *conn)
    .await?;
    let inserted = done.rows_affected() == 1;
    if inserted {
        adjust_member_count(conn, org_id, 1).await?;
        let data = serde_json::json!({ "userId": user_id, "role": role.map(Role::as_str) });
        let origin = crate::webhooks::Origin::Organization(org_id);
        crate::webhooks::emit(conn, origin, EventType::MemberJoined, data, now).await?;
    }
    Ok(inserted)
}

/// Keeps `organizations.member_count` in step with the members table.
async fn adjust_member_count(conn: &mut AnyConnection, org_id: &str, delta: i64) -> StoreResult<()> {
    sqlx::query("UPDATE organizations SET member_count = member_count + $2 WHERE id = $1")
        .bind(org_id)
        .bind(delta)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn set_role(conn: &mut AnyConnection, org_id: &str, user_id: &str, role: Option<Role>) -> StoreResult<()> {
    let done = sqlx::query("UPDATE members SET role = $3 WHERE organization_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .bind(role.map(Role::as_str))
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(crate::StoreError::NotFound);
    }
    Ok(())
}

pub async fn set_sso(conn: &mut AnyConnection, org_id: &str, user_id: &str) -> StoreResult<()> {
    let done = sqlx::query("UPDATE members SET sso = 1 WHERE organization_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(crate::StoreError::NotFound);
    }
    Ok(())
}

pub async fn touch_last_seen(conn: &mut AnyConnection, org_id: &str, user_id: &str, now: Timestamp) -> StoreResult<()> {
    sqlx::query("UPDATE members SET last_seen_at = $3 WHERE organization_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .bind(now.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// Removes a member and their team memberships; false when not a member.
pub async fn delete(conn: &mut AnyConnection, org_id: &str, user_id: &str, now: Timestamp) -> StoreResult<bool> {
    sqlx::query("DELETE FROM team_members WHERE organization_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query("DELETE FROM members WHERE organization_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    let deleted = done.rows_affected() == 1;
    if deleted {
        adjust_member_count(conn, org_id, -1).await?;
        let data = serde_json::json!({ "userId": user_id });
        let origin = crate::webhooks::Origin::Organization(org_id);
        crate::webhooks::emit(conn, origin, EventType::MemberLeft, data, now).await?;
    }
    Ok(deleted)
}

/// Counts the organization's admins, for a change that may remove one. The
/// organization's row is locked first (a no-op update, portable to both
/// backends), so such changes in one organization run one after the other on
/// PostgreSQL and each counts what the previous one committed; SQLite runs one
/// writer at a time anyway. Call it inside the write transaction.
pub async fn lock_and_count_admins(conn: &mut AnyConnection, org_id: &str) -> StoreResult<i64> {
    sqlx::query("UPDATE organizations SET title = title WHERE id = $1")
        .bind(org_id)
        .execute(&mut *conn)
        .await?;
    Ok(
        sqlx::query_scalar("SELECT COUNT(*) FROM members WHERE organization_id = $1 AND role = 'admin'")
            .bind(org_id)
            .fetch_one(conn)
            .await?,
    )
}

/// Members of a team with their role in it, in the order they were added.
pub async fn list_in_team(
    conn: &mut AnyConnection,
    team_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<(MemberRow, TeamRole)>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM team_members WHERE team_id = $1")
        .bind(team_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new(concat!(
        "SELECT x.role AS team_role, x.added_at AS team_added_at, ",
        member_columns!(),
        " FROM team_members x JOIN members m ON m.organization_id = x.organization_id AND m.user_id = x.user_id \
          JOIN users u ON u.id = m.user_id WHERE x.team_id = "
    ));
    sql.bind(team_id.to_owned());
    page.push_after(&mut sql, "x.added_at", "x.user_id");
    page.push_order_and_limit(&mut sql, "x.added_at", "x.user_id");
    let rows = sql.fetch_all(conn).await?;
    let items = rows
        .iter()
        .map(|row| {
            let role: String = row.try_get("team_role")?;
            let role = role
                .parse::<TeamRole>()
                .map_err(|e| crate::StoreError::Corrupt(e.to_string()))?;
            Ok((from_row(row)?, role, Timestamp(row.try_get("team_added_at")?)))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    let page = page.finish(items, total, |(m, _, added)| Keyset {
        key: SortKey::Int(added.0),
        id: m.user.id.clone(),
    });
    Ok(Page {
        items: page.items.into_iter().map(|(m, r, _)| (m, r)).collect(),
        next: page.next,
        total: page.total,
    })
}

/// The organizations a user is a member of (enabled or not).
pub async fn org_ids_of(conn: &mut AnyConnection, user_id: &str) -> StoreResult<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT organization_id FROM members WHERE user_id = $1 ORDER BY organization_id")
            .bind(user_id)
            .fetch_all(conn)
            .await?,
    )
}
