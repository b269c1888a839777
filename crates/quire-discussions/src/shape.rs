//! What discussions answer: comments and replies with their authors,
//! reactions, repliers, permissions and page targets, shaped for views.

use std::collections::HashMap;

use quire_core::Timestamp;
use quire_engine::Snapshot;
use quire_store::Conn;
use quire_store::comments::{self, CommentRow, ReactionRow, ReplyRow};
use quire_store::users::{self, UserRow};

use super::Scope;
use quire_app::access::CommentPermissions;
use quire_app::accounts::Viewer;
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller};

/// One emoji on a comment or reply, with who added it and when (oldest first).
#[derive(Debug, Clone)]
pub struct Reaction {
    pub emoji: String,
    pub users: Vec<(UserRow, Timestamp)>,
}

/// A user who replied to a comment: how many replies, the latest when.
#[derive(Debug, Clone)]
pub struct Replier {
    pub user: UserRow,
    pub count: i64,
    pub last_posted_at: Timestamp,
}

/// The page a comment is about, as the discussion's content has it now.
#[derive(Debug, Clone)]
pub struct PageTarget {
    pub id: String,
    /// `None` when the page is no longer in the content.
    pub current: Option<PageNow>,
    /// The page's document changed since the comment was posted (or the
    /// page is gone).
    pub outdated: bool,
}

