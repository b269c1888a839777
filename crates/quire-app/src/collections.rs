//! Collections: create and list in an organization, read, update, delete,
//! move and transfer.
//!
//! Deleting a collection never deletes content: its spaces and
//! sub-collections move up to the deleted collection's parent (or the
//! organization root), after its former siblings.

use quire_core::{DefaultLevel, Role};
use quire_store::collections::{self, CollectionFilter, CollectionRow};
use quire_store::page::PageRequest;
use quire_store::{Conn, Page, grants, spaces};
use serde::Deserialize;

use crate::access::{self, CollectionPermissions, ContentAccess, OrgRoles};
use crate::error::{AppError, AppResult};
use crate::tree::{self, MoveInput, collection_node};
use crate::{App, Caller, input};

/// A collection with the caller's permissions on it.
#[derive(Debug, Clone)]
pub struct CollectionInfo {
    pub collection: CollectionRow,
    pub permissions: CollectionPermissions,
}

fn info(collection: CollectionRow, role: Option<Role>) -> CollectionInfo {
    CollectionInfo {
        collection,
        permissions: CollectionPermissions::of(role),
    }
}

/// Shapes a collection after a change, with the caller's role recomputed.
async fn fresh_info(conn: &mut Conn, caller: &Caller, collection: CollectionRow) -> AppResult<CollectionInfo> {
    let access = ContentAccess::to_collection(conn, caller, &collection).await?;
    Ok(info(collection, access.role))
}

fn collection_title(title: &str) -> AppResult<String> {
    input::title("title", title, 1, 50)
}

fn description(text: &str) -> AppResult<String> {
    if text.chars().count() > 100 {
        return Err(AppError::invalid("description must be at most 100 characters long"));
    }
    Ok(text.to_owned())
}

/// The organization's collections the caller can see (`nested`: also those
/// inside other collections), in tree order.
pub async fn list_in_org(
    app: &App,
    caller: &Caller,
    org_id: &str,
    nested: bool,
    request: &PageRequest,
) -> AppResult<Page<CollectionInfo>> {
    let mut conn = app.db.read().await?;
    let org = access::org(&mut conn, caller, org_id).await?;
    let filter = CollectionFilter {
        top_level_only: !nested,
        granted_to: org.is_guest().then(|| caller.id().to_owned()),
        parent: None,
    };
    let page = collections::list(&mut conn, org_id, &filter, request).await?;
    let roles = OrgRoles::load(&mut conn, org_id, org.role, caller.id()).await?;
    Ok(Page {
        items: page
            .items
            .into_iter()
            .map(|c| {
                let role = roles.for_collection(&c);
                info(c, role)
            })
            .collect(),
        next: page.next,
        total: page.total,
    })
}

/// The input of collection creation.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewCollection {
    pub title: Option<String>,
    pub description: Option<String>,
    pub parent: Option<String>,
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewCollection) -> AppResult<CollectionInfo> {
    let title = collection_title(new.title.as_deref().unwrap_or("Untitled"))?;
    let description = new.description.as_deref().map(description).transpose()?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let org = access::org(&mut tx, caller, org_id).await?;
    access::destination(&mut tx, caller, &org, new.parent.as_deref()).await?;
    let collection = CollectionRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        position: quire_store::tree::next_position(&mut tx, org_id, new.parent.as_deref()).await?,
        parent_id: new.parent,
        title,
        description,
        default_level: DefaultLevel::Inherit,
        created_at: now,
        updated_at: now,
    };
    collections::insert(&mut tx, &collection).await?;
    let info = fresh_info(&mut tx, caller, collection).await?;
    tx.commit().await?;
    Ok(info)
}

pub async fn get(app: &App, caller: &Caller, collection_id: &str) -> AppResult<CollectionInfo> {
    let mut conn = app.db.read().await?;
    let (collection, access) = access::collection(&mut conn, caller, collection_id).await?;
    Ok(info(collection, access.role))
}

/// The input of a collection update; absent fields stay as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionUpdate {
    pub title: Option<String>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub description: Option<Option<String>>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_level: Option<Option<DefaultLevel>>,
}

