//! JSON shapes of discussions: comments (`Comment`), replies
//! (`CommentReply`), their reactions and bodies.

use crate::{CommentInfo, PageTarget, Reaction as ReactionInfo, Replier as ReplierInfo, ReplyInfo};
use quire_app::access::CommentPermissions;
use quire_app::accounts::Viewer;
use quire_core::Timestamp;
use quire_store::comments::TableCell as TableCellRow;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use quire_http::state::AppState;
use quire_http::views::{self, LocationUrls, User};

/// The `format` query parameter: the form bodies are answered in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyFormat {
    #[default]
    Markdown,
    Document,
}

/// A body as `{markdown}` or `{document}`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Body {
    Markdown { markdown: String },
    Document { document: Value },
}

fn body(markdown: String, format: BodyFormat) -> Body {
    match format {
        BodyFormat::Markdown => Body::Markdown { markdown },
        BodyFormat::Document => Body::Document {
            document: quire_content::document::markdown_to_document(&markdown),
        },
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReactionUser {
    pub user: User,
    pub reacted_at: Timestamp,
}

#[derive(Debug, Serialize)]
pub struct Reaction {
    pub emoji: String,
    pub count: usize,
    pub users: Vec<ReactionUser>,
}

fn reactions(state: &AppState, viewer: &Viewer, list: Vec<ReactionInfo>) -> Vec<Reaction> {
    list.into_iter()
        .map(|r| Reaction {
            emoji: r.emoji,
            count: r.users.len(),
            users: r
                .users
                .iter()
                .map(|(user, at)| ReactionUser {
                    user: views::user(state, viewer, user),
                    reacted_at: *at,
                })
                .collect(),
        })
        .collect()
}

/// A user who replied to a comment (`UserContributor`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replier {
    pub user: User,
    pub count: i64,
    pub updated_at: Timestamp,
}

fn replier(state: &AppState, viewer: &Viewer, r: ReplierInfo) -> Replier {
    Replier {
        user: views::user(state, viewer, &r.user),
        count: r.count,
        updated_at: r.last_posted_at,
    }
}

#[derive(Debug, Serialize)]
pub struct NodeTarget {
    pub id: String,
}

#[derive(Debug, Serialize)]
pub struct TableCell {
    pub record: String,
    pub definition: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetPage {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emoji: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    pub outdated: bool,
}

fn target_page(target: PageTarget) -> TargetPage {
    let current = target.current;
    TargetPage {
        id: target.id,
        title: current.as_ref().map(|p| p.title.clone()),
        emoji: current.as_ref().and_then(|p| p.emoji.clone()),
        path: current.as_ref().map(|p| p.path.clone()),
        created_at: current.as_ref().map(|p| p.created_at),
        updated_at: current.as_ref().map(|p| p.updated_at),
        outdated: target.outdated,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeTarget>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_cell: Option<TableCell>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_request: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<TargetPage>,
    pub space: String,
    /// The revision the comment was posted on.
    pub revision: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub object: &'static str,
    pub id: String,
    pub posted_by: User,
    pub posted_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<Timestamp>,
    pub reactions: Vec<Reaction>,
    pub replies: i64,
    pub repliers: Vec<Replier>,
    pub body: Body,
    pub target: Target,
    pub urls: LocationUrls,
    pub permissions: CommentPermissions,
    /// `open` or `resolved`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<User>,
}

/// The API path of a comment.
fn comment_path(space_id: &str, change_request_id: Option<&str>, comment_id: &str) -> String {
    match change_request_id {
        Some(cr) => format!("/spaces/{space_id}/change-requests/{cr}/comments/{comment_id}"),
        None => format!("/spaces/{space_id}/comments/{comment_id}"),
    }
}

pub fn comment(state: &AppState, info: CommentInfo, format: BodyFormat) -> Comment {
    let CommentInfo {
        comment: row,
        posted_by,
        resolved_by,
        reactions: list,
        replies,
        repliers,
        page,
        permissions,
        viewer,
    } = info;
    let location = state.api_url(&comment_path(&row.space_id, row.change_request_id.as_deref(), &row.id));
    Comment {
        object: "comment",
        posted_by: views::user(state, &viewer, &posted_by),
        posted_at: row.posted_at,
        edited_at: row.edited_at,
        reactions: reactions(state, &viewer, list),
        replies,
        repliers: repliers.into_iter().map(|r| replier(state, &viewer, r)).collect(),
        body: body(row.body, format),
        target: Target {
            node: row.node_id.map(|id| NodeTarget { id }),
            table_cell: row
                .table_cell
                .map(|TableCellRow { record, definition }| TableCell { record, definition }),
            change_request: row.change_request_id,
            page: page.map(target_page),
            space: row.space_id,
            revision: row.revision_id,
        },
        urls: LocationUrls { location },
        permissions,
        status: if row.resolved_at.is_some() { "resolved" } else { "open" },
        resolved_at: row.resolved_at,
        resolved_by: resolved_by.map(|u| views::user(state, &viewer, &u)),
        id: row.id,
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentReply {
    pub object: &'static str,
    pub id: String,
    pub posted_by: User,
    pub posted_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<Timestamp>,
    pub reactions: Vec<Reaction>,
    pub body: Body,
    pub urls: LocationUrls,
    pub permissions: CommentPermissions,
}

pub fn reply(state: &AppState, info: ReplyInfo, format: BodyFormat) -> CommentReply {
    let ReplyInfo {
        reply: row,
        space_id,
        change_request_id,
        posted_by,
        reactions: list,
        permissions,
        viewer,
    } = info;
    let comment = comment_path(&space_id, change_request_id.as_deref(), &row.comment_id);
    CommentReply {
        object: "comment-reply",
        urls: LocationUrls {
            location: state.api_url(&format!("{comment}/replies/{}", row.id)),
        },
        id: row.id,
        posted_by: views::user(state, &viewer, &posted_by),
        posted_at: row.posted_at,
        edited_at: row.edited_at,
        reactions: reactions(state, &viewer, list),
        body: body(row.body, format),
        permissions,
    }
}

/// A change request's review (`ChangeRequestReview`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    pub object: &'static str,
    pub id: String,
    pub revision: String,
    pub reviewer: User,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_by: Option<User>,
    pub status: String,
    pub outdated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<Comment>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub urls: LocationUrls,
}

pub fn review(state: &AppState, info: crate::reviews::ReviewInfo, format: BodyFormat) -> Review {
    let row = info.row;
    Review {
        object: "change-request-review",
        urls: LocationUrls {
            location: state.api_url(&format!(
                "/spaces/{}/change-requests/{}/reviews/{}",
                info.space_id, row.change_request_id, row.id
            )),
        },
        id: row.id,
        revision: row.revision_id,
        reviewer: views::user(state, &info.viewer, &info.reviewer),
        requested_by: info.requested_by.as_ref().map(|u| views::user(state, &info.viewer, u)),
        status: row.status,
        outdated: info.outdated,
        comment: info.comment.map(|c| comment(state, c, format)),
        created_at: row.created_at,
        updated_at: row.created_at,
    }
}

/// A pending review request (`ChangeRequestRequestedReviewer`, of a user).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestedReviewer {
    pub object: &'static str,
    pub revision: String,
    pub requested_by: User,
    pub created_at: Timestamp,
    pub kind: &'static str,
    pub user: User,
}

pub fn requested_reviewer(state: &AppState, info: crate::reviews::RequestInfo) -> RequestedReviewer {
    RequestedReviewer {
        object: "change-request-requested-reviewer",
        revision: info.row.revision_id,
        requested_by: views::user(state, &info.viewer, &info.requested_by),
        created_at: info.row.created_at,
        kind: "user",
        user: views::user(state, &info.viewer, &info.user),
    }
}
