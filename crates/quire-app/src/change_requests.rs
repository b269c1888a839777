//! Change requests: open, list, read, update subject and status, write
//! content, update from the space and merge into it. The content work itself
//! is the engine's; this module decides who may do it.

use quire_core::events::EventType;
use quire_core::{ChangeRequestStatus, Role};
use std::collections::HashMap;

use quire_engine::{AppliedChange, Change, PageConflict, Resolution};
use quire_store::change_requests::{self, ChangeRequestFilter, ChangeRequestRow};
use quire_store::page::PageRequest;
use quire_store::spaces::SpaceRow;
use quire_store::users::{self, UserRow};
use quire_store::{Conn, Page, StoreError, comments, webhooks};
use serde::Deserialize;

use crate::access::ContentAccess;
use crate::accounts::Viewer;
use crate::error::{AppError, AppResult};
use crate::{App, Caller, access};

const MAX_SUBJECT: usize = 100;

/// A change request with the users its views name and its number of open
/// comments.
#[derive(Debug, Clone)]
pub struct ChangeRequestInfo {
    pub change_request: ChangeRequestRow,
    pub created_by: UserRow,
    pub merged_by: Option<UserRow>,
    /// The space moved on since the change request was last updated.
    pub outdated: bool,
    pub comments: i64,
    /// Whose email (of the users above) the caller sees.
    pub viewer: Viewer,
}

/// The users a change request names.
fn named(cr: &ChangeRequestRow) -> impl Iterator<Item = &str> {
    std::iter::once(cr.created_by.as_str()).chain(cr.merged_by.as_deref())
}

/// Shapes a change request for a caller with `access` to its space;
/// `space_revision` is the space's current revision.
pub(crate) async fn info(
    conn: &mut Conn,
    caller: &Caller,
    access: &ContentAccess,
    cr: ChangeRequestRow,
    space_revision: &str,
) -> AppResult<ChangeRequestInfo> {
    let mut shaped = infos(conn, caller, access, vec![cr], space_revision).await?;
    shaped
        .pop()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a change request was shaped into nothing")))
}

/// Shapes change requests of one space in three queries whatever their
/// number: their open comments, the users they name, and (for organization
/// admins) which of those are still members.
async fn infos(
    conn: &mut Conn,
    caller: &Caller,
    access: &ContentAccess,
    crs: Vec<ChangeRequestRow>,
    space_revision: &str,
) -> AppResult<Vec<ChangeRequestInfo>> {
    let ids: Vec<String> = crs.iter().map(|cr| cr.id.clone()).collect();
    let comments = comments::open_in_change_requests(conn, &ids).await?;
    let mut user_ids: Vec<String> = crs.iter().flat_map(named).map(str::to_owned).collect();
    user_ids.sort_unstable();
    user_ids.dedup();
    let users = users::get_many(conn, &user_ids).await?;
    let viewer = Viewer::of_authors(conn, caller, access.org.as_ref(), user_ids.iter().map(String::as_str)).await?;
    let user = |id: &str| -> AppResult<UserRow> {
        users
            .get(id)
            .cloned()
            .ok_or_else(|| AppError::from(StoreError::NotFound))
    };
    crs.into_iter()
        .map(|cr| {
            Ok(ChangeRequestInfo {
                outdated: cr.is_active() && cr.revision_merged_ancestor != space_revision,
                created_by: user(&cr.created_by)?,
                merged_by: cr.merged_by.as_deref().map(user).transpose()?,
                comments: comments.get(&cr.id).copied().unwrap_or_default(),
                viewer: viewer.clone(),
                change_request: cr,
            })
        })
        .collect()
}

/// A change request subject, checked and trimmed.
pub fn subject(text: &str) -> AppResult<String> {
    if text.chars().count() > MAX_SUBJECT {
        return Err(AppError::invalid(format!(
            "subject must be at most {MAX_SUBJECT} characters"
        )));
    }
    Ok(text.trim().to_owned())
}

/// Opens a change request on the space's current content.
pub async fn open(app: &App, caller: &Caller, space_id: &str, subject_text: &str) -> AppResult<ChangeRequestInfo> {
    let subject = subject(subject_text)?;
    let mut conn = app.db.read().await?;
    let (space, access) =
        access::space_with_role(&mut conn, caller, space_id, Role::Edit, "open change requests here").await?;
    drop(conn);
    let cr = app.engine.change_requests.open(&space, &subject, caller.id()).await?;
    let mut conn = app.db.read().await?;
    info(&mut conn, caller, &access, cr, &space.revision_id).await
}

/// Which change requests a list shows, and in which order.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub status: ChangeRequestStatus,
    pub creator: Option<String>,
    /// Newest created first; else most recently updated first.
    pub by_creation: bool,
}

