//! Collections: create and list in an organization, read, update, delete,
//! list their spaces, move and transfer.
//!
//! Deleting a collection never deletes content: its spaces and
//! sub-collections move up to the deleted collection's parent (or the
//! organization root), after its former siblings.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::{DefaultLevel, Role};
use quire_store::collections::{self, CollectionFilter, CollectionRow};
use quire_store::spaces::{self, SpaceFilter};
use quire_store::tree::{NodeKind, Sibling};
use quire_store::{Conn, grants};
use serde::Deserialize;

use super::spaces::{SPACES_ORDER, render_list as render_spaces};
use super::tree::{self, MoveBody};
use crate::auth::Caller;
use crate::authz::OrgAccess;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query, nullable};
use crate::pagination::{List, ListOrder, PageParams};
use crate::permissions::{CollectionPermissions, ContentAccess, OrgRoles};
use crate::state::AppState;
use crate::{validate, views};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/orgs/{org_id}/collections",
            get(list_collections).post(create_collection),
        )
        .route(
            "/collections/{collection_id}",
            get(get_collection).patch(update_collection).delete(delete_collection),
        )
        .route("/collections/{collection_id}/spaces", get(list_collection_spaces))
        .route("/collections/{collection_id}/move", post(move_collection))
        .route("/collections/{collection_id}/transfer", post(transfer_collection))
}

const COLLECTIONS_ORDER: ListOrder = ListOrder::ascending_by("position");

fn collection_title(title: &str) -> ApiResult<String> {
    validate::title("title", title, 1, 50)
}

fn description(text: &str) -> ApiResult<String> {
    if text.chars().count() > 100 {
        return Err(ApiError::bad_request("description must be at most 100 characters long"));
    }
    Ok(text.to_owned())
}

fn collection_node(id: &str) -> Sibling {
    Sibling {
        kind: NodeKind::Collection,
        id: id.to_owned(),
    }
}

/// The caller's access to a collection they may see; 404 when they may not.
pub(crate) async fn visible_collection(
    conn: &mut Conn,
    caller: &Caller,
    collection_id: &str,
) -> ApiResult<(CollectionRow, ContentAccess)> {
    let collection = match collections::get(conn, collection_id).await {
        Ok(c) => c,
        Err(quire_store::StoreError::NotFound) => return Err(ApiError::not_found("collection")),
        Err(err) => return Err(err.into()),
    };
    let access = ContentAccess::to_collection(conn, caller, &collection).await?;
    if access.role.is_none() {
        return Err(ApiError::not_found("collection"));
    }
    Ok((collection, access))
}

fn render(state: &AppState, collection: CollectionRow, role: Option<Role>) -> views::Collection {
    views::collection(state, collection, CollectionPermissions::of(role))
}

#[derive(Debug, Deserialize)]
struct NestedQuery {
    nested: Option<bool>,
}

async fn list_collections(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<NestedQuery>,
) -> ApiResult<Json<List<views::Collection>>> {
    let request = page.request(COLLECTIONS_ORDER)?;
    let mut conn = state.db.read().await?;
    let org = OrgAccess::load(&mut conn, &org_id, &caller).await?;
    let filter = CollectionFilter {
        top_level_only: !query.nested.unwrap_or(true),
        granted_to: org.is_guest().then(|| caller.id().to_owned()),
        parent: None,
    };
    let page = collections::list(&mut conn, &org_id, &filter, &request).await?;
    let roles = OrgRoles::load(&mut conn, &org_id, org.role, caller.id()).await?;
    Ok(Json(List::from_page(page, COLLECTIONS_ORDER, |c| {
        let role = roles.for_collection(&c);
        render(&state, c, role)
    })))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateCollection {
    title: Option<String>,
    description: Option<String>,
    parent: Option<String>,
}

async fn create_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<CreateCollection>,
) -> ApiResult<(StatusCode, Json<views::Collection>)> {
    let title = collection_title(body.title.as_deref().unwrap_or("Untitled"))?;
    let description = body.description.as_deref().map(description).transpose()?;
    let now = state.now();
    let mut tx = state.db.write().await?;
    let org = OrgAccess::load(&mut tx, &org_id, &caller).await?;
    tree::destination(&mut tx, &caller, &org, body.parent.as_deref()).await?;
    let collection = CollectionRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.clone(),
        position: quire_store::tree::next_position(&mut tx, &org_id, body.parent.as_deref()).await?,
        parent_id: body.parent,
        title,
        description,
        default_level: DefaultLevel::Inherit,
        created_at: now,
        updated_at: now,
    };
    collections::insert(&mut tx, &collection).await?;
    let access = ContentAccess::to_collection(&mut tx, &caller, &collection).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(render(&state, collection, access.role))))
}

async fn get_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(collection_id): Path<String>,
) -> ApiResult<Json<views::Collection>> {
    let mut conn = state.db.read().await?;
    let (collection, access) = visible_collection(&mut conn, &caller, &collection_id).await?;
    Ok(Json(render(&state, collection, access.role)))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateCollection {
    title: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    description: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    default_level: Option<Option<DefaultLevel>>,
}

async fn update_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(collection_id): Path<String>,
    JsonBody(body): JsonBody<UpdateCollection>,
) -> ApiResult<Json<views::Collection>> {
    let mut tx = state.db.write().await?;
    let (mut collection, access) = visible_collection(&mut tx, &caller, &collection_id).await?;
    access.require(Role::Admin, "change this collection")?;
    if let Some(title) = &body.title {
        collection.title = collection_title(title)?;
    }
    if let Some(text) = &body.description {
        collection.description = text.as_deref().map(description).transpose()?;
    }
    if let Some(level) = body.default_level {
        collection.default_level = level.unwrap_or(DefaultLevel::None);
    }
    collection.updated_at = state.now();
    collections::update(&mut tx, &collection).await?;
    let access = ContentAccess::to_collection(&mut tx, &caller, &collection).await?;
    tx.commit().await?;
    Ok(Json(render(&state, collection, access.role)))
}

