//! Change requests: open, list, read, update subject and status, write
//! content, update from the space and merge into it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_app::change_requests::{self, ChangeRequestUpdate, ListFilter};
use quire_core::ChangeRequestStatus;
use quire_engine::{AppliedChange, Change};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::auth::Auth;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views::content::{self as views, ChangeRequest, ContentContext};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/change-requests", get(list).post(create))
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}",
            get(read).patch(update_fields),
        )
        .route("/spaces/{spaceId}/change-requests/{changeRequestId}/merge", post(merge))
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/conflicts",
            get(conflicts),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/update",
            post(update_from_space),
        )
        // Its GET (the change request's revision) is with the content reads.
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content",
            post(write_content),
        )
}

#[derive(Debug, Deserialize)]
struct CreateBody {
    subject: Option<String>,
}

async fn create(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<CreateBody>,
) -> ApiResult<(StatusCode, Json<ChangeRequest>)> {
    let subject = body.subject.unwrap_or_default();
    let cr = change_requests::open(&state.app, &caller, &space_id, &subject).await?;
    Ok((StatusCode::CREATED, Json(views::change_request(&state, cr))))
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
enum OrderBy {
    #[default]
    #[serde(rename = "updatedAt")]
    UpdatedAt,
    #[serde(rename = "createdAt")]
    CreatedAt,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    #[serde(default)]
    status: ChangeRequestStatus,
    creator: Option<String>,
    #[serde(default)]
    order_by: OrderBy,
}

async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    page: PageParams,
    Query(query): Query<ListQuery>,
) -> ApiResult<Json<List<ChangeRequest>>> {
    let by_creation = matches!(query.order_by, OrderBy::CreatedAt);
    let order = ListOrder::by_int(if by_creation { "createdAt" } else { "updatedAt" }, true);
    let request = page.request(order)?;
    let filter = ListFilter {
        status: query.status,
        creator: query.creator,
        by_creation,
    };
    let page = change_requests::list(&state.app, &caller, &space_id, filter, &request).await?;
    Ok(Json(List::from_page(page, order, |cr| {
        views::change_request(&state, cr)
    })))
}

async fn read(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, cr)): Path<(String, String)>,
) -> ApiResult<Json<ChangeRequest>> {
    let cr = change_requests::get(&state.app, &caller, &space_id, &cr).await?;
    Ok(Json(views::change_request(&state, cr)))
}

async fn update_fields(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, cr)): Path<(String, String)>,
    JsonBody(body): JsonBody<ChangeRequestUpdate>,
) -> ApiResult<Json<ChangeRequest>> {
    let cr = change_requests::update(&state.app, &caller, &space_id, &cr, body).await?;
    Ok(Json(views::change_request(&state, cr)))
}

async fn merge(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, cr)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let revision = change_requests::merge(&state.app, &caller, &space_id, &cr).await?;
    Ok(Json(json!({ "revision": revision, "result": "merge" })))
}

/// The optional body of an update: how to settle pages that conflict
/// (Quire's addition; without it, a conflict is refused as before).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[serde(default)]
    resolutions: Vec<change_requests::ResolutionInput>,
}

async fn update_from_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, cr)): Path<(String, String)>,
    JsonBody(body): JsonBody<Option<UpdateBody>>,
) -> ApiResult<Json<Value>> {
    let resolutions = body.map(|b| b.resolutions).unwrap_or_default();
    let revision = change_requests::update_from_space(&state.app, &caller, &space_id, &cr, resolutions).await?;
    Ok(Json(json!({ "revision": revision, "result": "update" })))
}

/// `GET .../conflicts` (Quire's addition): the pages that keep the change
/// request from merging, each with its base, mine and theirs markdown.
async fn conflicts(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, cr)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let pages = change_requests::conflicts(&state.app, &caller, &space_id, &cr).await?;
    let items: Vec<Value> = pages
        .into_iter()
        .map(|c| {
            json!({
                "object": "change-request-conflict",
                "page": c.page,
                "title": c.title,
                "reason": c.reason,
                "resolvable": c.resolvable,
                "base": { "markdown": c.base },
                "mine": { "markdown": c.mine },
                "theirs": { "markdown": c.theirs },
            })
        })
        .collect();
    Ok(Json(json!({ "items": items })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContentBody {
    changes: Vec<Change>,
}

#[derive(Debug, Deserialize)]
struct CompatQuery {
    compat: Option<bool>,
}

/// Applies a batch of content changes; answers the change request (or, with
/// `compat=false`, the change request and what changed).
async fn write_content(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, cr)): Path<(String, String)>,
    Query(query): Query<CompatQuery>,
    JsonBody(body): JsonBody<ContentBody>,
) -> ApiResult<Json<Value>> {
    let (cr, applied) = change_requests::write_content(&state.app, &caller, &space_id, &cr, body.changes).await?;
    let cr_id = cr.change_request.id.clone();
    let head = (
        cr.change_request.space_id.clone(),
        cr.change_request.revision_id.clone(),
    );
    let view = serde_json::to_value(views::change_request(&state, cr)).map_err(|e| ApiError::Internal(e.into()))?;
    if query.compat.unwrap_or(true) {
        return Ok(Json(view));
    }
    let page_ref = |id: &str| {
        json!({
            "object": "page",
            "id": id,
            "urls": { "location": state.api_url(&format!("/spaces/{space_id}/change-requests/{cr_id}/content/page/{id}")) },
        })
    };
    let changes: Vec<Value> = applied
        .iter()
        .filter_map(|change| match change {
            AppliedChange::Created { page, reference } => {
                let mut v = json!({ "object": "created_page", "page": page_ref(page) });
                if let Some(r) = reference {
                    v["ref"] = r.clone().into();
                }
                Some(v)
            }
            AppliedChange::Updated { page } => Some(json!({ "object": "updated_page", "page": page_ref(page) })),
            AppliedChange::Deleted { page } => Some(json!({ "object": "deleted_page", "page": page })),
            AppliedChange::FileInserted { .. } => None,
        })
        .collect();
    let mut answer = json!({ "changeRequest": view, "changes": changes });
    let inserted: Vec<&str> = applied
        .iter()
        .filter_map(|change| match change {
            AppliedChange::FileInserted { file } => Some(file.as_str()),
            _ => None,
        })
        .collect();
    if !inserted.is_empty() {
        let snapshot = state
            .app
            .engine
            .revisions
            .snapshot(&head.0, &head.1)
            .await
            .map_err(quire_app::AppError::from)?;
        let ctx = ContentContext {
            state: &state,
            space_id: &head.0,
        };
        answer["insertedFiles"] = inserted
            .iter()
            .filter_map(|id| snapshot.files.iter().find(|(_, f)| f.id == *id))
            .map(|(_, f)| ctx.file(&snapshot, f))
            .collect();
    }
    Ok(Json(answer))
}
