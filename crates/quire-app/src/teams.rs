//! Teams and their members. Admins create and delete teams; admins and a
//! team's owners manage its name and members.

use std::collections::BTreeMap;

use quire_core::{Role, TeamRole};
use quire_store::page::PageRequest;
use quire_store::teams::{self, TeamFilter, TeamRow};
use quire_store::{Conn, Page, grants, members, users};
use serde::Deserialize;

use crate::access::{self, OrgAccess, TeamPermissions};
use crate::accounts::Viewer;
use crate::error::{AppError, AppResult, NotFoundExt};
use crate::members::MemberInfo;
use crate::{App, Caller, input};

/// A team with the caller's permissions on it.
#[derive(Debug, Clone)]
pub struct TeamInfo {
    pub team: TeamRow,
    pub permissions: TeamPermissions,
}

pub(crate) async fn info(conn: &mut Conn, access: &OrgAccess, team: TeamRow) -> AppResult<TeamInfo> {
    let owner = access.owns_team(conn, &team.id).await?;
    Ok(TeamInfo {
        permissions: access.team_permissions(owner),
        team,
    })
}

fn team_title(title: &str) -> AppResult<String> {
    input::title("title", title, 1, 64)
}

async fn load(conn: &mut Conn, org_id: &str, team_id: &str) -> AppResult<TeamRow> {
    teams::get(conn, org_id, team_id).await.or_not_found("team", team_id)
}

/// Resolves a user given by id or by email to a member of the organization.
async fn resolve_member(conn: &mut Conn, org_id: &str, user: &str) -> AppResult<String> {
    let user_id = if user.contains('@') {
        let email = input::email(user)?;
        users::find_by_email(conn, &email).await?.map(|u| u.id)
    } else {
        Some(user.to_owned())
    };
    match user_id {
        Some(id) if members::membership(conn, org_id, &id).await?.is_some() => Ok(id),
        _ => Err(AppError::invalid(format!(
            "{user:?} is not a member of this organization"
        ))),
    }
}

/// True when `user_id` is an admin of the organization (and not disabled).
async fn is_active_admin(conn: &mut Conn, org_id: &str, user_id: &str) -> AppResult<bool> {
    let membership = members::membership(conn, org_id, user_id).await?;
    Ok(membership.is_some_and(|m| !m.disabled && m.role == Some(Role::Admin)))
}

/// The organization's teams, optionally those `owner` can manage (every
/// team for an admin) and those whose title contains `title`.
pub async fn list(
    app: &App,
    caller: &Caller,
    org_id: &str,
    owner: Option<String>,
    title: Option<String>,
    request: &PageRequest,
) -> AppResult<Page<TeamInfo>> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    access.require_directory()?;
    let owner = match owner {
        Some(owner) if is_active_admin(&mut conn, org_id, &owner).await? => None,
        owner => owner,
    };
    let filter = TeamFilter {
        owner,
        title,
        member: None,
    };
    let page = teams::list(&mut conn, org_id, &filter, request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for team in page.items {
        items.push(info(&mut conn, &access, team).await?);
    }
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

/// The input of team creation: a title and the first members (ids or emails).
#[derive(Debug, Deserialize)]
pub struct NewTeam {
    pub title: String,
    #[serde(default)]
    pub members: Vec<String>,
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewTeam) -> AppResult<TeamInfo> {
    let title = team_title(&new.title)?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    access.require_admin()?;
    let team_id = quire_core::id::new_id();
    teams::insert(&mut tx, &team_id, org_id, &title, now).await?;
    for user in &new.members {
        let user_id = resolve_member(&mut tx, org_id, user).await?;
        teams::add_member(&mut tx, &team_id, org_id, &user_id, now).await?;
    }
    let team = load(&mut tx, org_id, &team_id).await?;
    let info = info(&mut tx, &access, team).await?;
    tx.commit().await?;
    Ok(info)
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, team_id: &str) -> AppResult<TeamInfo> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    access.require_directory()?;
    let team = load(&mut conn, org_id, team_id).await?;
    info(&mut conn, &access, team).await
}

