//! Spaces: create and list in an organization, read, update, delete and
//! restore, duplicate, move and transfer.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::{DefaultLevel, EditMode, Role, Visibility};
use quire_store::spaces::{self, SpaceFilter, SpaceRow};
use quire_store::tree::{NodeKind, Sibling};
use quire_store::{Conn, change_requests, content, grants};
use serde::Deserialize;

use super::tree::{self, MoveBody, Position};
use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query, nullable};
use crate::jobs::{Job, SPACE_RETENTION_DAYS};
use crate::pagination::{List, ListOrder, PageParams};
use crate::permissions::{ContentAccess, OrgRoles, SpacePermissions, openly_viewable};
use crate::state::AppState;
use crate::{validate, views};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{org_id}/spaces", get(list_spaces).post(create_space))
        .route(
            "/spaces/{space_id}",
            get(get_space).patch(update_space).delete(delete_space),
        )
        .route("/spaces/{space_id}/restore", post(restore_space))
        .route("/spaces/{space_id}/duplicate", post(duplicate_space))
        .route("/spaces/{space_id}/move", post(move_space))
        .route("/spaces/{space_id}/transfer", post(transfer_space))
}

pub(crate) const SPACES_ORDER: ListOrder = ListOrder::ascending_by("position");

const MAX_TITLE: usize = 50;
const MAX_EMOJI: usize = 50;

fn space_title(title: &str) -> ApiResult<String> {
    validate::title("title", title, 1, MAX_TITLE)
}

fn emoji(value: &str) -> ApiResult<String> {
    if value.chars().count() > MAX_EMOJI || value.chars().any(char::is_whitespace) {
        return Err(ApiError::bad_request(format!(
            "emoji must be at most {MAX_EMOJI} characters, without spaces"
        )));
    }
    Ok(value.to_owned())
}

/// `in-collection` only makes sense for a space inside a collection.
fn check_visibility(visibility: Visibility, parent: Option<&str>) -> ApiResult<()> {
    if visibility == Visibility::InCollection && parent.is_none() {
        return Err(ApiError::bad_request(
            "visibility in-collection is only for spaces inside a collection",
        ));
    }
    Ok(())
}

/// A live (not deleted) space; 404 otherwise.
pub(crate) async fn load_space(conn: &mut Conn, space_id: &str) -> ApiResult<SpaceRow> {
    match spaces::get_any(conn, space_id).await {
        Ok(space) if space.deleted_at.is_none() => Ok(space),
        Ok(_) | Err(quire_store::StoreError::NotFound) => Err(ApiError::not_found("space")),
        Err(err) => Err(err.into()),
    }
}

/// The caller's access to a space they may at least see; 404 when they may not.
pub(crate) async fn visible_space(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    share_key: Option<&str>,
) -> ApiResult<(SpaceRow, ContentAccess)> {
    let space = load_space(conn, space_id).await?;
    let access = ContentAccess::to_space(conn, caller, &space).await?;
    if access.role.is_none() && !openly_viewable(&space, share_key) {
        return Err(ApiError::not_found("space"));
    }
    Ok((space, access))
}

/// Shapes one space, with its change request counters.
pub(crate) async fn render(
    state: &AppState,
    conn: &mut Conn,
    space: SpaceRow,
    role: Option<Role>,
) -> ApiResult<views::Space> {
    let counts = change_requests::counts_for(conn, std::slice::from_ref(&space.id)).await?;
    let counts = counts.get(&space.id).copied().unwrap_or_default();
    let open = openly_viewable(&space, None);
    Ok(views::space(state, space, SpacePermissions::of(role, open), counts))
}

