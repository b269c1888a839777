//! Organization members: list with filters, read, change role (never leaving
//! an organization without an admin), remove, mark as SSO member, and each
//! member's teams and spaces.

use quire_core::{Role, TeamRole};
use quire_store::members::{self, MemberFilter, MemberRow, MemberSort};
use quire_store::page::PageRequest;
use quire_store::spaces::{self, SpaceFilter};
use quire_store::teams;
use quire_store::{Conn, Page, grants};
use serde::Deserialize;

use crate::access::{self, OrgAccess, OrgRoles};
use crate::accounts::{Viewer, Visibility};
use crate::error::{AppError, AppResult, NotFoundExt};
use crate::spaces::SpaceInfo;
use crate::teams::TeamInfo;
use crate::{App, Caller};

/// A member with the number of spaces they can reach, and how much of
/// them the caller sees (the email or not).
#[derive(Debug, Clone)]
pub struct MemberInfo {
    pub member: MemberRow,
    pub spaces: i64,
    pub visibility: Visibility,
}

/// How many spaces each member can reach: every live space of the
/// organization for members with a role, what was shared with them for
/// guests.
pub(crate) async fn space_counts(conn: &mut Conn, org_id: &str, members: &[MemberRow]) -> AppResult<Vec<i64>> {
    let mut all = None;
    // Most guests hold no grant: one query finds those that do, and only
    // they need counting.
    let sharing = if members.iter().any(|m| m.role.is_none()) {
        grants::users_with_grants(conn, org_id).await?
    } else {
        Default::default()
    };
    let mut counts = Vec::with_capacity(members.len());
    for member in members {
        let count = match member.role {
            Some(_) => match all {
                Some(n) => n,
                None => {
                    let n = spaces::count(conn, org_id, &SpaceFilter::default()).await?;
                    all = Some(n);
                    n
                }
            },
            None if sharing.contains(&member.user.id) => {
                let granted = SpaceFilter {
                    parent: None,
                    granted_to: Some(member.user.id.clone()),
                };
                spaces::count(conn, org_id, &granted).await?
            }
            None => 0,
        };
        counts.push(count);
    }
    Ok(counts)
}

/// Shapes members with their space counts, as `viewer` sees them.
pub async fn infos(
    conn: &mut Conn,
    org_id: &str,
    viewer: &Viewer,
    members: Vec<MemberRow>,
) -> AppResult<Vec<MemberInfo>> {
    let counts = space_counts(conn, org_id, &members).await?;
    Ok(members
        .into_iter()
        .zip(counts)
        .map(|(member, spaces)| MemberInfo {
            visibility: viewer.sees(&member.user.id),
            member,
            spaces,
        })
        .collect())
}

/// Shapes one member for a caller whose membership is `access`.
async fn info(conn: &mut Conn, caller: &Caller, access: &OrgAccess, member: MemberRow) -> AppResult<MemberInfo> {
    let org_id = member.organization_id.clone();
    let viewer = Viewer::of_members(caller, Some(access));
    let mut infos = infos(conn, &org_id, &viewer, vec![member]).await?;
    infos
        .pop()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a member without its info")))
}

/// The member `user_id` of the organization.
async fn load(conn: &mut Conn, org_id: &str, user_id: &str) -> AppResult<MemberRow> {
    members::get(conn, org_id, user_id)
        .await
        .or_not_found("member", user_id)
}

/// The organization's members, for every member but guests.
pub async fn list(
    app: &App,
    caller: &Caller,
    org_id: &str,
    sort: MemberSort,
    filter: &MemberFilter,
    request: &PageRequest,
) -> AppResult<Page<MemberInfo>> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    access.require_directory()?;
    let page = members::list(&mut conn, org_id, sort, filter, request).await?;
    let viewer = Viewer::of_members(caller, Some(&access));
    Ok(Page {
        items: infos(&mut conn, org_id, &viewer, page.items).await?,
        next: page.next,
        total: page.total,
    })
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, user_id: &str) -> AppResult<MemberInfo> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    access.require_can_see_member(user_id)?;
    let member = load(&mut conn, org_id, user_id).await?;
    info(&mut conn, caller, &access, member).await
}

/// Refuses a change that would leave the organization without an admin.
async fn keep_an_admin(conn: &mut Conn, member: &MemberRow) -> AppResult<()> {
    if member.role == Some(Role::Admin) && members::lock_and_count_admins(conn, &member.organization_id).await? <= 1 {
        return Err(AppError::invalid(
            "this is the organization's last admin: make someone else admin first",
        ));
    }
    Ok(())
}

/// The input of a member update.
#[derive(Debug, Default, Deserialize)]
pub struct MemberUpdate {
    /// A role, or `null` to make the member a guest.
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub role: Option<Option<Role>>,
}

