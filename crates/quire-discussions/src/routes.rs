//! Discussions: comments, replies and reactions on a space and on a change
//! request, and who took part. The same operations exist under both; the
//! [`DiscussionPath`] extractor tells them apart by their parameters.

use std::collections::HashMap;

use crate::{CommentUpdate, Discussion, ListFilter, NewComment, NewReply, StatusFilter};
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use crate::views::{self as views, BodyFormat, Comment, CommentReply};
use quire_http::auth::Auth;
use quire_http::error::{ApiError, ApiResult};
use quire_http::extract::{JsonBody, Path, Query};
use quire_http::pagination::{List, ListOrder, Order, PageParams};
use quire_http::state::AppState;
use quire_http::views::{self as shared, Member};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/comments", get(list_comments).post(post_comment))
        .route(
            "/spaces/{spaceId}/comments/{commentId}",
            get(read_comment).put(update_comment).delete(delete_comment),
        )
        .route(
            "/spaces/{spaceId}/comments/{commentId}/replies",
            get(list_replies).post(post_reply),
        )
        .route(
            "/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}",
            get(read_reply).put(update_reply).delete(delete_reply),
        )
        .route("/spaces/{spaceId}/commenters", get(commenters))
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/reviews",
            get(list_reviews).post(submit_review),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}",
            get(read_review),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers",
            get(list_requested_reviewers).post(request_reviewers),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}",
            axum::routing::delete(remove_requested_reviewer),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/comments",
            get(list_comments).post(post_comment),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}",
            get(read_comment).put(update_comment).delete(delete_comment),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies",
            get(list_replies).post(post_reply),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}",
            get(read_reply).put(update_reply).delete(delete_reply),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/commenters",
            get(commenters),
        )
}

/// The path parameters of a discussion operation: the space, the
/// discussion (the space's own, or a change request's) and, as the route
/// has them, a comment and a reply.
struct DiscussionPath {
    space: String,
    discussion: Discussion,
    comment: String,
    reply: String,
}

impl<S: Send + Sync> FromRequestParts<S> for DiscussionPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(mut params) = Path::<HashMap<String, String>>::from_request_parts(parts, state).await?;
        let space = params
            .remove("spaceId")
            .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("a discussion route without {{spaceId}}")))?;
        let discussion = match params.remove("changeRequestId") {
            Some(cr) => Discussion::ChangeRequest(cr),
            None => Discussion::Space,
        };
        Ok(DiscussionPath {
            space,
            discussion,
            comment: params.remove("commentId").unwrap_or_default(),
            reply: params.remove("commentReplyId").unwrap_or_default(),
        })
    }
}

#[derive(Debug, Deserialize)]
struct FormatQuery {
    #[serde(default)]
    format: BodyFormat,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    #[serde(default)]
    order: Order,
    #[serde(default)]
    status: StatusFilter,
    #[serde(default)]
    format: BodyFormat,
    target_page: Option<String>,
    /// Repeated: `authors=a&authors=b`.
    #[serde(default)]
    authors: Vec<String>,
}

async fn list_comments(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    page: PageParams,
    Query(query): Query<ListQuery>,
) -> ApiResult<Json<List<Comment>>> {
    let order = ListOrder::by_int("postedAt", query.order.is_descending());
    let request = page.request(order)?;
    let filter = ListFilter {
        status: query.status,
        target_page: query.target_page,
        authors: query.authors,
    };
    let page = crate::list(&state.app, &caller, &at.space, &at.discussion, filter, &request).await?;
    Ok(Json(List::from_page(page, order, |c| {
        views::comment(&state, c, query.format)
    })))
}

async fn post_comment(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    JsonBody(body): JsonBody<NewComment>,
) -> ApiResult<Json<Comment>> {
    let comment = crate::post(&state.app, &caller, &at.space, &at.discussion, body).await?;
    Ok(Json(views::comment(&state, comment, BodyFormat::Markdown)))
}

async fn read_comment(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    Query(query): Query<FormatQuery>,
) -> ApiResult<Json<Comment>> {
    let comment = crate::get(&state.app, &caller, &at.space, &at.discussion, &at.comment).await?;
    Ok(Json(views::comment(&state, comment, query.format)))
}

async fn update_comment(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    JsonBody(body): JsonBody<CommentUpdate>,
) -> ApiResult<Json<Comment>> {
    let comment = crate::update(&state.app, &caller, &at.space, &at.discussion, &at.comment, body).await?;
    Ok(Json(views::comment(&state, comment, BodyFormat::Markdown)))
}

