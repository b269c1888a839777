//! Reviews of change requests: people with the review role approve or ask
//! for changes (with a comment, which joins the change request's
//! discussion), and those who can edit a change request ask others to
//! review it.
//!
//! Rules: reviewing needs the review role on the space and an open change
//! request that someone else opened; a review answers the caller's pending
//! request, if any (it records who asked), and a reviewer's earlier review
//! becomes `outdated` once they review again or are asked again. Asking for
//! reviews needs the edit role; those asked must be able to review (the
//! review role on the space) and must not be the author. A review with a
//! comment is written with its comment, all or nothing.

use std::collections::HashMap;

use quire_core::{ChangeRequestStatus, Role};
use quire_store::comments::{self, CommentRow};
use quire_store::reviews::{self, RequestRow, ReviewRow};
use quire_store::users::{self, UserRow};
use quire_store::{Conn, change_requests};
use serde::Deserialize;

use quire_app::access::ContentAccess;
use quire_app::accounts::Viewer;
use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller};

use quire_engine::DocumentInput;

use crate::input::body_markdown;
use crate::shape::{CommentInfo, one_comment};
use crate::{Discussion, Scope};

/// What a reviewer concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReviewStatus {
    Approved,
    ChangesRequested,
}

impl ReviewStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Approved => "approved",
            ReviewStatus::ChangesRequested => "changes-requested",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewReview {
    pub status: ReviewStatus,
    /// A comment with the review: `{markdown}` or `{document}`.
    pub comment: Option<DocumentInput>,
}

/// A review with everything its view shows.
#[derive(Debug, Clone)]
pub struct ReviewInfo {
    pub row: ReviewRow,
    pub space_id: String,
    pub reviewer: UserRow,
    pub requested_by: Option<UserRow>,
    pub outdated: bool,
    pub comment: Option<CommentInfo>,
    pub viewer: Viewer,
}

/// A pending request with its people.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    pub row: RequestRow,
    pub user: UserRow,
    pub requested_by: UserRow,
    pub viewer: Viewer,
}

async fn scope(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    role: Role,
    action: &str,
) -> AppResult<Scope> {
    Scope::load(
        conn,
        caller,
        space_id,
        &Discussion::ChangeRequest(change_request.to_owned()),
        role,
        action,
    )
    .await
}

/// The change request's scope for reading (the read role), and its id.
async fn readable(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
) -> AppResult<(Scope, String)> {
    let scope = Scope::readable(
        conn,
        caller,
        space_id,
        &Discussion::ChangeRequest(change_request.to_owned()),
    )
    .await?;
    let id = scope
        .change_request_id()
        .map(str::to_owned)
        .ok_or_else(|| AppError::from(anyhow::anyhow!("a review scope without its change request")))?;
    Ok((scope, id))
}

/// The scope of an operation on an open change request needing `role`,
/// and that change request.
async fn open_scope(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    role: Role,
    action: &str,
) -> AppResult<(Scope, quire_store::change_requests::ChangeRequestRow)> {
    let scope = scope(conn, caller, space_id, change_request, role, action).await?;
    let cr = open_change_request(&scope)?.clone();
    Ok((scope, cr))
}

fn open_change_request(scope: &Scope) -> AppResult<&quire_store::change_requests::ChangeRequestRow> {
    let cr = scope
        .change_request
        .as_ref()
        .ok_or_else(|| AppError::from(anyhow::anyhow!("a review scope without its change request")))?;
    if cr.status != ChangeRequestStatus::Open {
        return Err(AppError::conflict(format!(
            "change request #{} is {}: only open change requests are reviewed",
            cr.number,
            cr.status.as_str()
        )));
    }
    Ok(cr)
}

async fn user_map(conn: &mut Conn, ids: impl Iterator<Item = String>) -> AppResult<HashMap<String, UserRow>> {
    let ids: Vec<String> = ids.collect();
    Ok(users::get_many(conn, &ids).await?)
}

fn named(users: &HashMap<String, UserRow>, id: &str) -> AppResult<UserRow> {
    users
        .get(id)
        .cloned()
        .ok_or_else(|| AppError::from(anyhow::anyhow!("user {id} of a review is gone")))
}

