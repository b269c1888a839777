//! Discussions: comments on a space or on one of its change requests, the
//! replies under them, emoji reactions on either, resolving and reopening,
//! and the members who took part.
//!
//! Rules (decided by [`access`], see [`CommentPermissions`]): reading needs
//! the read role on the space; posting, replying, reacting and resolving need
//! the comment role; authors edit what they wrote; authors and space admins
//! delete it. A space comment belongs to the space itself; a change request's
//! comments count on that change request only.
//!
//! Bodies are markdown, accepted as `{markdown}` or as the official JSON
//! document (converted to markdown), and answered as either. Mentions are
//! kept exactly as written: a user is referred to as `@<userId>` or by a
//! link to the user (`[Ada](<api>/v1/users/<userId>)`); Quire neither
//! rewrites nor resolves them.
//!
//! A comment may name the page (and a node in it) it is about. It records
//! the revision it was posted on and the page's document at that time; its
//! `target.page` describes the page as the discussion's content has it now
//! (the space's current revision, or the change request's head) and is
//! `outdated` once that page's document differs or the page is gone.

mod routes;
mod views;
pub use routes::router;
mod input;
pub mod reviews;
mod shape;

use quire_core::{Role, Timestamp};
use quire_store::change_requests::ChangeRequestRow;
use quire_store::comments::{self, CommentFilter, CommentRow, ReplyRow};
use quire_store::page::PageRequest;
use quire_store::spaces::SpaceRow;
use quire_store::{Conn, Page, members};

pub use self::input::{CommentUpdate, ListFilter, MAX_BODY_BYTES, NewComment, NewReply, StatusFilter, TableCellInput};
use self::input::{anchor_id, body_markdown, reaction_change, table_cell};
pub use self::shape::{CommentInfo, PageNow, PageTarget, Reaction, Replier, ReplyInfo};
use self::shape::{attach_pages, comment_infos, one_comment, one_reply, reply_infos};
use quire_app::access::{self, CommentPermissions, ContentAccess};
use quire_app::accounts::Viewer;
use quire_app::error::{AppError, AppResult, NotFoundExt};
use quire_app::members::MemberInfo;
use quire_app::{App, Caller};

/// Where a discussion is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discussion {
    /// The space's own comments.
    Space,
    /// A change request's comments; the change request by id or number.
    ChangeRequest(String),
}

/// The space (and change request) of a discussion, with the caller's access.
struct Scope {
    space: SpaceRow,
    access: ContentAccess,
    change_request: Option<ChangeRequestRow>,
}

impl Scope {
    /// The discussion, for a caller holding at least `role` on its space.
    async fn load(
        conn: &mut Conn,
        caller: &Caller,
        space_id: &str,
        discussion: &Discussion,
        role: Role,
        action: &str,
    ) -> AppResult<Scope> {
        let (space, access) = access::space_with_role(conn, caller, space_id, role, action).await?;
        let change_request = match discussion {
            Discussion::Space => None,
            Discussion::ChangeRequest(cr) => Some(access::change_request_in(conn, &space, cr).await?),
        };
        Ok(Scope {
            space,
            access,
            change_request,
        })
    }

    /// Reading a discussion needs the read role.
    async fn readable(conn: &mut Conn, caller: &Caller, space_id: &str, discussion: &Discussion) -> AppResult<Scope> {
        Scope::load(conn, caller, space_id, discussion, Role::Read, "see its discussions").await
    }

    fn change_request_id(&self) -> Option<&str> {
        self.change_request.as_ref().map(|cr| cr.id.as_str())
    }

    /// The revision the discussion is about now: the change request's head,
    /// or the space's current revision.
    fn revision(&self) -> &str {
        match &self.change_request {
            Some(cr) => &cr.revision_id,
            None => &self.space.revision_id,
        }
    }

    fn permissions(&self, caller: &Caller, author: &str) -> CommentPermissions {
        CommentPermissions::of(self.access.role, caller.id(), author)
    }

    async fn comment(&self, conn: &mut Conn, comment_id: &str) -> AppResult<CommentRow> {
        comments::get_comment(conn, &self.space.id, self.change_request_id(), comment_id)
            .await
            .or_not_found("comment", comment_id)
    }
}

