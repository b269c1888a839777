//! Spaces: create and list in an organization, read, update, delete and
//! restore (within [`SPACE_RETENTION_DAYS`], after which the [`PurgeSpace`]
//! job removes them for good), duplicate, move and transfer.

use quire_core::{DefaultLevel, EditMode, Role, Visibility};
use quire_store::page::PageRequest;
use quire_store::spaces::{self, SpaceExtras, SpaceFilter, SpaceRow};
use quire_store::{Conn, Page, StoreError, content, grants};
use serde::{Deserialize, Serialize};

use crate::access::{self, ContentAccess, OrgRoles, SpacePermissions, openly_viewable};
use crate::error::{AppError, AppResult};
use crate::jobs::{self, Job, Registry};
use crate::tree::{self, MoveInput, Pointer, Position, space_node};
use crate::{App, Caller, input};

/// How long a deleted space can be restored before it is removed for good.
pub const SPACE_RETENTION_DAYS: i64 = 7;

const MAX_TITLE: usize = 50;
const MAX_EMOJI: usize = 50;

/// A space with what its views show: the caller's permissions, the
/// change request counters `(total, open, draft)` and the number of open
/// comments on the space itself.
#[derive(Debug, Clone)]
pub struct SpaceInfo {
    pub space: SpaceRow,
    pub permissions: SpacePermissions,
    pub change_requests: (i64, i64, i64),
    pub comments: i64,
    /// The space's Git Sync, when it has one.
    pub git_sync: Option<quire_store::git_syncs::GitSyncRow>,
}

impl SpaceInfo {
    fn of(space: SpaceRow, permissions: SpacePermissions, extras: SpaceExtras) -> SpaceInfo {
        SpaceInfo {
            space,
            permissions,
            change_requests: extras.change_requests,
            comments: extras.open_comments,
            git_sync: extras.git_sync,
        }
    }
}

/// Shapes one space for a caller holding `role` (`share_key` as given).
pub async fn info(
    conn: &mut Conn,
    space: SpaceRow,
    role: Option<Role>,
    share_key: Option<&str>,
) -> AppResult<SpaceInfo> {
    let extras = spaces::extras_of(conn, std::slice::from_ref(&space.id))
        .await?
        .remove(&space.id)
        .unwrap_or_default();
    let open = openly_viewable(&space, share_key);
    Ok(SpaceInfo::of(space, SpacePermissions::of(role, open), extras))
}

/// Shapes a list of spaces, loading their extras in one query.
pub async fn infos(
    conn: &mut Conn,
    rows: Vec<SpaceRow>,
    role_of: impl Fn(&SpaceRow) -> Option<Role>,
) -> AppResult<Vec<SpaceInfo>> {
    let ids: Vec<String> = rows.iter().map(|s| s.id.clone()).collect();
    let mut extras = spaces::extras_of(conn, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|space| {
            let permissions = SpacePermissions::of(role_of(&space), openly_viewable(&space, None));
            let extras = extras.remove(&space.id).unwrap_or_default();
            SpaceInfo::of(space, permissions, extras)
        })
        .collect())
}

/// Shapes a space after a change, with the caller's role recomputed.
async fn fresh_info(conn: &mut Conn, caller: &Caller, space: SpaceRow) -> AppResult<SpaceInfo> {
    let access = ContentAccess::to_space(conn, caller, &space).await?;
    info(conn, space, access.role, None).await
}

fn space_title(title: &str) -> AppResult<String> {
    input::title("title", title, 1, MAX_TITLE)
}

fn emoji(value: &str) -> AppResult<String> {
    if value.chars().count() > MAX_EMOJI || value.chars().any(char::is_whitespace) {
        return Err(AppError::invalid(format!(
            "emoji must be at most {MAX_EMOJI} characters, without spaces"
        )));
    }
    Ok(value.to_owned())
}

/// `in-collection` only makes sense for a space inside a collection.
fn check_visibility(visibility: Visibility, parent: Option<&str>) -> AppResult<()> {
    if visibility == Visibility::InCollection && parent.is_none() {
        return Err(AppError::invalid(
            "visibility in-collection is only for spaces inside a collection",
        ));
    }
    Ok(())
}