pub async fn list(
    app: &App,
    caller: &Caller,
    space_id: &str,
    filter: ListFilter,
    request: &PageRequest,
) -> AppResult<Page<ChangeRequestInfo>> {
    let mut conn = app.db.read().await?;
    let (space, access) =
        access::space_with_role(&mut conn, caller, space_id, Role::Read, "see change requests").await?;
    let store_filter = ChangeRequestFilter {
        status: Some(filter.status),
        creator: filter.creator,
    };
    let page = change_requests::list(&mut conn, &space.id, &store_filter, filter.by_creation, request).await?;
    let items = infos(&mut conn, caller, &access, page.items, &space.revision_id).await?;
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

pub async fn get(app: &App, caller: &Caller, space_id: &str, change_request: &str) -> AppResult<ChangeRequestInfo> {
    let mut conn = app.db.read().await?;
    let (space, access, cr) = access::change_request(
        &mut conn,
        caller,
        space_id,
        change_request,
        Role::Read,
        "see change requests",
    )
    .await?;
    info(&mut conn, caller, &access, cr, &space.revision_id).await
}

/// The input of a change request update: a new subject and/or status.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeRequestUpdate {
    pub subject: Option<String>,
    pub status: Option<ChangeRequestStatus>,
}

pub async fn update(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    update: ChangeRequestUpdate,
) -> AppResult<ChangeRequestInfo> {
    let mut tx = app.db.write().await?;
    let (space, access, current) = access::change_request(
        &mut tx,
        caller,
        space_id,
        change_request,
        Role::Edit,
        "change change requests",
    )
    .await?;
    if current.status == ChangeRequestStatus::Merged {
        return Err(AppError::conflict("a merged change request cannot change"));
    }
    let mut updated = current.clone();
    if let Some(text) = &update.subject {
        updated.subject = subject(text)?;
    }
    if let Some(status) = update.status {
        if status == ChangeRequestStatus::Merged {
            return Err(AppError::invalid("status merged is set by merging, not by an update"));
        }
        updated.status = status;
    }
    updated.updated_at = app.now();
    if !change_requests::update_if_head(&mut tx, &updated, &current.revision_id).await? {
        return Err(AppError::conflict(
            "the change request changed meanwhile: read it again and retry",
        ));
    }
    let kind = if updated.status == ChangeRequestStatus::Archived && current.status != ChangeRequestStatus::Archived {
        EventType::ChangeRequestClosed
    } else {
        EventType::ChangeRequestUpdated
    };
    let by = [serde_json::json!({ "object": "user", "id": caller.id() })];
    let data = change_requests::event_data(&updated, &by);
    webhooks::emit(&mut tx, webhooks::Origin::Space(&space.id), kind, data, app.now()).await?;
    let info = info(&mut tx, caller, &access, updated, &space.revision_id).await?;
    tx.commit().await?;
    Ok(info)
}

/// The space (with the caller's access) and change request for an
/// operation needing `role`, read on a connection of its own (released
/// before the engine's transaction).
async fn load(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    role: Role,
    action: &str,
) -> AppResult<(SpaceRow, ContentAccess, ChangeRequestRow)> {
    let mut conn = app.db.read().await?;
    access::change_request(&mut conn, caller, space_id, change_request, role, action).await
}

/// Merges the change request into its space; returns the new revision.
pub async fn merge(app: &App, caller: &Caller, space_id: &str, change_request: &str) -> AppResult<String> {
    let (space, _, cr) = load(
        app,
        caller,
        space_id,
        change_request,
        Role::Review,
        "merge change requests",
    )
    .await?;
    Ok(app.engine.merges.merge(&space, &cr, caller.id()).await?.revision)
}

/// How one conflicting page is settled, as a request gives it: keep a
/// side, or a markdown text.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolutionInput {
    pub page: String,
    /// `mine` (the change request's text) or `theirs` (the space's).
    pub keep: Option<String>,
    pub markdown: Option<String>,
}

fn resolutions(inputs: Vec<ResolutionInput>) -> AppResult<HashMap<String, Resolution>> {
    let mut out = HashMap::new();
    for input in inputs {
        let resolution = match (input.keep.as_deref(), input.markdown) {
            (Some("mine"), None) => Resolution::Mine,
            (Some("theirs"), None) => Resolution::Theirs,
            (None, Some(markdown)) => {
                if markdown.len() > quire_engine::changes::MAX_PAGE_MARKDOWN_BYTES {
                    return Err(AppError::TooLarge(format!(
                        "the resolution of page {:?} is larger than a page may be",
                        input.page
                    )));
                }
                Resolution::Markdown(markdown)
            }
            _ => {
                return Err(AppError::invalid(format!(
                    "the resolution of page {:?} needs either keep (\"mine\" or \"theirs\") or markdown",
                    input.page
                )));
            }
        };
        if out.insert(input.page.clone(), resolution).is_some() {
            return Err(AppError::invalid(format!("page {:?} is resolved twice", input.page)));
        }
    }
    Ok(out)
}

