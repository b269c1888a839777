//! Reading content — of the space (its current revision), of a change
//! request (its head) or of any revision by id — plus links, backlinks,
//! file downloads and templates.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_content::objects::FileObject;
use quire_core::Role;
use quire_engine::Snapshot;
use quire_engine::links::{Link, Target};
use quire_store::page::PageRequest;
use quire_store::spaces::SpaceRow;
use quire_store::{Keyset, Page, SortKey};
use serde::Deserialize;
use serde_json::{Value, json};

use super::change_requests::{load as load_cr, render as render_cr, space_with_role};
use crate::auth::Caller;
use crate::content_views::{ContentContext, Page as ContentPage, Pages, Revision};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    let mut router = Router::new()
        .route("/spaces/{space}/content", get(read_revision))
        .route("/spaces/{space}/links", get(read_links))
        .route("/spaces/{space}/content/template", post(apply_template))
        .route("/spaces/{space}/revisions/{rev}", get(read_revision))
        .route("/spaces/{space}/revisions/{rev}/files/{file}/download", get(download));
    // The same reads under the space's content, a change request's content
    // and a revision; `ContentPath` tells them apart by the path parameters.
    for base in [
        "/spaces/{space}/content",
        "/spaces/{space}/change-requests/{cr}/content",
        "/spaces/{space}/revisions/{rev}",
    ] {
        router = router
            .route(&format!("{base}/pages"), get(read_pages))
            .route(&format!("{base}/page/{{page}}"), get(read_page))
            .route(&format!("{base}/path/{{*path}}"), get(read_page_by_path))
            .route(&format!("{base}/files"), get(read_files))
            .route(&format!("{base}/files/{{file}}"), get(read_file));
    }
    for base in [
        "/spaces/{space}/content",
        "/spaces/{space}/change-requests/{cr}/content",
    ] {
        router = router
            .route(&format!("{base}/files/{{file}}/backlinks"), get(read_backlinks))
            .route(&format!("{base}/page/{{page}}/links"), get(read_links));
    }
    router
}

/// Which content a read addresses.
#[derive(Debug, Clone)]
enum Source {
    Main,
    ChangeRequest(String),
    Revision(String),
}

/// The path parameters of a content read: the space, the source and, as the
/// route has them, a page, a file or a page path.
pub(crate) struct ContentPath {
    space: String,
    source: Source,
    page: Option<String>,
    file: Option<String>,
    path: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for ContentPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(mut params) = Path::<HashMap<String, String>>::from_request_parts(parts, state).await?;
        let space = params.remove("space").ok_or_else(|| ApiError::not_found("route"))?;
        let source = match (params.remove("cr"), params.remove("rev")) {
            (Some(cr), _) => Source::ChangeRequest(cr),
            (None, Some(rev)) => Source::Revision(rev),
            (None, None) => Source::Main,
        };
        Ok(ContentPath {
            space,
            source,
            page: params.remove("page"),
            file: params.remove("file"),
            path: params.remove("path"),
        })
    }
}

impl ContentPath {
    fn page(&self) -> ApiResult<&str> {
        self.page.as_deref().ok_or_else(|| ApiError::not_found("page"))
    }

    fn file(&self) -> ApiResult<&str> {
        self.file.as_deref().ok_or_else(|| ApiError::not_found("file"))
    }
}

/// The space (readable by the caller) and the snapshot a source names.
async fn open(state: &AppState, caller: &Caller, at: &ContentPath) -> ApiResult<(SpaceRow, Arc<Snapshot>)> {
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, caller, &at.space, Role::Read, "read its content").await?;
    let revision = match &at.source {
        Source::Main => space.revision_id.clone(),
        Source::ChangeRequest(cr) => load_cr(&mut conn, &space.id, cr).await?.revision_id,
        Source::Revision(id) => id.clone(),
    };
    drop(conn);
    let snapshot = state.engine.snapshot(&space.id, &revision).await?;
    Ok((space, snapshot))
}

/// `metadata` and `computed` are accepted: Quire keeps no mutable git
/// metadata apart from content and computes nothing, so both are no-ops.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub(crate) struct RevisionQuery {
    metadata: Option<bool>,
    computed: Option<bool>,
}

pub(crate) async fn read_revision(
    State(state): State<AppState>,
    caller: Caller,
    at: ContentPath,
) -> ApiResult<Json<Revision>> {
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let merged_from = match &snapshot.revision.merged_from {
        Some(cr) => {
            let mut conn = state.db.read().await?;
            let row = load_cr(&mut conn, &space.id, cr).await?;
            let view = render_cr(&state, &mut conn, row, &space.revision_id).await?;
            Some(serde_json::to_value(view).map_err(|e| ApiError::Internal(e.into()))?)
        }
        None => None,
    };
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    Ok(Json(ctx.revision(&snapshot, merged_from)))
}