/// Infos of reviews, with `outdated` decided against every review and
/// pending request of the change request.
async fn infos(conn: &mut Conn, scope: &Scope, caller: &Caller, rows: Vec<ReviewRow>) -> AppResult<Vec<ReviewInfo>> {
    let Some(cr) = &scope.change_request else {
        return Ok(Vec::new());
    };
    let all = reviews::reviews_of(conn, &cr.id).await?;
    let requests = reviews::requests_of(conn, &cr.id).await?;
    let users = user_map(
        conn,
        rows.iter()
            .flat_map(|r| std::iter::once(r.reviewer_id.clone()).chain(r.requested_by.clone())),
    )
    .await?;
    let viewer = Viewer::of_members(caller, scope.access.org.as_ref());
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let later_review = all
            .iter()
            .any(|r| r.reviewer_id == row.reviewer_id && (r.created_at, &r.id) > (row.created_at, &row.id));
        let asked_again = requests
            .iter()
            .any(|r| r.user_id == row.reviewer_id && r.created_at > row.created_at);
        let comment = match &row.comment_id {
            Some(id) => match comments::get_comment(conn, &scope.space.id, Some(&cr.id), id).await {
                Ok(comment) => Some(one_comment(conn, scope, caller, comment).await?),
                Err(quire_store::StoreError::NotFound) => None,
                Err(e) => return Err(e.into()),
            },
            None => None,
        };
        out.push(ReviewInfo {
            space_id: scope.space.id.clone(),
            reviewer: named(&users, &row.reviewer_id)?,
            requested_by: row.requested_by.as_deref().map(|id| named(&users, id)).transpose()?,
            outdated: later_review || asked_again,
            comment,
            viewer: viewer.clone(),
            row,
        });
    }
    Ok(out)
}

/// Submits the caller's review.
pub async fn submit(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    new: NewReview,
) -> AppResult<ReviewInfo> {
    let body = new.comment.map(body_markdown).transpose()?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let (scope, cr) = open_scope(
        &mut tx,
        caller,
        space_id,
        change_request,
        Role::Review,
        "review change requests",
    )
    .await?;
    if cr.created_by == caller.id() {
        return Err(AppError::forbidden("you cannot review a change request you opened"));
    }
    let request = reviews::take_request(&mut tx, &cr.id, caller.id()).await?;
    let comment_id = match body {
        Some(body) => {
            let row = CommentRow {
                id: quire_core::id::new_id(),
                space_id: scope.space.id.clone(),
                change_request_id: Some(cr.id.clone()),
                posted_by: caller.id().to_owned(),
                posted_at: now,
                edited_at: None,
                body,
                revision_id: cr.revision_id.clone(),
                page_id: None,
                page_document: None,
                node_id: None,
                table_cell: None,
                resolved_at: None,
                resolved_by: None,
            };
            comments::insert_comment(&mut tx, &row).await?;
            Some(row.id)
        }
        None => None,
    };
    let row = ReviewRow {
        id: quire_core::id::new_id(),
        change_request_id: cr.id.clone(),
        reviewer_id: caller.id().to_owned(),
        requested_by: request.map(|r| r.requested_by),
        status: new.status.as_str().to_owned(),
        revision_id: cr.revision_id.clone(),
        comment_id,
        created_at: now,
    };
    reviews::insert_review(&mut tx, &row).await?;
    let info = infos(&mut tx, &scope, caller, vec![row])
        .await?
        .pop()
        .ok_or_else(|| AppError::from(anyhow::anyhow!("a review without its info")))?;
    tx.commit().await?;
    Ok(info)
}

/// The change request's reviews, oldest first; `outdated` filters them.
pub async fn list(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    outdated: Option<bool>,
) -> AppResult<Vec<ReviewInfo>> {
    let mut conn = app.db.read().await?;
    let (scope, cr) = readable(&mut conn, caller, space_id, change_request).await?;
    let rows = reviews::reviews_of(&mut conn, &cr).await?;
    let all = infos(&mut conn, &scope, caller, rows).await?;
    Ok(all
        .into_iter()
        .filter(|r| outdated.is_none_or(|o| r.outdated == o))
        .collect())
}