/// Shapes a list of spaces, loading every counter in one query.
pub(crate) async fn render_list(
    state: &AppState,
    conn: &mut Conn,
    spaces: Vec<SpaceRow>,
    role_of: impl Fn(&SpaceRow) -> Option<Role>,
) -> ApiResult<Vec<views::Space>> {
    let ids: Vec<String> = spaces.iter().map(|s| s.id.clone()).collect();
    let counts = change_requests::counts_for(conn, &ids).await?;
    Ok(spaces
        .into_iter()
        .map(|space| {
            let role = role_of(&space);
            let open = openly_viewable(&space, None);
            let c = counts.get(&space.id).copied().unwrap_or_default();
            views::space(state, space, SpacePermissions::of(role, open), c)
        })
        .collect())
}

async fn list_spaces(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::Space>>> {
    let request = page.request(SPACES_ORDER)?;
    let mut conn = state.db.read().await?;
    let org = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    let filter = SpaceFilter {
        parent: None,
        granted_to: org.is_guest().then(|| caller.id().to_owned()),
    };
    let page = spaces::list(&mut conn, &org_id, &filter, &request).await?;
    let roles = OrgRoles::load(&mut conn, &org_id, org.role, caller.id()).await?;
    let items = render_list(&state, &mut conn, page.items, |s| roles.for_space(s)).await?;
    Ok(Json(List::new(items, page.total, page.next.as_ref(), SPACES_ORDER)))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateSpace {
    title: Option<String>,
    emoji: Option<String>,
    parent: Option<String>,
    edit_mode: Option<EditMode>,
    visibility: Option<Visibility>,
    #[serde(default, deserialize_with = "nullable")]
    default_level: Option<Option<DefaultLevel>>,
}

async fn create_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<CreateSpace>,
) -> ApiResult<(StatusCode, Json<views::Space>)> {
    let title = space_title(body.title.as_deref().unwrap_or("Untitled"))?;
    let emoji = body.emoji.as_deref().map(emoji).transpose()?.unwrap_or_default();
    let visibility = body.visibility.unwrap_or(Visibility::Private);
    check_visibility(visibility, body.parent.as_deref())?;
    let now = state.now();
    let mut tx = state.db.write().await?;
    let org = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    tree::destination(&mut tx, &caller, &org, body.parent.as_deref()).await?;
    let position = quire_store::tree::next_position(&mut tx, &org_id, body.parent.as_deref()).await?;
    let space = SpaceRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.clone(),
        parent_id: body.parent,
        title,
        emoji,
        visibility,
        edit_mode: body.edit_mode.unwrap_or(EditMode::Live),
        default_level: body
            .default_level
            .map_or(DefaultLevel::Inherit, |d| d.unwrap_or(DefaultLevel::None)),
        revision_id: quire_core::id::new_id(),
        share_key: quire_core::id::random_alphanumeric(32),
        position,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    };
    spaces::insert(&mut tx, &space).await?;
    content::insert_initial_revision(
        &mut tx,
        &space.id,
        &space.revision_id,
        content::EMPTY_ROOT,
        caller.id(),
        now,
    )
    .await?;
    let access = ContentAccess::to_space(&mut tx, &caller, &space).await?;
    let view = render(&state, &mut tx, space, access.role).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(view)))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShareKeyQuery {
    share_key: Option<String>,
}

