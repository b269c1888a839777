//! Reading content — of a space (its current revision), of a change request
//! (its head) or of any revision by id — with page bodies, files, links and
//! backlinks, and applying templates. Reading needs the read role.

use std::sync::Arc;

use quire_content::objects::FileObject;
use quire_core::Role;
use quire_engine::Snapshot;
use quire_engine::links::{Link, Target};
use quire_store::change_requests;
use quire_store::spaces::SpaceRow;
use serde::Deserialize;

use crate::access::ContentAccess;
use crate::change_requests::ChangeRequestInfo;
use crate::error::{AppError, AppResult, NotFoundExt};
use crate::{App, Caller, access};

/// Which content a read addresses.
#[derive(Debug, Clone)]
pub enum Source {
    /// The space's current revision.
    Main,
    /// A change request's head, by id or number.
    ChangeRequest(String),
    /// A revision by id.
    Revision(String),
}

/// The space (readable by the caller) and the snapshot `source` names.
pub async fn open(app: &App, caller: &Caller, space_id: &str, source: &Source) -> AppResult<(SpaceRow, Arc<Snapshot>)> {
    let (space, _, snapshot) = open_with_access(app, caller, space_id, source).await?;
    Ok((space, snapshot))
}

/// [`open`], with the caller's access to the space.
async fn open_with_access(
    app: &App,
    caller: &Caller,
    space_id: &str,
    source: &Source,
) -> AppResult<(SpaceRow, ContentAccess, Arc<Snapshot>)> {
    let mut conn = app.db.read().await?;
    let (space, access) = access::space_with_role(&mut conn, caller, space_id, Role::Read, "read its content").await?;
    let revision = match source {
        Source::Main => space.revision_id.clone(),
        Source::ChangeRequest(cr) => {
            change_requests::get(&mut conn, &space.id, cr)
                .await
                .or_not_found("change request", cr)?
                .revision_id
        }
        Source::Revision(id) => id.clone(),
    };
    drop(conn);
    let snapshot = app.engine.revisions.snapshot(&space.id, &revision).await?;
    Ok((space, access, snapshot))
}

/// A revision with, for merges, the change request it merged.
pub async fn revision(
    app: &App,
    caller: &Caller,
    space_id: &str,
    source: &Source,
) -> AppResult<(SpaceRow, Arc<Snapshot>, Option<ChangeRequestInfo>)> {
    let (space, access, snapshot) = open_with_access(app, caller, space_id, source).await?;
    let merged_from = match &snapshot.revision.merged_from {
        Some(cr) => {
            let mut conn = app.db.read().await?;
            let row = change_requests::get(&mut conn, &space.id, cr)
                .await
                .or_not_found("change request", cr)?;
            Some(crate::change_requests::info(&mut conn, caller, &access, row, &space.revision_id).await?)
        }
        None => None,
    };
    Ok((space, snapshot, merged_from))
}

/// The page `page_id` must exist in the snapshot.
pub fn require_page(snapshot: &Snapshot, page_id: &str) -> AppResult<()> {
    if snapshot.tree.pages.contains_key(page_id) {
        Ok(())
    } else {
        Err(AppError::not_found("page", page_id))
    }
}

/// The page at a slug path.
pub fn page_by_path(snapshot: &Snapshot, path: &str) -> AppResult<String> {
    snapshot
        .page_by_path(path)
        .ok_or_else(|| AppError::not_found("page at path", path))
}

/// The markdown of a page (`None` for pages without a body).
pub async fn page_markdown(app: &App, snapshot: &Snapshot, page_id: &str) -> AppResult<Option<Arc<str>>> {
    require_page(snapshot, page_id)?;
    match &snapshot.tree.pages[page_id].meta.document {
        Some(hash) => Ok(Some(app.engine.revisions.document(hash).await?)),
        None => Ok(None),
    }
}

/// A file of the snapshot.
pub fn file<'a>(snapshot: &'a Snapshot, file_id: &str) -> AppResult<&'a FileObject> {
    snapshot
        .file(file_id)
        .ok_or_else(|| AppError::not_found("file", file_id))
}

