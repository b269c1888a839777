//! Change requests: open, list, read, update subject and status, write
//! content, update from the space and merge into it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::Role;
use quire_engine::{AppliedChange, Change};
use quire_store::change_requests::{self, ChangeRequestFilter, ChangeRequestRow};
use quire_store::spaces::SpaceRow;
use quire_store::{Conn, users};
use serde::Deserialize;
use serde_json::{Value, json};

use super::spaces::visible_space;
use crate::auth::Caller;
use crate::content_views::{self, ChangeRequest};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::permissions::ContentAccess;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{space_id}/change-requests", get(list).post(create))
        .route(
            "/spaces/{space_id}/change-requests/{cr}",
            get(read).patch(update_fields),
        )
        .route("/spaces/{space_id}/change-requests/{cr}/merge", post(merge))
        .route(
            "/spaces/{space_id}/change-requests/{cr}/update",
            post(update_from_space),
        )
        .route(
            "/spaces/{space}/change-requests/{cr}/content",
            post(write_content).get(super::content::read_revision),
        )
}

const MAX_SUBJECT: usize = 100;

/// A space the caller holds at least `role` on (404 when they cannot see it).
pub(crate) async fn space_with_role(
    conn: &mut Conn,
    caller: &Caller,
    space_id: &str,
    role: Role,
    action: &str,
) -> ApiResult<(SpaceRow, ContentAccess)> {
    let (space, access) = visible_space(conn, caller, space_id, None).await?;
    access.require(role, action)?;
    Ok((space, access))
}

/// A change request of the space, by id or by number.
pub(crate) async fn load(conn: &mut Conn, space_id: &str, id_or_number: &str) -> ApiResult<ChangeRequestRow> {
    change_requests::get(conn, space_id, id_or_number)
        .await
        .map_err(|err| match err {
            quire_store::StoreError::NotFound => ApiError::not_found("change request"),
            other => other.into(),
        })
}

pub(crate) async fn render(
    state: &AppState,
    conn: &mut Conn,
    cr: ChangeRequestRow,
    space_revision: &str,
) -> ApiResult<ChangeRequest> {
    let created_by = users::get(conn, &cr.created_by).await?;
    let merged_by = match &cr.merged_by {
        Some(id) => Some(users::get(conn, id).await?),
        None => None,
    };
    Ok(content_views::change_request(
        state,
        cr,
        &created_by,
        merged_by.as_ref(),
        space_revision,
    ))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateBody {
    subject: Option<String>,
}

fn subject(text: &str) -> ApiResult<String> {
    if text.chars().count() > MAX_SUBJECT {
        return Err(ApiError::bad_request(format!(
            "subject must be at most {MAX_SUBJECT} characters"
        )));
    }
    Ok(text.trim().to_owned())
}

async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    crate::extract::JsonBody(body): JsonBody<CreateBody>,
) -> ApiResult<(StatusCode, Json<ChangeRequest>)> {
    let subject = subject(body.subject.as_deref().unwrap_or(""))?;
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Edit, "open change requests here").await?;
    drop(conn);
    let cr = state
        .engine
        .create_change_request(&space, &subject, caller.id())
        .await?;
    let mut conn = state.db.read().await?;
    let view = render(&state, &mut conn, cr, &space.revision_id).await?;
    Ok((StatusCode::CREATED, Json(view)))
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Draft,
    #[default]
    Open,
    Archived,
    Merged,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Open => "open",
            Status::Archived => "archived",
            Status::Merged => "merged",
        }
    }
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
    status: Status,
    creator: Option<String>,
    #[serde(default)]
    order_by: OrderBy,
}