/// 204 also when there was nothing to delete.
async fn delete_comment(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
) -> ApiResult<StatusCode> {
    crate::delete(&state.app, &caller, &at.space, &at.discussion, &at.comment).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Replies read oldest first, like the thread they make.
const REPLY_ORDER: ListOrder = ListOrder::ascending_by("postedAt");

async fn list_replies(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    page: PageParams,
    Query(query): Query<FormatQuery>,
) -> ApiResult<Json<List<CommentReply>>> {
    let request = page.request(REPLY_ORDER)?;
    let page = crate::list_replies(&state.app, &caller, &at.space, &at.discussion, &at.comment, &request).await?;
    Ok(Json(List::from_page(page, REPLY_ORDER, |r| {
        views::reply(&state, r, query.format)
    })))
}

async fn post_reply(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    Query(query): Query<FormatQuery>,
    JsonBody(body): JsonBody<NewReply>,
) -> ApiResult<Json<CommentReply>> {
    let reply = crate::post_reply(&state.app, &caller, &at.space, &at.discussion, &at.comment, body).await?;
    Ok(Json(views::reply(&state, reply, query.format)))
}

async fn read_reply(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    Query(query): Query<FormatQuery>,
) -> ApiResult<Json<CommentReply>> {
    let reply = crate::get_reply(&state.app, &caller, &at.space, &at.discussion, &at.comment, &at.reply).await?;
    Ok(Json(views::reply(&state, reply, query.format)))
}

async fn update_reply(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    JsonBody(body): JsonBody<CommentUpdate>,
) -> ApiResult<Json<CommentReply>> {
    let reply = crate::update_reply(
        &state.app,
        &caller,
        &at.space,
        &at.discussion,
        &at.comment,
        &at.reply,
        body,
    )
    .await?;
    Ok(Json(views::reply(&state, reply, BodyFormat::Markdown)))
}

/// 204 also when there was nothing to delete.
async fn delete_reply(State(state): State<AppState>, Auth(caller): Auth, at: DiscussionPath) -> ApiResult<StatusCode> {
    crate::delete_reply(&state.app, &caller, &at.space, &at.discussion, &at.comment, &at.reply).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Members who commented, by name.
const COMMENTER_ORDER: ListOrder = ListOrder::by_text("name", false);

async fn commenters(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: DiscussionPath,
    page: PageParams,
) -> ApiResult<Json<List<Member>>> {
    let request = page.request(COMMENTER_ORDER)?;
    let page = crate::commenters(&state.app, &caller, &at.space, &at.discussion, &request).await?;
    Ok(Json(List::from_page(page, COMMENTER_ORDER, |m| {
        shared::member(&state, &m)
    })))
}

const REVIEWS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

#[derive(Debug, Deserialize)]
struct ReviewsQuery {
    #[serde(default)]
    format: BodyFormat,
    outdated: Option<bool>,
}

async fn list_reviews(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space, cr)): Path<(String, String)>,
    Query(query): Query<ReviewsQuery>,
    page: PageParams,
) -> ApiResult<Json<List<views::Review>>> {
    let request = page.request(REVIEWS_ORDER)?;
    let reviews = crate::reviews::list(&state.app, &caller, &space, &cr, query.outdated).await?;
    Ok(Json(List::from_page(
        quire_store::Page::of_list(reviews, &request),
        REVIEWS_ORDER,
        |r| views::review(&state, r, query.format),
    )))
}

async fn submit_review(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space, cr)): Path<(String, String)>,
    JsonBody(body): JsonBody<crate::reviews::NewReview>,
) -> ApiResult<(StatusCode, [(axum::http::HeaderName, String); 1], Json<views::Review>)> {
    let review = crate::reviews::submit(&state.app, &caller, &space, &cr, body).await?;
    let view = views::review(&state, review, BodyFormat::Markdown);
    Ok((
        StatusCode::CREATED,
        [(axum::http::header::LOCATION, view.urls.location.clone())],
        Json(view),
    ))
}

async fn read_review(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space, cr, review)): Path<(String, String, String)>,
    Query(query): Query<FormatQuery>,
) -> ApiResult<Json<views::Review>> {
    let review = crate::reviews::get(&state.app, &caller, &space, &cr, &review).await?;
    Ok(Json(views::review(&state, review, query.format)))
}

const REQUESTS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn list_requested_reviewers(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space, cr)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<views::RequestedReviewer>>> {
    let request = page.request(REQUESTS_ORDER)?;
    let requests = crate::reviews::requested(&state.app, &caller, &space, &cr).await?;
    Ok(Json(List::from_page(
        quire_store::Page::of_list(requests, &request),
        REQUESTS_ORDER,
        |r| views::requested_reviewer(&state, r),
    )))
}

#[derive(Debug, serde::Serialize)]
struct RequestedUsers {
    users: Vec<views::RequestedReviewer>,
}

async fn request_reviewers(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space, cr)): Path<(String, String)>,
    JsonBody(body): JsonBody<crate::reviews::NewRequests>,
) -> ApiResult<Json<RequestedUsers>> {
    let made = crate::reviews::request(&state.app, &caller, &space, &cr, body).await?;
    Ok(Json(RequestedUsers {
        users: made.into_iter().map(|r| views::requested_reviewer(&state, r)).collect(),
    }))
}

/// 205 when a request was withdrawn, 204 when there was none (as the
/// official API answers).
async fn remove_requested_reviewer(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space, cr, user)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    let removed = crate::reviews::unrequest(&state.app, &caller, &space, &cr, &user).await?;
    Ok(if removed {
        StatusCode::RESET_CONTENT
    } else {
        StatusCode::NO_CONTENT
    })
}
