//! Who may touch a space or a collection: invite users and teams with a
//! role, list, change and remove their grants. Users from outside the
//! organization join it as guests, so what is shared with them is all they
//! see. Sharing needs the admin role on the resource.

use quire_core::Role;
use quire_core::serde_util::nullable;
use quire_store::grants::{self, Principal, Resource};
use quire_store::page::PageRequest;
use quire_store::users::UserRow;
use quire_store::{Conn, Page, members, teams, users};
use serde::Deserialize;

use crate::access::{self, ContentAccess};
use crate::accounts::{Viewer, Visibility};
use crate::error::{AppError, AppResult};
use crate::teams::TeamInfo;
use crate::{App, Caller, input};

/// A space or collection the caller holds a role on.
struct Target {
    id: String,
    org_id: String,
    access: ContentAccess,
}

async fn target(conn: &mut Conn, caller: &Caller, kind: Resource, id: &str) -> AppResult<Target> {
    match kind {
        Resource::Space => {
            let (space, access) = access::space(conn, caller, id, None).await?;
            if access.role.is_none() {
                return Err(AppError::not_found("space", id));
            }
            Ok(Target {
                id: space.id,
                org_id: space.organization_id,
                access,
            })
        }
        Resource::Collection => {
            let (collection, access) = access::collection(conn, caller, id).await?;
            Ok(Target {
                id: collection.id,
                org_id: collection.organization_id,
                access,
            })
        }
    }
}

/// A role for users (ids or emails) and teams.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invite {
    #[serde(deserialize_with = "nullable")]
    pub role: Option<Option<Role>>,
    #[serde(default)]
    pub users: Vec<String>,
    #[serde(default)]
    pub teams: Vec<String>,
}