async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    page: PageParams,
    Query(query): Query<ListQuery>,
) -> ApiResult<Json<List<ChangeRequest>>> {
    let by_created = matches!(query.order_by, OrderBy::CreatedAt);
    let order = ListOrder {
        sort: if by_created { "createdAt" } else { "updatedAt" },
        text_key: false,
        descending: true,
    };
    let request = page.request(order)?;
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Read, "see change requests").await?;
    let filter = ChangeRequestFilter {
        status: Some(query.status.as_str().to_owned()),
        creator: query.creator,
    };
    let page = change_requests::list(&mut conn, &space.id, &filter, by_created, &request).await?;
    let mut items = Vec::with_capacity(page.items.len());
    for cr in page.items {
        items.push(render(&state, &mut conn, cr, &space.revision_id).await?);
    }
    Ok(Json(List::new(items, page.total, page.next.as_ref(), order)))
}

async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path((space_id, cr)): Path<(String, String)>,
) -> ApiResult<Json<ChangeRequest>> {
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Read, "see change requests").await?;
    let cr = load(&mut conn, &space.id, &cr).await?;
    Ok(Json(render(&state, &mut conn, cr, &space.revision_id).await?))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateBody {
    subject: Option<String>,
    status: Option<Status>,
}

async fn update_fields(
    State(state): State<AppState>,
    caller: Caller,
    Path((space_id, cr)): Path<(String, String)>,
    JsonBody(body): JsonBody<UpdateBody>,
) -> ApiResult<Json<ChangeRequest>> {
    let mut tx = state.db.write().await?;
    let (space, _) = space_with_role(&mut tx, &caller, &space_id, Role::Edit, "change change requests").await?;
    let current = load(&mut tx, &space.id, &cr).await?;
    if current.status == "merged" {
        return Err(ApiError::conflict("a merged change request cannot change"));
    }
    let mut updated = current.clone();
    if let Some(text) = &body.subject {
        updated.subject = subject(text)?;
    }
    if let Some(status) = body.status {
        if matches!(status, Status::Merged) {
            return Err(ApiError::bad_request(
                "status merged is set by merging, not by an update",
            ));
        }
        updated.status = status.as_str().to_owned();
    }
    updated.updated_at = state.now();
    if !change_requests::update_if_head(&mut tx, &updated, &current.revision_id).await? {
        return Err(ApiError::conflict("the change request changed meanwhile: retry"));
    }
    let view = render(&state, &mut tx, updated, &space.revision_id).await?;
    tx.commit().await?;
    Ok(Json(view))
}

async fn merge(
    State(state): State<AppState>,
    caller: Caller,
    Path((space_id, cr)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Review, "merge change requests").await?;
    let cr = load(&mut conn, &space.id, &cr).await?;
    drop(conn);
    let result = state.engine.merge_change_request(&space, &cr, caller.id()).await?;
    Ok(Json(json!({ "revision": result.revision, "result": "merge" })))
}

async fn update_from_space(
    State(state): State<AppState>,
    caller: Caller,
    Path((space_id, cr)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Edit, "update change requests").await?;
    let cr = load(&mut conn, &space.id, &cr).await?;
    drop(conn);
    let result = state.engine.update_change_request(&space, &cr, caller.id()).await?;
    Ok(Json(json!({ "revision": result.revision, "result": "update" })))
}

#[derive(Debug, Deserialize)]
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
    caller: Caller,
    Path((space_id, cr)): Path<(String, String)>,
    Query(query): Query<CompatQuery>,
    JsonBody(body): JsonBody<ContentBody>,
) -> ApiResult<Json<Value>> {
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Edit, "edit content").await?;
    let cr = load(&mut conn, &space.id, &cr).await?;
    drop(conn);
    let (updated, applied) = state
        .engine
        .apply_changes(&space, &cr, body.changes, caller.id())
        .await?;
    let mut conn = state.db.read().await?;
    let view = serde_json::to_value(render(&state, &mut conn, updated, &space.revision_id).await?)
        .map_err(|e| ApiError::Internal(e.into()))?;
    if query.compat.unwrap_or(true) {
        return Ok(Json(view));
    }
    let page_ref = |id: &str| json!({ "object": "page", "id": id, "urls": { "location": state.api_url(&format!("/spaces/{space_id}/change-requests/{}/content/page/{id}", cr.id)) } });
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
    Ok(Json(json!({ "changeRequest": view, "changes": changes })))
}