pub async fn update(
    app: &App,
    caller: &Caller,
    collection_id: &str,
    update: CollectionUpdate,
) -> AppResult<CollectionInfo> {
    let mut tx = app.db.write().await?;
    let (mut collection, access) = access::collection(&mut tx, caller, collection_id).await?;
    access.require(Role::Admin, "change this collection")?;
    if let Some(title) = &update.title {
        collection.title = collection_title(title)?;
    }
    if let Some(text) = &update.description {
        collection.description = text.as_deref().map(description).transpose()?;
    }
    if let Some(level) = update.default_level {
        collection.default_level = level.unwrap_or(DefaultLevel::None);
    }
    collection.updated_at = app.now();
    collections::update(&mut tx, &collection).await?;
    let info = fresh_info(&mut tx, caller, collection).await?;
    tx.commit().await?;
    Ok(info)
}

/// Deletes the collection; its content moves up. A collection the caller
/// cannot see (or that does not exist) is left alone without complaint.
pub async fn delete(app: &App, caller: &Caller, collection_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let (collection, access) = match access::collection(&mut tx, caller, collection_id).await {
        Ok(found) => found,
        Err(err) if err.is_not_found() => return Ok(()),
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
    Ok(())
}

/// Moves a collection into another collection (never into itself or below)
/// and/or to another place among its siblings.
pub async fn relocate(app: &App, caller: &Caller, collection_id: &str, to: MoveInput) -> AppResult<CollectionInfo> {
    to.check()?;
    let mut tx = app.db.write().await?;
    let (mut collection, access) = access::collection(&mut tx, caller, collection_id).await?;
    access.require(Role::Admin, "move this collection")?;
    let org = access.member("move collections")?;
    let parent = to.parent.clone().unwrap_or(collection.parent_id.clone());
    if parent != collection.parent_id {
        if let Some(target) = &parent {
            let subtree = collections::subtree_ids(&mut tx, &collection.id).await?;
            if subtree.contains(target) {
                return Err(AppError::invalid(
                    "a collection cannot move into itself or one of its sub-collections",
                ));
            }
        }
        access::destination(&mut tx, caller, org, parent.as_deref()).await?;
        collection.parent_id = parent;
        collection.updated_at = app.now();
        collections::update(&mut tx, &collection).await?;
    }
    tree::place(
        &mut tx,
        &collection.organization_id,
        collection.parent_id.as_deref(),
        collection_node(&collection.id),
        to.position.as_ref(),
    )
    .await?;
    let moved = collections::get(&mut tx, &collection.id).await?;
    let info = fresh_info(&mut tx, caller, moved).await?;
    tx.commit().await?;
    Ok(info)
}

/// The input of a collection transfer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferInput {
    pub organization: String,
}

/// Moves a collection with everything in it to the root of another
/// organization. Grants inside the moved tree are dropped: they name users
/// and teams of the old organization.
pub async fn transfer(app: &App, caller: &Caller, collection_id: &str, to: TransferInput) -> AppResult<CollectionInfo> {
    let mut tx = app.db.write().await?;
    let (collection, access) = access::collection(&mut tx, caller, collection_id).await?;
    access.require(Role::Admin, "transfer this collection")?;
    let target = access::transfer_target(&mut tx, caller, &to.organization).await?;
    if target.org_id != collection.organization_id {
        let subtree = collections::subtree_ids(&mut tx, &collection.id).await?;
        let space_ids = spaces::ids_under(&mut tx, &subtree).await?;
        grants::remove_all_on(&mut tx, &subtree).await?;
        grants::remove_all_on(&mut tx, &space_ids).await?;
        collections::move_to_org(&mut tx, &subtree, &target.org_id).await?;
        spaces::move_to_org(&mut tx, &subtree, &target.org_id).await?;
        let mut moved = collections::get(&mut tx, &collection.id).await?;
        moved.parent_id = None;
        moved.updated_at = app.now();
        collections::update(&mut tx, &moved).await?;
        tree::place(&mut tx, &target.org_id, None, collection_node(&moved.id), None).await?;
    }
    let moved = collections::get(&mut tx, &collection.id).await?;
    let info = fresh_info(&mut tx, caller, moved).await?;
    tx.commit().await?;
    Ok(info)
}