pub async fn get(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    review_id: &str,
) -> AppResult<ReviewInfo> {
    list(app, caller, space_id, change_request, None)
        .await?
        .into_iter()
        .find(|r| r.row.id == review_id)
        .ok_or_else(|| AppError::not_found("review", review_id))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRequests {
    pub users: Vec<String>,
    pub subject: Option<String>,
    /// Quire keeps no change request description: refused when given.
    pub description: Option<serde_json::Value>,
}

/// Most people asked at once.
const MAX_REVIEWERS: usize = 50;

async fn request_infos(
    conn: &mut Conn,
    scope: &Scope,
    caller: &Caller,
    rows: Vec<RequestRow>,
) -> AppResult<Vec<RequestInfo>> {
    let users = user_map(
        conn,
        rows.iter().flat_map(|r| [r.user_id.clone(), r.requested_by.clone()]),
    )
    .await?;
    let viewer = Viewer::of_members(caller, scope.access.org.as_ref());
    rows.into_iter()
        .map(|row| {
            Ok(RequestInfo {
                user: named(&users, &row.user_id)?,
                requested_by: named(&users, &row.requested_by)?,
                viewer: viewer.clone(),
                row,
            })
        })
        .collect()
}

/// Asks people to review; the requests made (renewed when asked before).
pub async fn request(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    new: NewRequests,
) -> AppResult<Vec<RequestInfo>> {
    if new.description.is_some() {
        return Err(AppError::invalid(
            "description is not kept: Quire's change requests have a subject only",
        ));
    }
    if new.users.is_empty() {
        return Err(AppError::invalid("users must name at least one user id"));
    }
    if new.users.len() > MAX_REVIEWERS {
        return Err(AppError::invalid(format!("at most {MAX_REVIEWERS} reviewers at once")));
    }
    let subject = new
        .subject
        .as_deref()
        .map(quire_app::change_requests::subject)
        .transpose()?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let (scope, cr) = open_scope(&mut tx, caller, space_id, change_request, Role::Edit, "ask for reviews").await?;
    let found = users::get_many(&mut tx, &new.users).await?;
    let mut rows = Vec::new();
    for id in &new.users {
        let user = found
            .get(id)
            .ok_or_else(|| AppError::invalid(format!("user {id:?} cannot review here: no such user")))?;
        if user.id == cr.created_by {
            return Err(AppError::invalid(format!(
                "{} opened this change request and cannot review it",
                user.display_name
            )));
        }
        let access = ContentAccess::to_space(&mut tx, &Caller::with_token(user.clone()), &scope.space).await;
        if !access.is_ok_and(|a| a.has(Role::Review)) {
            return Err(AppError::invalid(format!(
                "{} cannot review here: they need the review role on this space",
                user.display_name
            )));
        }
        let row = RequestRow {
            change_request_id: cr.id.clone(),
            user_id: user.id.clone(),
            requested_by: caller.id().to_owned(),
            revision_id: cr.revision_id.clone(),
            created_at: now,
        };
        if !rows.iter().any(|r: &RequestRow| r.user_id == row.user_id) {
            reviews::upsert_request(&mut tx, &row).await?;
            rows.push(row);
        }
    }
    if let Some(subject) = subject {
        change_requests::set_subject(&mut tx, &cr.id, &subject, now).await?;
    }
    let infos = request_infos(&mut tx, &scope, caller, rows).await?;
    tx.commit().await?;
    Ok(infos)
}

/// The change request's pending review requests.
pub async fn requested(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
) -> AppResult<Vec<RequestInfo>> {
    let mut conn = app.db.read().await?;
    let (scope, cr) = readable(&mut conn, caller, space_id, change_request).await?;
    let rows = reviews::requests_of(&mut conn, &cr).await?;
    request_infos(&mut conn, &scope, caller, rows).await
}

/// Withdraws a request: whether there was one.
pub async fn unrequest(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: &str,
    user_id: &str,
) -> AppResult<bool> {
    let mut tx = app.db.write().await?;
    let (_, cr) = open_scope(
        &mut tx,
        caller,
        space_id,
        change_request,
        Role::Edit,
        "change review requests",
    )
    .await?;
    let removed = reviews::take_request(&mut tx, &cr.id, user_id).await?.is_some();
    tx.commit().await?;
    Ok(removed)
}