/// A lookup whose "not found" (or "not visible") means "nothing to delete":
/// deletes answer alike whether or not their target existed.
fn found_or_gone<T>(result: AppResult<T>) -> AppResult<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(err),
    }
}

// ---------------------------------------------------------------------------
// Comments
// ---------------------------------------------------------------------------

/// The comments of a discussion, by posting time in the page's direction.
pub async fn list(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    filter: ListFilter,
    request: &PageRequest,
) -> AppResult<Page<CommentInfo>> {
    filter.check()?;
    let mut conn = app.db.read().await?;
    let scope = Scope::readable(&mut conn, caller, space_id, discussion).await?;
    let store_filter = CommentFilter {
        resolved: match filter.status {
            StatusFilter::All => None,
            StatusFilter::Open => Some(false),
            StatusFilter::Resolved => Some(true),
        },
        page_id: filter.target_page,
        authors: filter.authors,
    };
    let page = comments::list_comments(
        &mut conn,
        &scope.space.id,
        scope.change_request_id(),
        &store_filter,
        request,
    )
    .await?;
    let mut items = comment_infos(&mut conn, &scope, caller, page.items).await?;
    drop(conn);
    attach_pages(app, &scope, &mut items).await?;
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

pub async fn get(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
) -> AppResult<CommentInfo> {
    let mut conn = app.db.read().await?;
    let scope = Scope::readable(&mut conn, caller, space_id, discussion).await?;
    let comment = scope.comment(&mut conn, comment_id).await?;
    let mut info = one_comment(&mut conn, &scope, caller, comment).await?;
    drop(conn);
    attach_pages(app, &scope, std::slice::from_mut(&mut info)).await?;
    Ok(info)
}

/// Posts a comment, optionally on a page of the discussion's content (and a
/// node of it).
pub async fn post(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    new: NewComment,
) -> AppResult<CommentInfo> {
    const ACTION: &str = "comment here";
    let body = body_markdown(new.body)?;
    let page = new.page.as_deref().map(|p| anchor_id("page", p)).transpose()?;
    let node = new.node.as_deref().map(|n| anchor_id("node", n)).transpose()?;
    if node.is_some() && page.is_none() {
        return Err(AppError::invalid("a comment on a node names its page too (page)"));
    }
    let table_cell = new.table_cell.map(table_cell).transpose()?;

    // The page must be in the content the discussion is about; the comment
    // records that content's revision and the page's document.
    let mut anchored = None;
    if let Some(page) = &page {
        let mut conn = app.db.read().await?;
        let scope = Scope::load(&mut conn, caller, space_id, discussion, Role::Comment, ACTION).await?;
        drop(conn);
        let snapshot = app.engine.revisions.snapshot(&scope.space.id, scope.revision()).await?;
        let Some(found) = snapshot.tree.pages.get(page) else {
            return Err(AppError::invalid(format!(
                "page {page:?} is not in the content this discussion is about"
            )));
        };
        anchored = Some((snapshot.revision.id.clone(), found.meta.document.clone()));
    }

    let mut tx = app.db.write().await?;
    let scope = Scope::load(&mut tx, caller, space_id, discussion, Role::Comment, ACTION).await?;
    let (revision_id, page_document) = anchored.unwrap_or_else(|| (scope.revision().to_owned(), None));
    let row = CommentRow {
        id: quire_core::id::new_id(),
        space_id: scope.space.id.clone(),
        change_request_id: scope.change_request_id().map(str::to_owned),
        posted_by: caller.id().to_owned(),
        posted_at: app.now(),
        edited_at: None,
        body,
        revision_id,
        page_id: page,
        page_document,
        node_id: node,
        table_cell,
        resolved_at: None,
        resolved_by: None,
    };
    comments::insert_comment(&mut tx, &row).await?;
    let mut info = one_comment(&mut tx, &scope, caller, row).await?;
    tx.commit().await?;
    attach_pages(app, &scope, std::slice::from_mut(&mut info)).await?;
    Ok(info)
}

/// Sets (`true`) or clears the comment's resolution; resolving a resolved
/// comment keeps who resolved it and when.
fn resolve(comment: &mut CommentRow, resolved: bool, caller: &Caller, now: Timestamp) {
    if !resolved {
        comment.resolved_at = None;
        comment.resolved_by = None;
    } else if !comment.is_resolved() {
        comment.resolved_at = Some(now);
        comment.resolved_by = Some(caller.id().to_owned());
    }
}

/// Applies the caller's reaction changes to a comment or reply.
async fn react(
    conn: &mut Conn,
    permissions: &CommentPermissions,
    comment_id: &str,
    target_id: &str,
    caller: &Caller,
    (added, removed): (Vec<String>, Vec<String>),
    now: Timestamp,
) -> AppResult<()> {
    if added.is_empty() && removed.is_empty() {
        return Ok(());
    }
    permissions.require_reply("react")?;
    comments::add_reactions(conn, comment_id, target_id, caller.id(), &added, now).await?;
    comments::remove_reactions(conn, target_id, caller.id(), &removed).await?;
    Ok(())
}

/// Changes the comment's body (its author), resolves or reopens it, and
/// adds or removes the caller's reactions; all or nothing.
pub async fn update(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
    update: CommentUpdate,
) -> AppResult<CommentInfo> {
    let reactions = reaction_change(&update)?;
    let body = update.body.map(body_markdown).transpose()?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let scope = Scope::readable(&mut tx, caller, space_id, discussion).await?;
    let mut comment = scope.comment(&mut tx, comment_id).await?;
    let permissions = scope.permissions(caller, &comment.posted_by);
    let before = comment.clone();
    if let Some(body) = body {
        permissions.require_edit()?;
        comment.body = body;
        comment.edited_at = Some(now);
    }
    if let Some(resolved) = update.resolved {
        permissions.require_reply("resolve or reopen comments")?;
        resolve(&mut comment, resolved, caller, now);
    }
    if comment != before {
        comments::update_comment(&mut tx, &comment).await?;
    }
    react(&mut tx, &permissions, &comment.id, &comment.id, caller, reactions, now).await?;
    let mut info = one_comment(&mut tx, &scope, caller, comment).await?;
    tx.commit().await?;
    attach_pages(app, &scope, std::slice::from_mut(&mut info)).await?;
    Ok(info)
}

/// Deletes the comment with its replies and reactions. A comment that does
/// not exist, or that the caller cannot see, is left alone without complaint.
pub async fn delete(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let Some(scope) = found_or_gone(Scope::readable(&mut tx, caller, space_id, discussion).await)? else {
        return Ok(());
    };
    let Some(comment) = found_or_gone(scope.comment(&mut tx, comment_id).await)? else {
        return Ok(());
    };
    scope.permissions(caller, &comment.posted_by).require_delete()?;
    comments::delete_comment(&mut tx, &comment.id).await?;
    tx.commit().await?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------

/// The replies to a comment, oldest first.
pub async fn list_replies(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
    request: &PageRequest,
) -> AppResult<Page<ReplyInfo>> {
    let mut conn = app.db.read().await?;
    let scope = Scope::readable(&mut conn, caller, space_id, discussion).await?;
    let comment = scope.comment(&mut conn, comment_id).await?;
    let page = comments::list_replies(&mut conn, &comment.id, request).await?;
    let items = reply_infos(&mut conn, &scope, caller, page.items).await?;
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}

async fn load_reply(conn: &mut Conn, comment: &CommentRow, reply_id: &str) -> AppResult<ReplyRow> {
    comments::get_reply(conn, &comment.id, reply_id)
        .await
        .or_not_found("comment reply", reply_id)
}

pub async fn get_reply(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
    reply_id: &str,
) -> AppResult<ReplyInfo> {
    let mut conn = app.db.read().await?;
    let scope = Scope::readable(&mut conn, caller, space_id, discussion).await?;
    let comment = scope.comment(&mut conn, comment_id).await?;
    let reply = load_reply(&mut conn, &comment, reply_id).await?;
    one_reply(&mut conn, &scope, caller, reply).await
}

pub async fn post_reply(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
    new: NewReply,
) -> AppResult<ReplyInfo> {
    let body = body_markdown(new.body)?;
    let mut tx = app.db.write().await?;
    let scope = Scope::load(
        &mut tx,
        caller,
        space_id,
        discussion,
        Role::Comment,
        "reply to comments",
    )
    .await?;
    let comment = scope.comment(&mut tx, comment_id).await?;
    let reply = ReplyRow {
        id: quire_core::id::new_id(),
        comment_id: comment.id,
        posted_by: caller.id().to_owned(),
        posted_at: app.now(),
        edited_at: None,
        body,
    };
    comments::insert_reply(&mut tx, &reply).await?;
    let info = one_reply(&mut tx, &scope, caller, reply).await?;
    tx.commit().await?;
    Ok(info)
}

/// Changes the reply's body (its author), adds or removes the caller's
/// reactions, and with `resolved` resolves or reopens its comment.
pub async fn update_reply(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
    reply_id: &str,
    update: CommentUpdate,
) -> AppResult<ReplyInfo> {
    let reactions = reaction_change(&update)?;
    let body = update.body.map(body_markdown).transpose()?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let scope = Scope::readable(&mut tx, caller, space_id, discussion).await?;
    let mut comment = scope.comment(&mut tx, comment_id).await?;
    let mut reply = load_reply(&mut tx, &comment, reply_id).await?;
    let permissions = scope.permissions(caller, &reply.posted_by);
    if let Some(body) = body {
        permissions.require_edit()?;
        reply.body = body;
        reply.edited_at = Some(now);
        comments::update_reply(&mut tx, &reply).await?;
    }
    if let Some(resolved) = update.resolved {
        permissions.require_reply("resolve or reopen comments")?;
        let before = comment.clone();
        resolve(&mut comment, resolved, caller, now);
        if comment != before {
            comments::update_comment(&mut tx, &comment).await?;
        }
    }
    react(&mut tx, &permissions, &comment.id, &reply.id, caller, reactions, now).await?;
    let info = one_reply(&mut tx, &scope, caller, reply).await?;
    tx.commit().await?;
    Ok(info)
}

/// Deletes the reply and its reactions; absent or invisible ones are left
/// alone without complaint.
pub async fn delete_reply(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    comment_id: &str,
    reply_id: &str,
) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let Some(scope) = found_or_gone(Scope::readable(&mut tx, caller, space_id, discussion).await)? else {
        return Ok(());
    };
    let Some(comment) = found_or_gone(scope.comment(&mut tx, comment_id).await)? else {
        return Ok(());
    };
    let Some(reply) = found_or_gone(load_reply(&mut tx, &comment, reply_id).await)? else {
        return Ok(());
    };
    scope.permissions(caller, &reply.posted_by).require_delete()?;
    comments::delete_reply(&mut tx, &comment.id, &reply.id).await?;
    tx.commit().await?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Commenters
// ---------------------------------------------------------------------------

/// The members of the space's organization who posted a comment or a reply
/// in the discussion, by name. Someone who commented and has since left the
/// organization (or the space moved to another organization) is not listed:
/// a member view describes a membership.
pub async fn commenters(
    app: &App,
    caller: &Caller,
    space_id: &str,
    discussion: &Discussion,
    request: &PageRequest,
) -> AppResult<Page<MemberInfo>> {
    let mut conn = app.db.read().await?;
    let scope = Scope::readable(&mut conn, caller, space_id, discussion).await?;
    let org_id = scope.space.organization_id.clone();
    let page = comments::commenters(&mut conn, &org_id, &scope.space.id, scope.change_request_id(), request).await?;
    let ids: Vec<String> = page.items.iter().map(|(id, _)| id.clone()).collect();
    let mut found = members::get_many(&mut conn, &org_id, &ids).await?;
    // In the page's order; one who left between the two reads is skipped.
    let rows = ids.iter().filter_map(|id| found.remove(id)).collect();
    let viewer = Viewer::of_members(caller, scope.access.org.as_ref());
    let items = quire_app::members::infos(&mut conn, &org_id, &viewer, rows).await?;
    Ok(Page {
        items,
        next: page.next,
        total: page.total,
    })
}
