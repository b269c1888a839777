//! Organization members: list with filters, read, change role, remove,
//! mark as SSO member, and the member's teams and spaces.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::Role;
use quire_store::members::{self, MemberFilter, MemberSort, RoleFilter};
use quire_store::spaces::{self, SpaceFilter};
use quire_store::{Conn, grants, teams};
use serde::Deserialize;

use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query, nullable};
use crate::pagination::{List, ListOrder, PageParams};
use crate::permissions::OrgRoles;
use crate::routes::spaces::render_list as render_spaces;
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{org_id}/members", get(list_members))
        .route(
            "/orgs/{org_id}/members/{user_id}",
            get(get_member).patch(update_member).delete(remove_member),
        )
        .route("/orgs/{org_id}/members/{user_id}/sso", post(set_sso))
        .route("/orgs/{org_id}/members/{user_id}/teams", get(member_teams))
        .route("/orgs/{org_id}/members/{user_id}/spaces", get(member_spaces))
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Order {
    Asc,
    #[default]
    Desc,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
enum SortParam {
    #[default]
    #[serde(rename = "joinedAt")]
    JoinedAt,
    #[serde(rename = "lastSeenAt")]
    LastSeenAt,
    #[serde(rename = "name")]
    Name,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RoleParam {
    Admin,
    Create,
    Review,
    Edit,
    Comment,
    Read,
    Guest,
}

#[derive(Debug, Deserialize)]
struct MemberListQuery {
    #[serde(default)]
    order: Order,
    #[serde(default)]
    sort: SortParam,
    role: Option<RoleParam>,
    search: Option<String>,
}

async fn list_members(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<MemberListQuery>,
) -> ApiResult<Json<List<views::Member>>> {
    let descending = matches!(query.order, Order::Desc);
    let (sort, order) = match query.sort {
        SortParam::JoinedAt => (
            MemberSort::JoinedAt,
            ListOrder {
                sort: "joinedAt",
                text_key: false,
                descending,
            },
        ),
        SortParam::LastSeenAt => (
            MemberSort::LastSeenAt,
            ListOrder {
                sort: "lastSeenAt",
                text_key: false,
                descending,
            },
        ),
        SortParam::Name => (
            MemberSort::Name,
            ListOrder {
                sort: "name",
                text_key: true,
                descending,
            },
        ),
    };
    let request = page.request(order)?;
    let role = query.role.map(|r| match r {
        RoleParam::Admin => RoleFilter::Role(Role::Admin),
        RoleParam::Create => RoleFilter::Role(Role::Create),
        RoleParam::Review => RoleFilter::Role(Role::Review),
        RoleParam::Edit => RoleFilter::Role(Role::Edit),
        RoleParam::Comment => RoleFilter::Role(Role::Comment),
        RoleParam::Read => RoleFilter::Role(Role::Read),
        RoleParam::Guest => RoleFilter::Guest,
    });
    let search = query
        .search
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_owned());
    let filter = MemberFilter { role, search };

    let mut conn = state.db.read().await?;
    OrgAccess::load(&mut conn, &org_id, &caller)
        .await?
        .require_directory()?;
    let page = members::list(&mut conn, &org_id, sort, &filter, &request).await?;
    let spaces = space_counts(&mut conn, &org_id, &page.items).await?;
    let mut spaces = spaces.into_iter();
    Ok(Json(List::from_page(page, order, |m| {
        views::member(&state, &m, spaces.next().unwrap_or_default())
    })))
}

/// How many spaces each member can reach: every live space of the
/// organization for members with a role, what was shared with them for
/// guests.
pub(crate) async fn space_counts(conn: &mut Conn, org_id: &str, members: &[members::MemberRow]) -> ApiResult<Vec<i64>> {
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

/// Shapes one member with their space count.
pub(crate) async fn render_member(
    state: &AppState,
    conn: &mut Conn,
    member: &members::MemberRow,
) -> ApiResult<views::Member> {
    let spaces = space_counts(conn, &member.organization_id, std::slice::from_ref(member)).await?;
    Ok(views::member(
        state,
        member,
        spaces.first().copied().unwrap_or_default(),
    ))
}

/// Loads the member `user_id` of the organization; 404 when not a member.
async fn load_member(conn: &mut Conn, org_id: &str, user_id: &str) -> ApiResult<members::MemberRow> {
    members::get(conn, org_id, user_id).await.map_err(|err| match err {
        quire_store::StoreError::NotFound => ApiError::not_found("member"),
        other => other.into(),
    })
}

/// Members see each other (guests only themselves).
fn require_can_see(access: &OrgAccess, user_id: &str) -> ApiResult<()> {
    if access.user_id == user_id {
        Ok(())
    } else {
        access.require_directory()
    }
}

async fn get_member(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Member>> {
    let mut conn = state.db.read().await?;
    let access = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    require_can_see(&access, &user_id)?;
    let member = load_member(&mut conn, &org_id, &user_id).await?;
    Ok(Json(render_member(&state, &mut conn, &member).await?))
}

#[derive(Debug, Deserialize)]
struct UpdateMember {
    #[serde(default, deserialize_with = "nullable")]
    role: Option<Option<Role>>,
}

/// Refuses a change that would leave the organization without an admin.
async fn keep_an_admin(conn: &mut Conn, member: &members::MemberRow) -> ApiResult<()> {
    if member.role == Some(Role::Admin) && members::lock_and_count_admins(conn, &member.organization_id).await? <= 1 {
        return Err(ApiError::bad_request(
            "this is the organization's last admin: make someone else admin first",
        ));
    }
    Ok(())
}

async fn update_member(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, user_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<UpdateMember>,
) -> ApiResult<Json<views::Member>> {
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    let member = load_member(&mut tx, &org_id, &user_id).await?;
    if let Some(role) = body.role
        && role != member.role
    {
        keep_an_admin(&mut tx, &member).await?;
        members::set_role(&mut tx, &org_id, &user_id, role).await?;
    }
    let member = load_member(&mut tx, &org_id, &user_id).await?;
    let view = render_member(&state, &mut tx, &member).await?;
    tx.commit().await?;
    Ok(Json(view))
}

async fn remove_member(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, user_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    let access = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    if access.user_id != user_id {
        access.require_admin()?;
    }
    match members::get(&mut tx, &org_id, &user_id).await {
        Ok(member) => {
            keep_an_admin(&mut tx, &member).await?;
            members::delete(&mut tx, &org_id, &user_id).await?;
            grants::remove_all_of(&mut tx, &org_id, grants::Principal::User, &user_id).await?;
            tx.commit().await?;
        }
        Err(quire_store::StoreError::NotFound) => {}
        Err(other) => return Err(other.into()),
    }
    Ok(StatusCode::NO_CONTENT)
}

async fn set_sso(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Member>> {
    let mut tx = state.db.write().await?;
    OrgAccess::load(&mut tx, &org_id, &caller).await?.require_admin()?;
    load_member(&mut tx, &org_id, &user_id).await?;
    members::set_sso(&mut tx, &org_id, &user_id).await?;
    let member = load_member(&mut tx, &org_id, &user_id).await?;
    let view = render_member(&state, &mut tx, &member).await?;
    tx.commit().await?;
    Ok(Json(view))
}

#[derive(Debug, Deserialize)]
struct TitleFilter {
    title: Option<String>,
}

const MEMBER_TEAMS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn member_teams(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, user_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<TitleFilter>,
) -> ApiResult<Json<List<views::MemberTeamItem>>> {
    let request = page.request(MEMBER_TEAMS_ORDER)?;
    let mut conn = state.db.read().await?;
    let access = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    require_can_see(&access, &user_id)?;
    load_member(&mut conn, &org_id, &user_id).await?;
    let title = query.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let page = teams::list_for_member(&mut conn, &org_id, &user_id, title, &request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for (team, role) in page.items {
        let caller_role = if access.user_id == user_id {
            Some(role)
        } else {
            teams::member_role(&mut conn, &team.id, &access.user_id).await?
        };
        let caller_owns = caller_role == Some(quire_core::TeamRole::Owner);
        items.push(views::MemberTeamItem {
            team: views::team(team, access.team_permissions(caller_owns)),
            member: views::TeamMembership { role },
        });
    }
    Ok(Json(List::new(
        items,
        page.total,
        page.next.as_ref(),
        MEMBER_TEAMS_ORDER,
    )))
}

#[derive(Debug, Deserialize)]
struct OrderQuery {
    #[serde(default)]
    order: Order,
}

/// The spaces a member can access, with their role on each, in tree order
/// (`order=desc`, the default, lists the last ones first).
async fn member_spaces(
    State(state): State<AppState>,
    caller: Caller,
    Path((org_id, user_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<OrderQuery>,
) -> ApiResult<Json<List<views::SpacePermission>>> {
    let order = ListOrder {
        sort: "position",
        text_key: false,
        descending: matches!(query.order, Order::Desc),
    };
    let request = page.request(order)?;
    let mut conn = state.db.read().await?;
    let access = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    if access.user_id != user_id {
        access.require_admin()?;
    }
    let member = load_member(&mut conn, &org_id, &user_id).await?;
    // Guests reach only what was shared with them; everyone else every space.
    let filter = SpaceFilter {
        parent: None,
        granted_to: member.role.is_none().then(|| user_id.clone()),
    };
    let page = spaces::list(&mut conn, &org_id, &filter, &request).await?;
    let member_roles = OrgRoles::load(&mut conn, &org_id, member.role, &user_id).await?;
    let caller_roles = OrgRoles::load(&mut conn, &org_id, access.role, caller.id()).await?;
    let (reachable, permissions): (Vec<_>, Vec<_>) = page
        .items
        .into_iter()
        .filter_map(|space| member_roles.for_space(&space).map(|role| (space, role)))
        .unzip();
    let spaces = render_spaces(&state, &mut conn, reachable, |s| caller_roles.for_space(s)).await?;
    let items: Vec<views::SpacePermission> = spaces
        .into_iter()
        .zip(permissions)
        .map(|(space, permission)| views::SpacePermission { permission, space })
        .collect();
    Ok(Json(List::new(items, page.total, page.next.as_ref(), order)))
}