/// Grants the role to every listed user and team.
pub async fn invite(app: &App, caller: &Caller, kind: Resource, id: &str, invite: Invite) -> AppResult<()> {
    let role = invite
        .role
        .flatten()
        .ok_or_else(|| AppError::invalid("role is required and must be a role"))?;
    if invite.users.is_empty() && invite.teams.is_empty() {
        return Err(AppError::invalid("list at least one user or team"));
    }
    let now = app.now();
    let mut tx = app.db.write().await?;
    let target = target(&mut tx, caller, kind, id).await?;
    target.access.require(Role::Admin, "share this content")?;
    for user in &invite.users {
        let found = if user.contains('@') {
            users::find_by_email(&mut tx, &input::email(user)?).await?
        } else {
            users::get(&mut tx, user).await.ok()
        };
        let user = found.ok_or_else(|| AppError::invalid(format!("user {user:?} not found")))?;
        members::insert(&mut tx, &target.org_id, &user.id, None, false, now).await?;
        grants::upsert(
            &mut tx,
            kind,
            &target.id,
            &target.org_id,
            Principal::User,
            &user.id,
            role,
            now,
        )
        .await?;
    }
    for team in &invite.teams {
        if teams::get(&mut tx, &target.org_id, team).await.is_err() {
            return Err(AppError::invalid(format!(
                "team {team:?} not found in this organization"
            )));
        }
        grants::upsert(
            &mut tx,
            kind,
            &target.id,
            &target.org_id,
            Principal::Team,
            team,
            role,
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// A user's grant on a space or collection, and how much of the user the
/// caller sees.
#[derive(Debug, Clone)]
pub struct UserGrant {
    pub user: UserRow,
    pub role: Role,
    pub visibility: Visibility,
}

/// The users granted a role on the resource, oldest grant first. They are
/// all members of its organization (granting makes outsiders guests, and
/// leaving or moving the content drops grants).
pub async fn users(
    app: &App,
    caller: &Caller,
    kind: Resource,
    id: &str,
    request: &PageRequest,
) -> AppResult<Page<UserGrant>> {
    let mut conn = app.db.read().await?;
    let target = target(&mut conn, caller, kind, id).await?;
    let viewer = Viewer::of_members(caller, target.access.org.as_ref());
    let page = grants::list_users(&mut conn, &target.id, request).await?;
    Ok(Page {
        items: page
            .items
            .into_iter()
            .map(|(user, role)| UserGrant {
                visibility: viewer.sees(&user.id),
                user,
                role,
            })
            .collect(),
        next: page.next,
        total: page.total,
    })
}

/// The teams granted a role on the resource, oldest grant first.
pub async fn teams(
    app: &App,
    caller: &Caller,
    kind: Resource,
    id: &str,
    request: &PageRequest,
) -> AppResult<Page<(TeamInfo, Role)>> {
    let mut conn = app.db.read().await?;
    let target = target(&mut conn, caller, kind, id).await?;
    let org = target.access.member("list the teams of this content")?.clone();
    let page = grants::list_teams(&mut conn, &target.id, request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for (team, role) in page.items {
        items.push((crate::teams::info(&mut conn, &org, team).await?, role));
    }
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

/// Changes a grant's role; `None` removes the grant.
pub async fn change(
    app: &App,
    caller: &Caller,
    kind: Resource,
    id: &str,
    principal: Principal,
    principal_id: &str,
    role: Option<Role>,
) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let target = target(&mut tx, caller, kind, id).await?;
    target.access.require(Role::Admin, "share this content")?;
    match role {
        Some(role) => {
            if !grants::set_role(&mut tx, &target.id, principal, principal_id, role).await? {
                return Err(AppError::not_found("permission of", principal_id));
            }
        }
        None => grants::remove(&mut tx, &target.id, principal, principal_id).await?,
    }
    tx.commit().await?;
    Ok(())
}

/// Removes a grant (nothing happens when there is none).
pub async fn remove(
    app: &App,
    caller: &Caller,
    kind: Resource,
    id: &str,
    principal: Principal,
    principal_id: &str,
) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let target = target(&mut tx, caller, kind, id).await?;
    target.access.require(Role::Admin, "share this content")?;
    grants::remove(&mut tx, &target.id, principal, principal_id).await?;
    tx.commit().await?;
    Ok(())
}

/// Why a person holds the role they hold on a space: each source (their
/// organization role, a level's default access, a grant to them or to one
/// of their teams) with its role and the level it is on, the strongest
/// first.
pub struct Explanation {
    pub user: UserRow,
    /// The effective role (the strongest source), `None` without access.
    pub role: Option<Role>,
    /// (role, where it comes from, the title of the level it is on).
    pub sources: Vec<(Role, access::RoleSource, Option<String>)>,
}

/// Explains `user_id`'s role on a space to its admins (and to the person
/// themself). A disabled member holds nothing.
pub async fn explain(app: &App, caller: &Caller, space_id: &str, user_id: &str) -> AppResult<Explanation> {
    let mut conn = app.db.read().await?;
    let (space, access) = access::space(&mut conn, caller, space_id, None).await?;
    if caller.id() != user_id {
        access.require(Role::Admin, "see why someone holds their role")?;
    }
    let user = users::get(&mut conn, user_id)
        .await
        .map_err(|_| AppError::not_found("user", user_id))?;
    let chain = match &space.parent_id {
        Some(parent) => quire_store::collections::chain(&mut conn, parent).await?,
        None => Vec::new(),
    };
    let member_role = match members::membership(&mut conn, &space.organization_id, user_id).await? {
        Some(m) if !m.disabled => m.role,
        _ => None,
    };
    let mut ids = vec![space.id.clone()];
    ids.extend(chain.iter().map(|l| l.id.clone()));
    let held = grants::held_by_user_with_sources(&mut conn, &space.organization_id, user_id, &ids).await?;
    let levels = std::iter::once(access::TreeLevel {
        id: &space.id,
        default_level: space.default_level,
    })
    .chain(chain.iter().map(|l| access::TreeLevel {
        id: &l.id,
        default_level: l.default_level,
    }));
    let mut sources = Vec::new();
    for (role, source) in access::role_sources(member_role, levels, &held) {
        let resource = match &source {
            access::RoleSource::Organization => None,
            access::RoleSource::DefaultLevel { resource } | access::RoleSource::Grant { resource, .. } => {
                Some(resource.clone())
            }
        };
        let title = match resource {
            Some(id) if id == space.id => Some(space.title.clone()),
            Some(id) => quire_store::collections::get(&mut conn, &id)
                .await
                .ok()
                .map(|c| c.title),
            None => None,
        };
        sources.push((role, source, title));
    }
    sources.sort_by_key(|s| std::cmp::Reverse(s.0));
    Ok(Explanation {
        user,
        role: sources.first().map(|s| s.0),
        sources,
    })
}