/// The organization's spaces the caller can see, in tree order.
pub async fn list_in_org(
    app: &App,
    caller: &Caller,
    org_id: &str,
    request: &PageRequest,
) -> AppResult<Page<SpaceInfo>> {
    let mut conn = app.db.read().await?;
    let org = access::org(&mut conn, caller, org_id).await?;
    let filter = SpaceFilter {
        parent: None,
        granted_to: org.is_guest().then(|| caller.id().to_owned()),
    };
    let page = spaces::list(&mut conn, org_id, &filter, request).await?;
    let roles = OrgRoles::load(&mut conn, org_id, org.role, caller.id()).await?;
    let items = infos(&mut conn, page.items, |s| roles.for_space(s)).await?;
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

/// The spaces of a collection the caller can see, in tree order.
pub async fn list_in_collection(
    app: &App,
    caller: &Caller,
    collection_id: &str,
    request: &PageRequest,
) -> AppResult<Page<SpaceInfo>> {
    let mut conn = app.db.read().await?;
    let (collection, access) = access::collection(&mut conn, caller, collection_id).await?;
    let org_role = access.org.as_ref().and_then(|o| o.role);
    let filter = SpaceFilter {
        parent: Some(collection.id.clone()),
        granted_to: None,
    };
    let page = spaces::list(&mut conn, &collection.organization_id, &filter, request).await?;
    let roles = OrgRoles::load(&mut conn, &collection.organization_id, org_role, caller.id()).await?;
    let items = infos(&mut conn, page.items, |s| roles.for_space(s)).await?;
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

/// The input of space creation.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSpace {
    pub title: Option<String>,
    pub emoji: Option<String>,
    pub parent: Option<String>,
    pub edit_mode: Option<EditMode>,
    pub visibility: Option<Visibility>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_level: Option<Option<DefaultLevel>>,
}

/// Creates a space (with its first, empty revision) in the organization or
/// in one of its collections.
pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewSpace) -> AppResult<SpaceInfo> {
    let now = app.now();
    let mut tx = app.db.write().await?;
    let space = create_in(&mut tx, caller, org_id, new, now).await?;
    let info = fresh_info(&mut tx, caller, space).await?;
    tx.commit().await?;
    Ok(info)
}

/// [`create`] inside the caller's transaction (sites create spaces for
/// their sections this way).
pub async fn create_in(
    tx: &mut Conn,
    caller: &Caller,
    org_id: &str,
    new: NewSpace,
    now: quire_core::Timestamp,
) -> AppResult<SpaceRow> {
    let title = space_title(new.title.as_deref().unwrap_or("Untitled"))?;
    let emoji = new.emoji.as_deref().map(emoji).transpose()?.unwrap_or_default();
    let visibility = new.visibility.unwrap_or(Visibility::Private);
    check_visibility(visibility, new.parent.as_deref())?;
    let org = access::org(tx, caller, org_id).await?;
    access::destination(tx, caller, &org, new.parent.as_deref()).await?;
    let position = quire_store::tree::next_position(tx, org_id, new.parent.as_deref()).await?;
    let space = SpaceRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        parent_id: new.parent,
        title,
        emoji,
        visibility,
        edit_mode: new.edit_mode.unwrap_or(EditMode::Live),
        default_level: new
            .default_level
            .map_or(DefaultLevel::Inherit, |d| d.unwrap_or(DefaultLevel::None)),
        revision_id: quire_core::id::new_id(),
        share_key: quire_core::id::random_alphanumeric(32),
        position,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    };
    spaces::insert(tx, &space).await?;
    content::insert_initial_revision(tx, &space.id, &space.revision_id, content::EMPTY_ROOT, caller.id(), now).await?;
    Ok(space)
}

/// A space the caller can see (with `share_key`, also one shared by link).
pub async fn get(app: &App, caller: &Caller, space_id: &str, share_key: Option<&str>) -> AppResult<SpaceInfo> {
    let mut conn = app.db.read().await?;
    let (space, access) = access::space(&mut conn, caller, space_id, share_key).await?;
    info(&mut conn, space, access.role, share_key).await
}