async fn get_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    Query(query): Query<ShareKeyQuery>,
) -> ApiResult<Json<views::Space>> {
    let mut conn = state.db.read().await?;
    let (space, access) = visible_space(&mut conn, &caller, &space_id, query.share_key.as_deref()).await?;
    let open = openly_viewable(&space, query.share_key.as_deref());
    let counts = change_requests::counts_for(&mut conn, std::slice::from_ref(&space.id)).await?;
    let counts = counts.get(&space.id).copied().unwrap_or_default();
    Ok(Json(views::space(
        &state,
        space,
        SpacePermissions::of(access.role, open),
        counts,
    )))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateSpace {
    title: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    emoji: Option<Option<String>>,
    edit_mode: Option<EditMode>,
    visibility: Option<Visibility>,
    #[serde(default, deserialize_with = "nullable")]
    default_level: Option<Option<DefaultLevel>>,
}

async fn update_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<UpdateSpace>,
) -> ApiResult<Json<views::Space>> {
    let mut tx = state.db.write().await?;
    let (mut space, access) = visible_space(&mut tx, &caller, &space_id, None).await?;
    access.require(Role::Admin, "change this space's settings")?;
    if let Some(title) = &body.title {
        space.title = space_title(title)?;
    }
    if let Some(value) = &body.emoji {
        space.emoji = value.as_deref().map(emoji).transpose()?.unwrap_or_default();
    }
    if let Some(mode) = body.edit_mode {
        space.edit_mode = mode;
    }
    if let Some(visibility) = body.visibility {
        check_visibility(visibility, space.parent_id.as_deref())?;
        space.visibility = visibility;
    }
    if let Some(level) = body.default_level {
        space.default_level = level.unwrap_or(DefaultLevel::None);
    }
    space.updated_at = state.now();
    spaces::update(&mut tx, &space).await?;
    let access = ContentAccess::to_space(&mut tx, &caller, &space).await?;
    let view = render(&state, &mut tx, space, access.role).await?;
    tx.commit().await?;
    Ok(Json(view))
}

/// Soft-deletes the space and schedules its purge. Deleting a space that
/// does not exist, is already deleted, or that the caller cannot see
/// answers 204 all the same (nothing tells those apart).
async fn delete_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    let (mut space, access) = match visible_space(&mut tx, &caller, &space_id, None).await {
        Ok(found) => found,
        Err(ApiError::NotFound(_)) => return Ok(StatusCode::NO_CONTENT),
        Err(err) => return Err(err),
    };
    access.require(Role::Admin, "delete this space")?;
    let now = state.now();
    space.deleted_at = Some(now);
    space.updated_at = now;
    spaces::update(&mut tx, &space).await?;
    Job::PurgeSpace {
        space_id: space.id.clone(),
    }
    .enqueue(&mut tx, now.plus_days(SPACE_RETENTION_DAYS), now)
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn restore_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
) -> ApiResult<Json<views::Space>> {
    let now = state.now();
    let mut tx = state.db.write().await?;
    let gone = || ApiError::NotFound("space not found (spaces are removed for good 7 days after deletion)".into());
    let mut space = match spaces::get_any(&mut tx, &space_id).await {
        Ok(space) => space,
        Err(quire_store::StoreError::NotFound) => return Err(gone()),
        Err(err) => return Err(err.into()),
    };
    let access = ContentAccess::to_space(&mut tx, &caller, &space).await?;
    if access.role.is_none() {
        return Err(gone());
    }
    access.require(Role::Admin, "restore this space")?;
    let Some(deleted_at) = space.deleted_at else {
        return Err(ApiError::bad_request("this space is not deleted"));
    };
    if deleted_at.plus_days(SPACE_RETENTION_DAYS) <= now {
        return Err(gone());
    }
    space.deleted_at = None;
    space.updated_at = now;
    spaces::update(&mut tx, &space).await?;
    let view = render(&state, &mut tx, space, access.role).await?;
    tx.commit().await?;
    Ok(Json(view))
}