/// Brings the change request up to date with its space, settling the
/// conflicting pages `resolutions` name; returns its head.
pub async fn update_from_space(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    resolutions: Vec<ResolutionInput>,
) -> AppResult<String> {
    let resolutions = self::resolutions(resolutions)?;
    let (space, _, cr) = load(
        app,
        caller,
        space_id,
        change_request,
        Role::Edit,
        "update change requests",
    )
    .await?;
    Ok(app
        .engine
        .merges
        .update_resolving(&space, &cr, caller.id(), &resolutions)
        .await?
        .revision)
}

/// The pages that keep the change request from merging, with the text each
/// started from and both sides' texts.
pub async fn conflicts(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
) -> AppResult<Vec<PageConflict>> {
    let (space, _, cr) = load(app, caller, space_id, change_request, Role::Read, "see change requests").await?;
    Ok(app.engine.merges.conflicts(&space, &cr).await?)
}

/// Applies a batch of changes to the change request's content.
pub async fn write_content(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    changes: Vec<Change>,
) -> AppResult<(ChangeRequestInfo, Vec<AppliedChange>)> {
    let (space, access, cr) = load(app, caller, space_id, change_request, Role::Edit, "edit content").await?;
    let (updated, applied) = app
        .engine
        .edits
        .apply_to_latest(&space, &cr, changes, caller.id())
        .await?;
    let mut conn = app.db.read().await?;
    Ok((
        info(&mut conn, caller, &access, updated, &space.revision_id).await?,
        applied,
    ))
}

/// Where a page of a change request stands for co-editing: its space and
/// the change request (the caller may edit it), and the hash of the page's
/// document at the change request's head.
pub struct SharedPage {
    pub space: SpaceRow,
    pub change_request: ChangeRequestRow,
    pub document_hash: Option<String>,
    pub may_edit: bool,
}

/// Opens a page of a change request for co-editing: the caller needs to read
/// it (and, to change it, to edit); the change request must be open.
pub async fn shared_page(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    page_id: &str,
) -> AppResult<SharedPage> {
    let (space, access, cr) = load(app, caller, space_id, change_request, Role::Read, "read content").await?;
    if !cr.is_active() {
        return Err(AppError::Conflict(format!(
            "this change request is {}; its pages cannot be edited",
            cr.status
        )));
    }
    let document_hash = page_document_hash(app, &space, &cr.revision_id, page_id).await?;
    Ok(SharedPage {
        may_edit: access.has(Role::Edit),
        space,
        change_request: cr,
        document_hash,
    })
}

/// What a co-editor of a change request may do now (asked again while
/// their socket is open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoEditing {
    /// They may no longer read it.
    Nothing,
    Read,
    Edit,
    /// It was merged or closed: nobody edits it any more.
    Ended(ChangeRequestStatus),
}

pub async fn co_editing_rights(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
) -> AppResult<CoEditing> {
    match load(app, caller, space_id, change_request, Role::Read, "read content").await {
        Ok((_, _, cr)) if !cr.is_active() => Ok(CoEditing::Ended(cr.status)),
        Ok((_, access, _)) if access.has(Role::Edit) => Ok(CoEditing::Edit),
        Ok(_) => Ok(CoEditing::Read),
        Err(AppError::NotFound(_) | AppError::Forbidden(_)) => Ok(CoEditing::Nothing),
        Err(e) => Err(e),
    }
}

/// The hash of a page's document at a revision of a space (404 when the
/// revision has no such page).
pub async fn page_document_hash(
    app: &App,
    space: &SpaceRow,
    revision: &str,
    page_id: &str,
) -> AppResult<Option<String>> {
    let snapshot = app.engine.revisions.snapshot(&space.id, revision).await?;
    crate::content::require_page(&snapshot, page_id)?;
    Ok(snapshot.tree.pages.get(page_id).and_then(|p| p.meta.document.clone()))
}

/// Writes a co-edited page's document into the change request if its
/// content still stands at `expected` (a co-editing save never overwrites
/// an edit made meanwhile); answers the new revision, or `None` when the
/// content moved on (the shared document must take that change in first).
pub async fn write_shared_page(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    page_id: &str,
    expected: &str,
    document: serde_json::Value,
) -> AppResult<Option<String>> {
    let (space, _, cr) = load(app, caller, space_id, change_request, Role::Edit, "edit content").await?;
    if cr.revision_id != expected {
        return Ok(None);
    }
    let change = Change::UpdatePage {
        page: page_id.to_owned(),
        fields: Default::default(),
        document: Some(quire_engine::DocumentInput::Json { document }),
        into: None,
        at: None,
    };
    match app.engine.edits.apply(&space, &cr, vec![change], caller.id()).await {
        Ok((updated, _)) => Ok(Some(updated.revision_id)),
        Err(quire_engine::EngineError::Conflict(message)) => {
            let mut conn = app.db.read().await?;
            let now = change_requests::get(&mut conn, &cr.space_id, &cr.id).await?;
            if now.revision_id != cr.revision_id {
                Ok(None)
            } else {
                Err(AppError::Conflict(message))
            }
        }
        Err(e) => Err(e.into()),
    }
}