async fn read_pages(State(state): State<AppState>, caller: Caller, at: ContentPath) -> ApiResult<Json<Pages>> {
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    Ok(Json(Pages {
        pages: ctx.pages(&snapshot),
    }))
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Format {
    #[default]
    Document,
    Markdown,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct PageQuery {
    #[serde(default)]
    format: Format,
    evaluated: Option<bool>,
    metadata: Option<bool>,
    computed: Option<bool>,
}

/// A page with its body in the requested format (the JSON document by default).
async fn page_view(
    state: &AppState,
    space: &SpaceRow,
    snapshot: &Snapshot,
    page_id: &str,
    format: Format,
) -> ApiResult<ContentPage> {
    if !snapshot.tree.pages.contains_key(page_id) {
        return Err(ApiError::not_found("page"));
    }
    let ctx = ContentContext {
        state,
        space_id: &space.id,
    };
    let mut view = ctx.page(snapshot, page_id);
    if let Some(hash) = &snapshot.tree.pages[page_id].meta.document {
        let text = state.engine.document(hash).await?;
        match format {
            Format::Markdown => view.markdown = Some(text.to_string()),
            Format::Document => view.document = Some(quire_content::document::markdown_to_document(&text)),
        }
    }
    Ok(view)
}

async fn read_page(
    State(state): State<AppState>,
    caller: Caller,
    at: ContentPath,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<ContentPage>> {
    let (space, snapshot) = open(&state, &caller, &at).await?;
    Ok(Json(
        page_view(&state, &space, &snapshot, at.page()?, query.format).await?,
    ))
}

async fn read_page_by_path(
    State(state): State<AppState>,
    caller: Caller,
    at: ContentPath,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<ContentPage>> {
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let path = at.path.as_deref().unwrap_or_default();
    let id = snapshot.page_by_path(path).ok_or_else(|| ApiError::not_found("page"))?;
    Ok(Json(page_view(&state, &space, &snapshot, &id, query.format).await?))
}

/// Lists computed from a revision page by position.
const IN_REVISION_ORDER: ListOrder = ListOrder::ascending_by("position");

/// Files in revision order, paged by position.
async fn read_files(
    State(state): State<AppState>,
    caller: Caller,
    at: ContentPath,
    page: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = page.request(IN_REVISION_ORDER)?;
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    let files: Vec<&FileObject> = snapshot.files.iter().map(|(_, f)| f).collect();
    let page = page_by_position(files, &request);
    Ok(Json(List::from_page(page, IN_REVISION_ORDER, |f| {
        ctx.file(&snapshot, f)
    })))
}

/// One page of a list computed in memory from a revision, in its order; the
/// cursor is the position of the last item.
fn page_by_position<T>(items: Vec<T>, request: &PageRequest) -> Page<T> {
    let start = request
        .after
        .as_ref()
        .and_then(|a| a.id.parse::<usize>().ok())
        .map_or(0, |i| i + 1);
    let total = items.len() as i64;
    let rows: Vec<(usize, T)> = items
        .into_iter()
        .enumerate()
        .skip(start)
        .take(request.limit as usize + 1)
        .collect();
    let page = request.finish(rows, total, |(i, _)| Keyset {
        key: SortKey::Int(*i as i64),
        id: i.to_string(),
    });
    Page {
        items: page.items.into_iter().map(|(_, item)| item).collect(),
        next: page.next,
        total: page.total,
    }
}

async fn read_file(State(state): State<AppState>, caller: Caller, at: ContentPath) -> ApiResult<Json<Value>> {
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let file = snapshot.file(at.file()?).ok_or_else(|| ApiError::not_found("file"))?;
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    Ok(Json(ctx.file(&snapshot, file)))
}

/// The bytes of a file (the `downloadURL` of file objects); the caller
/// needs read access to the space.
async fn download(State(state): State<AppState>, caller: Caller, at: ContentPath) -> ApiResult<Response> {
    let (_, snapshot) = open(&state, &caller, &at).await?;
    let file = snapshot.file(at.file()?).ok_or_else(|| ApiError::not_found("file"))?;
    let bytes = state
        .engine
        .blobs
        .get(&file.blob)
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, &file.content_type)
        .header(header::CONTENT_LENGTH, bytes.len())
        .header(header::CACHE_CONTROL, "private, max-age=31536000, immutable")
        .body(Body::from(bytes))
        .map_err(|e| ApiError::Internal(e.into()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum LinkStatus {
    Ok,
    Broken,
    InApp,
}

#[derive(Debug, Deserialize)]
struct LinkQuery {
    status: Option<LinkStatus>,
}

fn link_status(target: &Target) -> LinkStatus {
    match target {
        Target::Missing(_) => LinkStatus::Broken,
        Target::InApp(_) => LinkStatus::InApp,
        _ => LinkStatus::Ok,
    }
}

fn target_reference(space_id: &str, target: &Target) -> Value {
    match target {
        Target::Page(id) => json!({ "kind": "page", "page": id, "space": space_id }),
        Target::File(id) => json!({ "kind": "file", "file": id, "space": space_id }),
        Target::Url(url) | Target::InApp(url) | Target::Missing(url) => json!({ "kind": "url", "url": url }),
    }
}

/// Links of the whole revision, or of one page: one item per target and
/// relation, with every page that makes it.
#[allow(clippy::too_many_arguments)]
async fn read_links(
    State(state): State<AppState>,
    caller: Caller,
    at: ContentPath,
    params: PageParams,
    Query(query): Query<LinkQuery>,
) -> ApiResult<Json<Value>> {
    let request = params.request(IN_REVISION_ORDER)?;
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let page = at.page.clone();
    if let Some(page) = &page
        && !snapshot.tree.pages.contains_key(page)
    {
        return Err(ApiError::not_found("page"));
    }
    let all = state.engine.links(&snapshot, &state.public_url).await?;
    let mut grouped: Vec<(Target, &'static str, Vec<String>)> = Vec::new();
    for Link {
        source: from,
        relation,
        target,
    } in all
    {
        if page.as_ref().is_some_and(|p| *p != from) {
            continue;
        }
        match grouped
            .iter_mut()
            .find(|(t, r, _)| *t == target && *r == relation.as_str())
        {
            Some((_, _, pages)) => {
                if !pages.contains(&from) {
                    pages.push(from);
                }
            }
            None => grouped.push((target, relation.as_str(), vec![from])),
        }
    }
    let broken = grouped
        .iter()
        .filter(|(t, _, _)| link_status(t) == LinkStatus::Broken)
        .count();
    let total = grouped.len();
    let filtered: Vec<_> = grouped
        .into_iter()
        .filter(|(t, _, _)| query.status.is_none_or(|s| link_status(t) == s))
        .collect();
    let page = page_by_position(filtered, &request);
    let in_cr = matches!(at.source, Source::ChangeRequest(_));
    let list = List::from_page(page, IN_REVISION_ORDER, |(target, relation, pages)| {
        json!({
            "status": match link_status(&target) { LinkStatus::Ok => "ok", LinkStatus::Broken => "broken", LinkStatus::InApp => "in-app" },
            "relation": relation,
            "targetReference": target_reference(&space.id, &target),
            "locationReferences": pages.iter().map(|p| json!({ "kind": "page", "page": p, "space": space.id })).collect::<Vec<_>>(),
        })
    });
    let mut body = serde_json::to_value(list).map_err(|e| ApiError::Internal(e.into()))?;
    body["stats"] =
        json!({ "total": total, "broken": { "total": broken, "changeRequest": if in_cr { broken } else { 0 } } });
    Ok(Json(body))
}

/// The pages of the revision that reference a file.
async fn read_backlinks(
    State(state): State<AppState>,
    caller: Caller,
    at: ContentPath,
    params: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = params.request(IN_REVISION_ORDER)?;
    let (space, snapshot) = open(&state, &caller, &at).await?;
    let file_id = at.file()?.to_owned();
    if snapshot.file(&file_id).is_none() {
        return Err(ApiError::not_found("file"));
    }
    let mut pages: Vec<String> = Vec::new();
    for link in state.engine.links(&snapshot, &state.public_url).await? {
        if link.target == Target::File(file_id.clone()) && !pages.contains(&link.source) {
            pages.push(link.source);
        }
    }
    let page = page_by_position(pages, &request);
    let context = match &at.source {
        Source::ChangeRequest(cr) => json!({ "type": "changeRequest", "changeRequest": cr }),
        _ => json!({ "type": "revision", "revision": snapshot.revision.id }),
    };
    Ok(Json(List::from_page(page, IN_REVISION_ORDER, |page| {
        json!({
            "kind": "page",
            "organization": space.organization_id,
            "space": space.id,
            "versionContext": context,
            "page": page,
            "file": file_id,
        })
    })))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TemplateBody {
    id: String,
    change_request_id: Option<String>,
}

/// Applies a built-in template to the space's content (or to a change request).
async fn apply_template(
    State(state): State<AppState>,
    caller: Caller,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<TemplateBody>,
) -> ApiResult<StatusCode> {
    let changes = quire_engine::templates::template(&body.id).ok_or_else(|| {
        ApiError::bad_request(format!(
            "unknown template {:?}: use one of {}",
            body.id,
            quire_engine::templates::TEMPLATES.join(", ")
        ))
    })?;
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, &caller, &space_id, Role::Edit, "apply templates").await?;
    match &body.change_request_id {
        Some(cr) => {
            let cr = load_cr(&mut conn, &space.id, cr).await?;
            drop(conn);
            state.engine.apply_changes(&space, &cr, changes, caller.id()).await?;
        }
        None => {
            drop(conn);
            state.engine.apply_to_space(&space, changes, caller.id()).await?;
        }
    }
    Ok(StatusCode::CREATED)
}