/// A file of the addressed content with its bytes.
pub async fn download(
    app: &App,
    caller: &Caller,
    space_id: &str,
    source: &Source,
    file_id: &str,
) -> AppResult<(FileObject, Vec<u8>)> {
    let (_, snapshot) = open(app, caller, space_id, source).await?;
    let file = file(&snapshot, file_id)?.clone();
    let bytes = app.engine.files.bytes(&file).await?;
    Ok((file, bytes))
}

/// Whether a link's target exists, as the links list filters it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkStatus {
    Ok,
    Broken,
    InApp,
}

impl LinkStatus {
    pub fn of(target: &Target) -> LinkStatus {
        match target {
            Target::Missing(_) => LinkStatus::Broken,
            Target::InApp(_) => LinkStatus::InApp,
            _ => LinkStatus::Ok,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LinkStatus::Ok => "ok",
            LinkStatus::Broken => "broken",
            LinkStatus::InApp => "in-app",
        }
    }
}

/// One target of a revision's links with every page linking to it.
#[derive(Debug, Clone)]
pub struct LinkGroup {
    pub target: Target,
    pub relation: &'static str,
    pub pages: Vec<String>,
}

/// The links of a revision (or of one page), grouped by target and
/// relation, with the counts of every group and of the broken ones.
#[derive(Debug, Clone)]
pub struct LinkReport {
    pub groups: Vec<LinkGroup>,
    pub total: usize,
    pub broken: usize,
}

/// The links of the addressed content (or of page `page` in it) whose
/// status is `status` (all when `None`). `app_url` is this server's public
/// URL: links under it count as in-app.
pub async fn links(
    app: &App,
    snapshot: &Snapshot,
    page: Option<&str>,
    status: Option<LinkStatus>,
    app_url: &str,
) -> AppResult<LinkReport> {
    if let Some(page) = page {
        require_page(snapshot, page)?;
    }
    let mut groups: Vec<LinkGroup> = Vec::new();
    for Link {
        source,
        relation,
        target,
    } in app.engine.links.of_revision(snapshot, app_url).await?
    {
        if page.is_some_and(|p| p != source) {
            continue;
        }
        match groups
            .iter_mut()
            .find(|g| g.target == target && g.relation == relation.as_str())
        {
            Some(group) => {
                if !group.pages.contains(&source) {
                    group.pages.push(source);
                }
            }
            None => groups.push(LinkGroup {
                target,
                relation: relation.as_str(),
                pages: vec![source],
            }),
        }
    }
    let broken = groups
        .iter()
        .filter(|g| LinkStatus::of(&g.target) == LinkStatus::Broken)
        .count();
    let total = groups.len();
    groups.retain(|g| status.is_none_or(|s| LinkStatus::of(&g.target) == s));
    Ok(LinkReport { groups, total, broken })
}

/// The pages of the snapshot that reference file `file_id`.
pub async fn backlinks(app: &App, snapshot: &Snapshot, file_id: &str, app_url: &str) -> AppResult<Vec<String>> {
    file(snapshot, file_id)?;
    let wanted = Target::File(file_id.to_owned());
    let mut pages: Vec<String> = Vec::new();
    for link in app.engine.links.of_revision(snapshot, app_url).await? {
        if link.target == wanted && !pages.contains(&link.source) {
            pages.push(link.source);
        }
    }
    Ok(pages)
}

/// Applies a built-in template to the space's content, or to one of its
/// change requests.
pub async fn apply_template(
    app: &App,
    caller: &Caller,
    space_id: &str,
    template: &str,
    change_request: Option<&str>,
) -> AppResult<()> {
    let changes = quire_engine::templates::template(template).ok_or_else(|| {
        AppError::invalid(format!(
            "unknown template {template:?}: use one of {}",
            quire_engine::templates::TEMPLATES.join(", ")
        ))
    })?;
    let mut conn = app.db.read().await?;
    let (space, _) = access::space_with_role(&mut conn, caller, space_id, Role::Edit, "apply templates").await?;
    match change_request {
        Some(cr) => {
            let cr = change_requests::get(&mut conn, &space.id, cr)
                .await
                .or_not_found("change request", cr)?;
            drop(conn);
            app.engine.edits.apply(&space, &cr, changes, caller.id()).await?;
        }
        None => {
            drop(conn);
            app.engine.edits.apply_to_space(&space, changes, caller.id()).await?;
        }
    }
    Ok(())
}