pub async fn rename(app: &App, caller: &Caller, org_id: &str, team_id: &str, title: &str) -> AppResult<TeamInfo> {
    let title = team_title(title)?;
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    load(&mut tx, org_id, team_id).await?;
    access.require_team_manager(&mut tx, team_id).await?;
    teams::rename(&mut tx, team_id, &title).await?;
    let team = load(&mut tx, org_id, team_id).await?;
    let info = info(&mut tx, &access, team).await?;
    tx.commit().await?;
    Ok(info)
}

/// Deletes a team and its grants; admins only. A missing team changes nothing.
pub async fn delete(app: &App, caller: &Caller, org_id: &str, team_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    teams::delete(&mut tx, org_id, team_id).await?;
    grants::remove_all_of(&mut tx, org_id, grants::Principal::Team, team_id).await?;
    tx.commit().await?;
    Ok(())
}

/// The members of a team, with their role in it.
pub async fn members(
    app: &App,
    caller: &Caller,
    org_id: &str,
    team_id: &str,
    request: &PageRequest,
) -> AppResult<Page<(MemberInfo, TeamRole)>> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    access.require_directory()?;
    load(&mut conn, org_id, team_id).await?;
    let page = members::list_in_team(&mut conn, team_id, request).await?;
    let (rows, roles): (Vec<_>, Vec<_>) = page.items.into_iter().unzip();
    let viewer = Viewer::of_members(caller, Some(&access));
    let infos = crate::members::infos(&mut conn, org_id, &viewer, rows).await?;
    Ok(Page {
        items: infos.into_iter().zip(roles).collect(),
        next: page.next,
        total: page.total,
    })
}

#[derive(Debug, Deserialize)]
pub struct TeamMembershipInput {
    pub role: TeamRole,
}

/// Members to add, update and remove in one go (ids or emails).
#[derive(Debug, Default, Deserialize)]
pub struct TeamMembersChange {
    #[serde(default)]
    pub add: Vec<String>,
    #[serde(default)]
    pub remove: Vec<String>,
    #[serde(default)]
    pub memberships: BTreeMap<String, TeamMembershipInput>,
}

/// Adds, updates and removes team members in one transaction. A user named
/// in both `add` and `remove` ends up removed.
pub async fn change_members(
    app: &App,
    caller: &Caller,
    org_id: &str,
    team_id: &str,
    change: TeamMembersChange,
) -> AppResult<()> {
    let now = app.now();
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    load(&mut tx, org_id, team_id).await?;
    access.require_team_manager(&mut tx, team_id).await?;

    let mut removed = Vec::with_capacity(change.remove.len());
    for user in &change.remove {
        removed.push(resolve_member(&mut tx, org_id, user).await?);
    }
    for user in &change.add {
        let user_id = resolve_member(&mut tx, org_id, user).await?;
        if !removed.contains(&user_id) {
            teams::add_member(&mut tx, team_id, org_id, &user_id, now).await?;
        }
    }
    for (user, membership) in &change.memberships {
        let user_id = resolve_member(&mut tx, org_id, user).await?;
        if !removed.contains(&user_id) {
            teams::upsert_member(&mut tx, team_id, org_id, &user_id, membership.role, now).await?;
        }
    }
    for user_id in &removed {
        teams::remove_member(&mut tx, team_id, user_id).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Adds one member (id or email), or sets their role in the team.
pub async fn put_member(
    app: &App,
    caller: &Caller,
    org_id: &str,
    team_id: &str,
    user: &str,
    role: Option<TeamRole>,
) -> AppResult<()> {
    let now = app.now();
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    load(&mut tx, org_id, team_id).await?;
    access.require_team_manager(&mut tx, team_id).await?;
    let user_id = resolve_member(&mut tx, org_id, user).await?;
    match role {
        Some(role) => teams::upsert_member(&mut tx, team_id, org_id, &user_id, role, now).await?,
        None => teams::add_member(&mut tx, team_id, org_id, &user_id, now).await?,
    }
    tx.commit().await?;
    Ok(())
}

/// Removes one member from a team (managers remove anyone, members
/// themselves); a missing team or member changes nothing.
pub async fn remove_member(app: &App, caller: &Caller, org_id: &str, team_id: &str, user_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    if teams::get(&mut tx, org_id, team_id).await.is_ok() {
        if access.user_id != user_id {
            access.require_team_manager(&mut tx, team_id).await?;
        }
        teams::remove_member(&mut tx, team_id, user_id).await?;
        tx.commit().await?;
    }
    Ok(())
}