/// Changes a member's role; admins only.
pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    user_id: &str,
    update: MemberUpdate,
) -> AppResult<MemberInfo> {
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    access.require_admin()?;
    let member = load(&mut tx, org_id, user_id).await?;
    if let Some(role) = update.role
        && role != member.role
    {
        keep_an_admin(&mut tx, &member).await?;
        members::set_role(&mut tx, org_id, user_id, role).await?;
    }
    let member = load(&mut tx, org_id, user_id).await?;
    let info = info(&mut tx, caller, &access, member).await?;
    tx.commit().await?;
    Ok(info)
}

/// Removes a member (admins remove anyone, members themselves) with their
/// grants. Removing someone who is not a member changes nothing.
pub async fn remove(app: &App, caller: &Caller, org_id: &str, user_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id)
        .await?
        .require_self_or_admin(user_id)?;
    let member = match members::get(&mut tx, org_id, user_id).await {
        Ok(member) => member,
        Err(quire_store::StoreError::NotFound) => return Ok(()),
        Err(other) => return Err(other.into()),
    };
    keep_an_admin(&mut tx, &member).await?;
    members::delete(&mut tx, org_id, user_id, app.now()).await?;
    grants::remove_all_of(&mut tx, org_id, grants::Principal::User, user_id).await?;
    tx.commit().await?;
    Ok(())
}

/// Marks the member as signing in through the organization's SSO.
pub async fn set_sso(app: &App, caller: &Caller, org_id: &str, user_id: &str) -> AppResult<MemberInfo> {
    let mut tx = app.db.write().await?;
    let access = access::org(&mut tx, caller, org_id).await?;
    access.require_admin()?;
    load(&mut tx, org_id, user_id).await?;
    members::set_sso(&mut tx, org_id, user_id).await?;
    let member = load(&mut tx, org_id, user_id).await?;
    let info = info(&mut tx, caller, &access, member).await?;
    tx.commit().await?;
    Ok(info)
}

/// A team a member is in (with the caller's permissions on it) and the
/// member's role in it.
#[derive(Debug, Clone)]
pub struct MemberTeam {
    pub team: TeamInfo,
    pub role: TeamRole,
}

/// The teams of a member, optionally those whose title contains `title`.
pub async fn teams_of(
    app: &App,
    caller: &Caller,
    org_id: &str,
    user_id: &str,
    title: Option<&str>,
    request: &PageRequest,
) -> AppResult<Page<MemberTeam>> {
    let mut conn = app.db.read().await?;
    let access = access::org(&mut conn, caller, org_id).await?;
    access.require_can_see_member(user_id)?;
    load(&mut conn, org_id, user_id).await?;
    let page = teams::list_for_member(&mut conn, org_id, user_id, title, request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for (team, role) in page.items {
        let caller_owns = if access.user_id == user_id {
            role == TeamRole::Owner
        } else {
            access.owns_team(&mut conn, &team.id).await?
        };
        items.push(MemberTeam {
            team: TeamInfo {
                permissions: access.team_permissions(caller_owns),
                team,
            },
            role,
        });
    }
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

/// The spaces a member can access, with the member's role on each (and the
/// caller's permissions in each space), in tree order. Admins see anyone's;
/// members see their own.
pub async fn spaces_of(
    app: &App,
    caller: &Caller,
    org_id: &str,
    user_id: &str,
    request: &PageRequest,
) -> AppResult<Page<(Role, SpaceInfo)>> {
    let mut conn = app.db.read().await?;
    let access: OrgAccess = access::org(&mut conn, caller, org_id).await?;
    access.require_self_or_admin(user_id)?;
    let member = load(&mut conn, org_id, user_id).await?;
    // Guests reach only what was shared with them; everyone else every space.
    let filter = SpaceFilter {
        parent: None,
        granted_to: member.role.is_none().then(|| user_id.to_owned()),
    };
    let page = spaces::list(&mut conn, org_id, &filter, request).await?;
    let member_roles = OrgRoles::load(&mut conn, org_id, member.role, user_id).await?;
    let caller_roles = OrgRoles::load(&mut conn, org_id, access.role, caller.id()).await?;
    let (reachable, roles): (Vec<_>, Vec<_>) = page
        .items
        .into_iter()
        .filter_map(|space| member_roles.for_space(&space).map(|role| (space, role)))
        .unzip();
    let infos = crate::spaces::infos(&mut conn, reachable, |s| caller_roles.for_space(s)).await?;
    Ok(Page {
        items: roles.into_iter().zip(infos).collect(),
        next: page.next,
        total: page.total,
    })
}