/// The input of a space update; absent fields stay as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpaceUpdate {
    pub title: Option<String>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub emoji: Option<Option<String>>,
    pub edit_mode: Option<EditMode>,
    pub visibility: Option<Visibility>,
    #[serde(default, deserialize_with = "quire_core::serde_util::nullable")]
    pub default_level: Option<Option<DefaultLevel>>,
}

pub async fn update(app: &App, caller: &Caller, space_id: &str, update: SpaceUpdate) -> AppResult<SpaceInfo> {
    let mut tx = app.db.write().await?;
    let (mut space, access) = access::space(&mut tx, caller, space_id, None).await?;
    access.require(Role::Admin, "change this space's settings")?;
    if let Some(title) = &update.title {
        space.title = space_title(title)?;
    }
    if let Some(value) = &update.emoji {
        space.emoji = value.as_deref().map(emoji).transpose()?.unwrap_or_default();
    }
    if let Some(mode) = update.edit_mode {
        space.edit_mode = mode;
    }
    if let Some(visibility) = update.visibility {
        check_visibility(visibility, space.parent_id.as_deref())?;
        space.visibility = visibility;
    }
    if let Some(level) = update.default_level {
        space.default_level = level.unwrap_or(DefaultLevel::None);
    }
    space.updated_at = app.now();
    spaces::update(&mut tx, &space).await?;
    let info = fresh_info(&mut tx, caller, space).await?;
    tx.commit().await?;
    Ok(info)
}