async fn duplicate_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
) -> ApiResult<(StatusCode, Json<views::Space>)> {
    let now = state.now();
    let mut tx = state.db.write().await?;
    let (original, access) = visible_space(&mut tx, &caller, &space_id, None).await?;
    access.require(Role::Read, "duplicate this space")?;
    let org = access
        .org
        .clone()
        .ok_or_else(|| ApiError::forbidden("only organization members can duplicate spaces"))?;
    tree::destination(&mut tx, &caller, &org, original.parent_id.as_deref()).await?;
    let title: String = format!("{} (copy)", original.title).chars().take(MAX_TITLE).collect();
    let copy = SpaceRow {
        id: quire_core::id::new_id(),
        title,
        revision_id: quire_core::id::new_id(),
        share_key: quire_core::id::random_alphanumeric(32),
        created_at: now,
        updated_at: now,
        deleted_at: None,
        ..original.clone()
    };
    spaces::insert(&mut tx, &copy).await?;
    // The copy starts from the original's current tree: the same objects,
    // nothing rewritten.
    let root = content::get_revision(&mut tx, &original.id, &original.revision_id)
        .await?
        .root;
    content::insert_initial_revision(&mut tx, &copy.id, &copy.revision_id, &root, caller.id(), now).await?;
    let after = Position {
        before: None,
        after: Some(tree::Pointer::Space {
            space: original.id.clone(),
        }),
    };
    tree::place(
        &mut tx,
        &copy.organization_id,
        copy.parent_id.as_deref(),
        space_node(&copy.id),
        Some(&after),
    )
    .await?;
    let copy = spaces::get_any(&mut tx, &copy.id).await?;
    let access = ContentAccess::to_space(&mut tx, &caller, &copy).await?;
    let view = render(&state, &mut tx, copy, access.role).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(view)))
}

fn space_node(id: &str) -> Sibling {
    Sibling {
        kind: NodeKind::Space,
        id: id.to_owned(),
    }
}

async fn move_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<MoveBody>,
) -> ApiResult<Json<views::Space>> {
    body.check()?;
    let mut tx = state.db.write().await?;
    let (mut space, access) = visible_space(&mut tx, &caller, &space_id, None).await?;
    access.require(Role::Admin, "move this space")?;
    let org = access
        .org
        .clone()
        .ok_or_else(|| ApiError::forbidden("only organization members can move spaces"))?;
    let parent = body.parent.clone().unwrap_or(space.parent_id.clone());
    if parent != space.parent_id {
        tree::destination(&mut tx, &caller, &org, parent.as_deref()).await?;
        check_visibility(space.visibility, parent.as_deref())?;
        space.parent_id = parent;
        space.updated_at = state.now();
        spaces::update(&mut tx, &space).await?;
    }
    tree::place(
        &mut tx,
        &space.organization_id,
        space.parent_id.as_deref(),
        space_node(&space.id),
        body.position.as_ref(),
    )
    .await?;
    let space = spaces::get_any(&mut tx, &space.id).await?;
    let access = ContentAccess::to_space(&mut tx, &caller, &space).await?;
    let view = render(&state, &mut tx, space, access.role).await?;
    tx.commit().await?;
    Ok(Json(view))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TransferBody {
    organization: String,
    collection: Option<String>,
}

/// Moves a space to another organization (and collection). Grants do not
/// travel: they name users and teams of the old organization.
async fn transfer_space(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<TransferBody>,
) -> ApiResult<Json<views::Space>> {
    let mut tx = state.db.write().await?;
    let (mut space, access) = visible_space(&mut tx, &caller, &space_id, None).await?;
    access.require(Role::Admin, "transfer this space")?;
    let target = OrgAccess::find(&mut tx, &body.organization, &caller)
        .await?
        .ok_or_else(|| ApiError::bad_request(format!("organization {:?} not found", body.organization)))?;
    target.require_admin()?;
    tree::destination(&mut tx, &caller, &target, body.collection.as_deref()).await?;
    check_visibility(space.visibility, body.collection.as_deref())?;
    if space.organization_id != target.org_id {
        grants::remove_all_on(&mut tx, std::slice::from_ref(&space.id)).await?;
    }
    space.organization_id = target.org_id.clone();
    space.parent_id = body.collection;
    space.updated_at = state.now();
    spaces::update(&mut tx, &space).await?;
    tree::place(
        &mut tx,
        &space.organization_id,
        space.parent_id.as_deref(),
        space_node(&space.id),
        None,
    )
    .await?;
    let space = spaces::get_any(&mut tx, &space.id).await?;
    let access = ContentAccess::to_space(&mut tx, &caller, &space).await?;
    let view = render(&state, &mut tx, space, access.role).await?;
    tx.commit().await?;
    Ok(Json(view))
}