async fn delete_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(collection_id): Path<String>,
) -> ApiResult<StatusCode> {
    let mut tx = state.db.write().await?;
    let (collection, access) = match visible_collection(&mut tx, &caller, &collection_id).await {
        Ok(found) => found,
        Err(ApiError::NotFound(_)) => return Ok(StatusCode::NO_CONTENT),
        Err(err) => return Err(err),
    };
    access.require(Role::Admin, "delete this collection")?;
    let org_id = collection.organization_id.clone();
    let parent = collection.parent_id.as_deref();
    // Children keep their order and land after the parent's other children.
    let children = quire_store::tree::siblings(&mut tx, &org_id, Some(&collection.id)).await?;
    collections::reparent_children(&mut tx, &collection.id, parent).await?;
    grants::remove_all_on(&mut tx, std::slice::from_ref(&collection.id)).await?;
    collections::delete(&mut tx, &collection.id).await?;
    let mut siblings = quire_store::tree::siblings(&mut tx, &org_id, parent).await?;
    siblings.retain(|s| !children.contains(s));
    siblings.extend(children);
    quire_store::tree::renumber(&mut tx, &siblings).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_collection_spaces(
    State(state): State<AppState>,
    caller: Caller,
    Path(collection_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::Space>>> {
    let request = page.request(SPACES_ORDER)?;
    let mut conn = state.db.read().await?;
    let (collection, access) = visible_collection(&mut conn, &caller, &collection_id).await?;
    let org_role = access.org.as_ref().and_then(|o| o.role);
    let filter = SpaceFilter {
        parent: Some(collection.id.clone()),
        granted_to: None,
    };
    let page = spaces::list(&mut conn, &collection.organization_id, &filter, &request).await?;
    let roles = OrgRoles::load(&mut conn, &collection.organization_id, org_role, caller.id()).await?;
    let items = render_spaces(&state, &mut conn, page.items, |s| roles.for_space(s)).await?;
    Ok(Json(List::new(items, page.total, page.next.as_ref(), SPACES_ORDER)))
}

async fn move_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(collection_id): Path<String>,
    JsonBody(body): JsonBody<MoveBody>,
) -> ApiResult<Json<views::Collection>> {
    body.check()?;
    let mut tx = state.db.write().await?;
    let (mut collection, access) = visible_collection(&mut tx, &caller, &collection_id).await?;
    access.require(Role::Admin, "move this collection")?;
    let org = access
        .org
        .clone()
        .ok_or_else(|| ApiError::forbidden("only organization members can move collections"))?;
    let parent = body.parent.clone().unwrap_or(collection.parent_id.clone());
    if parent != collection.parent_id {
        if let Some(target) = &parent {
            let subtree = collections::subtree_ids(&mut tx, &collection.id).await?;
            if subtree.contains(target) {
                return Err(ApiError::bad_request(
                    "a collection cannot move into itself or one of its sub-collections",
                ));
            }
        }
        tree::destination(&mut tx, &caller, &org, parent.as_deref()).await?;
        collection.parent_id = parent;
        collection.updated_at = state.now();
        collections::update(&mut tx, &collection).await?;
    }
    tree::place(
        &mut tx,
        &collection.organization_id,
        collection.parent_id.as_deref(),
        collection_node(&collection.id),
        body.position.as_ref(),
    )
    .await?;
    let collection = collections::get(&mut tx, &collection.id).await?;
    let access = ContentAccess::to_collection(&mut tx, &caller, &collection).await?;
    tx.commit().await?;
    Ok(Json(render(&state, collection, access.role)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TransferBody {
    organization: String,
}

/// Moves a collection with everything in it to the root of another
/// organization. Grants inside the moved tree are dropped: they name users
/// and teams of the old organization.
async fn transfer_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(collection_id): Path<String>,
    JsonBody(body): JsonBody<TransferBody>,
) -> ApiResult<Json<views::Collection>> {
    let mut tx = state.db.write().await?;
    let (mut collection, access) = visible_collection(&mut tx, &caller, &collection_id).await?;
    access.require(Role::Admin, "transfer this collection")?;
    let target = OrgAccess::find(&mut tx, &body.organization, &caller)
        .await?
        .ok_or_else(|| ApiError::bad_request(format!("organization {:?} not found", body.organization)))?;
    target.require_admin()?;
    if target.org_id != collection.organization_id {
        let subtree = collections::subtree_ids(&mut tx, &collection.id).await?;
        let space_ids = spaces::ids_under(&mut tx, &subtree).await?;
        grants::remove_all_on(&mut tx, &subtree).await?;
        grants::remove_all_on(&mut tx, &space_ids).await?;
        collections::move_to_org(&mut tx, &subtree, &target.org_id).await?;
        spaces::move_to_org(&mut tx, &subtree, &target.org_id).await?;
        collection = collections::get(&mut tx, &collection.id).await?;
        collection.parent_id = None;
        collection.updated_at = state.now();
        collections::update(&mut tx, &collection).await?;
        tree::place(&mut tx, &target.org_id, None, collection_node(&collection.id), None).await?;
    }
    let collection = collections::get(&mut tx, &collection.id).await?;
    let access = ContentAccess::to_collection(&mut tx, &caller, &collection).await?;
    tx.commit().await?;
    Ok(Json(render(&state, collection, access.role)))
}