/// Soft-deletes the space and schedules its purge. A space that does not
/// exist, is already deleted, or that the caller cannot see is left alone
/// without complaint (nothing tells those apart).
pub async fn delete(app: &App, caller: &Caller, space_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let (mut space, access) = match access::space(&mut tx, caller, space_id, None).await {
        Ok(found) => found,
        Err(err) if err.is_not_found() => return Ok(()),
        Err(err) => return Err(err),
    };
    access.require(Role::Admin, "delete this space")?;
    let now = app.now();
    space.deleted_at = Some(now);
    space.updated_at = now;
    spaces::update(&mut tx, &space).await?;
    quire_store::sites::remove_space(&mut tx, &space.id).await?;
    let purge = PurgeSpace {
        space_id: space.id.clone(),
    };
    jobs::enqueue(
        &mut tx,
        &space.organization_id,
        &purge,
        now.plus_days(SPACE_RETENTION_DAYS),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Brings back a space deleted less than [`SPACE_RETENTION_DAYS`] ago.
pub async fn restore(app: &App, caller: &Caller, space_id: &str) -> AppResult<SpaceInfo> {
    let now = app.now();
    let gone = || {
        AppError::NotFound(format!(
            "space {space_id:?} not found (spaces are removed for good {SPACE_RETENTION_DAYS} days after deletion)"
        ))
    };
    let mut tx = app.db.write().await?;
    let (mut space, access) = access::space_in_any_state(&mut tx, caller, space_id, gone).await?;
    access.require(Role::Admin, "restore this space")?;
    let Some(deleted_at) = space.deleted_at else {
        return Err(AppError::invalid("this space is not deleted"));
    };
    if deleted_at.plus_days(SPACE_RETENTION_DAYS) <= now {
        return Err(gone());
    }
    space.deleted_at = None;
    space.updated_at = now;
    spaces::update(&mut tx, &space).await?;
    let info = info(&mut tx, space, access.role, None).await?;
    tx.commit().await?;
    Ok(info)
}

/// Copies a space, content included, next to the original.
pub async fn duplicate(app: &App, caller: &Caller, space_id: &str) -> AppResult<SpaceInfo> {
    let now = app.now();
    let mut tx = app.db.write().await?;
    let (original, access) = access::space(&mut tx, caller, space_id, None).await?;
    access.require(Role::Read, "duplicate this space")?;
    let org = access.member("duplicate spaces")?;
    access::destination(&mut tx, caller, org, original.parent_id.as_deref()).await?;
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
    // The copy's search index is built by a job queued with it.
    let reindex = crate::search::ReindexSpace {
        space_id: copy.id.clone(),
    };
    jobs::enqueue(&mut tx, &copy.organization_id, &reindex, now, now).await?;
    let after = Position {
        before: None,
        after: Some(Pointer::Space {
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
    let moved = spaces::get_any(&mut tx, &copy.id).await?;
    let info = fresh_info(&mut tx, caller, moved).await?;
    tx.commit().await?;
    Ok(info)
}

/// Moves a space to another collection of its organization and/or to
/// another place among its siblings.
pub async fn relocate(app: &App, caller: &Caller, space_id: &str, to: MoveInput) -> AppResult<SpaceInfo> {
    to.check()?;
    let mut tx = app.db.write().await?;
    let (mut space, access) = access::space(&mut tx, caller, space_id, None).await?;
    access.require(Role::Admin, "move this space")?;
    let org = access.member("move spaces")?;
    let parent = to.parent.clone().unwrap_or(space.parent_id.clone());
    if parent != space.parent_id {
        access::destination(&mut tx, caller, org, parent.as_deref()).await?;
        check_visibility(space.visibility, parent.as_deref())?;
        space.parent_id = parent;
        space.updated_at = app.now();
        spaces::update(&mut tx, &space).await?;
    }
    tree::place(
        &mut tx,
        &space.organization_id,
        space.parent_id.as_deref(),
        space_node(&space.id),
        to.position.as_ref(),
    )
    .await?;
    let moved = spaces::get_any(&mut tx, &space.id).await?;
    let info = fresh_info(&mut tx, caller, moved).await?;
    tx.commit().await?;
    Ok(info)
}

/// The input of a space transfer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferInput {
    pub organization: String,
    pub collection: Option<String>,
}

/// Moves a space to another organization (and collection). Grants do not
/// travel: they name users and teams of the old organization.
pub async fn transfer(app: &App, caller: &Caller, space_id: &str, to: TransferInput) -> AppResult<SpaceInfo> {
    let mut tx = app.db.write().await?;
    let (mut space, access) = access::space(&mut tx, caller, space_id, None).await?;
    access.require(Role::Admin, "transfer this space")?;
    let target = access::transfer_target(&mut tx, caller, &to.organization).await?;
    access::destination(&mut tx, caller, &target, to.collection.as_deref()).await?;
    check_visibility(space.visibility, to.collection.as_deref())?;
    if space.organization_id != target.org_id {
        grants::remove_all_on(&mut tx, std::slice::from_ref(&space.id)).await?;
    }
    space.organization_id = target.org_id.clone();
    space.parent_id = to.collection;
    space.updated_at = app.now();
    spaces::update(&mut tx, &space).await?;
    tree::place(
        &mut tx,
        &space.organization_id,
        space.parent_id.as_deref(),
        space_node(&space.id),
        None,
    )
    .await?;
    let moved = spaces::get_any(&mut tx, &space.id).await?;
    let info = fresh_info(&mut tx, caller, moved).await?;
    tx.commit().await?;
    Ok(info)
}

/// Removes a deleted space for good once its restore window has passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurgeSpace {
    pub space_id: String,
}

impl Job for PurgeSpace {
    const KIND: &'static str = "purge_space";

    fn audit_target(&self) -> Option<quire_store::audit::Target> {
        Some(quire_store::audit::Target::new("space", &self.space_id))
    }

    /// A space restored (or deleted again later) in the meantime is left alone.
    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        let now = app.now();
        let mut tx = app.db.write().await?;
        let space = match spaces::get_any(&mut tx, &self.space_id).await {
            Ok(space) => space,
            Err(StoreError::NotFound) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        if space
            .deleted_at
            .is_some_and(|at| at.plus_days(SPACE_RETENTION_DAYS) <= now)
        {
            spaces::purge(&mut tx, &self.space_id).await?;
            tx.commit().await?;
            tracing::info!(space_id = self.space_id, "deleted space purged");
        }
        Ok(None)
    }
}

/// The job types of this area.
pub fn register_jobs(registry: &mut Registry) {
    registry.register::<PurgeSpace>();
}