#[derive(Debug, Clone)]
pub struct PageNow {
    pub title: String,
    pub emoji: Option<String>,
    pub path: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A comment with everything its view shows.
#[derive(Debug, Clone)]
pub struct CommentInfo {
    pub comment: CommentRow,
    pub posted_by: UserRow,
    pub resolved_by: Option<UserRow>,
    pub reactions: Vec<Reaction>,
    pub replies: i64,
    pub repliers: Vec<Replier>,
    pub page: Option<PageTarget>,
    pub permissions: CommentPermissions,
    /// Whose email (of the users above) the caller sees.
    pub viewer: Viewer,
}

/// A reply with everything its view shows.
#[derive(Debug, Clone)]
pub struct ReplyInfo {
    pub reply: ReplyRow,
    /// The space and change request of its comment (for its URL).
    pub space_id: String,
    pub change_request_id: Option<String>,
    pub posted_by: UserRow,
    pub reactions: Vec<Reaction>,
    pub permissions: CommentPermissions,
    /// Whose email (of the users above) the caller sees.
    pub viewer: Viewer,
}

/// Loads every user named by `ids` (once each).
async fn user_map(conn: &mut Conn, ids: impl IntoIterator<Item = String>) -> AppResult<HashMap<String, UserRow>> {
    let mut ids: Vec<String> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(users::get_many(conn, &ids).await?)
}

/// Whose email the caller sees among the users a discussion names: they
/// may have left the space's organization since they wrote.
async fn viewer(
    conn: &mut Conn,
    scope: &Scope,
    caller: &Caller,
    users: &HashMap<String, UserRow>,
) -> AppResult<Viewer> {
    Viewer::of_authors(
        conn,
        caller,
        scope.access.org.as_ref(),
        users.keys().map(String::as_str),
    )
    .await
}

fn user_in(users: &HashMap<String, UserRow>, id: &str) -> AppResult<UserRow> {
    users
        .get(id)
        .cloned()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a discussion names the unknown user {id:?}")))
}

/// The reactions of each target, grouped by emoji in the order each emoji
/// was first added.
fn group_reactions(
    rows: &[ReactionRow],
    users: &HashMap<String, UserRow>,
) -> AppResult<HashMap<String, Vec<Reaction>>> {
    let mut out: HashMap<String, Vec<Reaction>> = HashMap::new();
    for row in rows {
        let list = out.entry(row.target_id.clone()).or_default();
        let user = (user_in(users, &row.user_id)?, row.reacted_at);
        match list.iter_mut().find(|r| r.emoji == row.emoji) {
            Some(reaction) => reaction.users.push(user),
            None => list.push(Reaction {
                emoji: row.emoji.clone(),
                users: vec![user],
            }),
        }
    }
    Ok(out)
}

/// Shapes comments with their authors, reactions and repliers (page targets
/// are attached afterwards, off the connection: see [`attach_pages`]).
pub(super) async fn comment_infos(
    conn: &mut Conn,
    scope: &Scope,
    caller: &Caller,
    rows: Vec<CommentRow>,
) -> AppResult<Vec<CommentInfo>> {
    let ids: Vec<String> = rows.iter().map(|c| c.id.clone()).collect();
    let reactions = comments::reactions(conn, &ids).await?;
    let repliers = comments::repliers(conn, &ids).await?;
    let named = rows
        .iter()
        .flat_map(|c| std::iter::once(c.posted_by.clone()).chain(c.resolved_by.clone()))
        .chain(reactions.iter().map(|r| r.user_id.clone()))
        .chain(repliers.iter().map(|r| r.user_id.clone()));
    let users = user_map(conn, named).await?;
    let viewer = viewer(conn, scope, caller, &users).await?;
    let mut reactions = group_reactions(&reactions, &users)?;
    let mut by_comment: HashMap<String, Vec<Replier>> = HashMap::new();
    for row in repliers {
        by_comment.entry(row.comment_id).or_default().push(Replier {
            user: user_in(&users, &row.user_id)?,
            count: row.count,
            last_posted_at: row.last_posted_at,
        });
    }
    rows.into_iter()
        .map(|comment| {
            let repliers = by_comment.remove(&comment.id).unwrap_or_default();
            Ok(CommentInfo {
                posted_by: user_in(&users, &comment.posted_by)?,
                resolved_by: comment
                    .resolved_by
                    .as_deref()
                    .map(|id| user_in(&users, id))
                    .transpose()?,
                reactions: reactions.remove(&comment.id).unwrap_or_default(),
                replies: repliers.iter().map(|r| r.count).sum(),
                repliers,
                page: None,
                permissions: scope.permissions(caller, &comment.posted_by),
                viewer: viewer.clone(),
                comment,
            })
        })
        .collect()
}

/// Where a comment's page is in the snapshot, and whether it changed.
fn page_target(snapshot: &Snapshot, comment: &CommentRow) -> Option<PageTarget> {
    let id = comment.page_id.clone()?;
    let Some(page) = snapshot.tree.pages.get(&id) else {
        return Some(PageTarget {
            id,
            current: None,
            outdated: true,
        });
    };
    let (created, updated) = snapshot.stamps.get(&id).copied().unwrap_or_default();
    Some(PageTarget {
        outdated: page.meta.document != comment.page_document,
        current: Some(PageNow {
            title: page.meta.title.clone(),
            emoji: page.meta.emoji.clone(),
            path: snapshot.path_of(&id),
            created_at: Timestamp(created),
            updated_at: Timestamp(updated),
        }),
        id,
    })
}

/// Fills in the page targets from the discussion's current content (loaded
/// only when a comment names a page). Call it without holding a connection.
pub(super) async fn attach_pages(app: &App, scope: &Scope, infos: &mut [CommentInfo]) -> AppResult<()> {
    if infos.iter().all(|i| i.comment.page_id.is_none()) {
        return Ok(());
    }
    let snapshot = app.engine.revisions.snapshot(&scope.space.id, scope.revision()).await?;
    for info in infos.iter_mut() {
        info.page = page_target(&snapshot, &info.comment);
    }
    Ok(())
}

/// Shapes one comment fully: the connection part, then (after `commit`
/// releases the transaction, when there is one) the page target.
pub(super) async fn one_comment(
    conn: &mut Conn,
    scope: &Scope,
    caller: &Caller,
    row: CommentRow,
) -> AppResult<CommentInfo> {
    comment_infos(conn, scope, caller, vec![row])
        .await?
        .pop()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a comment without its info")))
}

pub(super) async fn reply_infos(
    conn: &mut Conn,
    scope: &Scope,
    caller: &Caller,
    rows: Vec<ReplyRow>,
) -> AppResult<Vec<ReplyInfo>> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let reactions = comments::reactions(conn, &ids).await?;
    let named = rows
        .iter()
        .map(|r| r.posted_by.clone())
        .chain(reactions.iter().map(|r| r.user_id.clone()));
    let users = user_map(conn, named).await?;
    let viewer = viewer(conn, scope, caller, &users).await?;
    let mut reactions = group_reactions(&reactions, &users)?;
    rows.into_iter()
        .map(|reply| {
            Ok(ReplyInfo {
                posted_by: user_in(&users, &reply.posted_by)?,
                reactions: reactions.remove(&reply.id).unwrap_or_default(),
                permissions: scope.permissions(caller, &reply.posted_by),
                viewer: viewer.clone(),
                space_id: scope.space.id.clone(),
                change_request_id: scope.change_request_id().map(str::to_owned),
                reply,
            })
        })
        .collect()
}

pub(super) async fn one_reply(conn: &mut Conn, scope: &Scope, caller: &Caller, row: ReplyRow) -> AppResult<ReplyInfo> {
    reply_infos(conn, scope, caller, vec![row])
        .await?
        .pop()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a reply without its info")))
}
