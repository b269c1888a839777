//! Reading content — of the space (its current revision), of a change
//! request (its head) or of any revision by id — plus links, backlinks,
//! file downloads and templates.

use std::collections::HashMap;

use axum::body::Body;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_app::content::{self, LinkStatus, Source};
use quire_engine::Snapshot;
use quire_engine::links::Target;
use quire_store::Page;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::auth::Auth;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views::content::{self as views, ContentContext, Page as PageView, Pages, Revision};

/// The same reads exist under a space's content, a change request's content
/// and a revision; [`ContentPath`] tells them apart by their parameters.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/spaces/{spaceId}/content", get(read_revision))
        .route("/spaces/{spaceId}/content/pages", get(read_pages))
        .route("/spaces/{spaceId}/content/page/{pageId}", get(read_page))
        .route("/spaces/{spaceId}/content/page/{pageId}/links", get(read_links))
        .route("/spaces/{spaceId}/content/path/{*pagePath}", get(read_page_by_path))
        .route("/spaces/{spaceId}/content/files", get(read_files))
        .route("/spaces/{spaceId}/content/files/{fileId}", get(read_file))
        .route(
            "/spaces/{spaceId}/content/files/{fileId}/backlinks",
            get(read_backlinks),
        )
        .route("/spaces/{spaceId}/content/template", post(apply_template))
        .route("/spaces/{spaceId}/links", get(read_links))
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content",
            get(read_revision),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages",
            get(read_pages),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}",
            get(read_page),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links",
            get(read_links),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/path/{*pagePath}",
            get(read_page_by_path),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files",
            get(read_files),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}",
            get(read_file),
        )
        .route(
            "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks",
            get(read_backlinks),
        )
        .route("/spaces/{spaceId}/revisions", get(read_history))
        .route("/spaces/{spaceId}/revisions/{revisionId}", get(read_revision))
        .route("/spaces/{spaceId}/revisions/{revisionId}/pages", get(read_pages))
        .route("/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}", get(read_page))
        .route(
            "/spaces/{spaceId}/revisions/{revisionId}/path/{*pagePath}",
            get(read_page_by_path),
        )
        .route("/spaces/{spaceId}/revisions/{revisionId}/files", get(read_files))
        .route(
            "/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}",
            get(read_file),
        )
        .route(
            "/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}/download",
            get(download),
        )
}

/// The path parameters of a content read: the space, the source and, as the
/// route has them, a page, a file or a page path.
struct ContentPath {
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
        let space = params
            .remove("spaceId")
            .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("a content route without {{spaceId}}")))?;
        let source = match (params.remove("changeRequestId"), params.remove("revisionId")) {
            (Some(cr), _) => Source::ChangeRequest(cr),
            (None, Some(revision)) => Source::Revision(revision),
            (None, None) => Source::Main,
        };
        Ok(ContentPath {
            space,
            source,
            page: params.remove("pageId"),
            file: params.remove("fileId"),
            path: params.remove("pagePath"),
        })
    }
}

impl ContentPath {
    async fn open(&self, state: &AppState, caller: &quire_app::Caller) -> ApiResult<std::sync::Arc<Snapshot>> {
        Ok(content::open(&state.app, caller, &self.space, &self.source).await?.1)
    }

    fn file(&self) -> &str {
        self.file.as_deref().unwrap_or_default()
    }

    fn context<'a>(&'a self, state: &'a AppState) -> ContentContext<'a> {
        ContentContext {
            state,
            space_id: &self.space,
        }
    }
}

/// `metadata` and `computed` are accepted: Quire keeps no mutable git
/// metadata apart from content and computes nothing, so both are no-ops.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct RevisionQuery {
    metadata: Option<bool>,
    computed: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryQuery {
    /// Only the revisions that changed this page.
    page_id: Option<String>,
    /// Where the page of history starts (the `next.page` of the last one).
    page: Option<String>,
    limit: Option<usize>,
}

/// `GET /spaces/{spaceId}/revisions` (Quire's addition): the space's main
/// line, newest first, 20 at a time.
async fn read_history(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space): Path<String>,
    Query(query): Query<HistoryQuery>,
) -> ApiResult<Json<Value>> {
    let history = quire_app::history::history(
        &state.app,
        &caller,
        &space,
        query.page_id.as_deref(),
        query.page.as_deref(),
        query.limit.unwrap_or(20),
    )
    .await?;
    let items: Vec<Value> = history
        .entries
        .into_iter()
        .map(|entry| views::history_entry(&state, &space, entry))
        .collect();
    Ok(Json(
        json!({ "items": items, "next": history.next.map(|page| json!({ "page": page })) }),
    ))
}

async fn read_revision(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: ContentPath,
    Query(_): Query<RevisionQuery>,
) -> ApiResult<Json<Revision>> {
    let (_, snapshot, merged_from) = content::revision(&state.app, &caller, &at.space, &at.source).await?;
    let merged_from = merged_from.map(|cr| views::change_request(&state, cr));
    Ok(Json(at.context(&state).revision(&snapshot, merged_from)))
}

async fn read_pages(State(state): State<AppState>, Auth(caller): Auth, at: ContentPath) -> ApiResult<Json<Pages>> {
    let snapshot = at.open(&state, &caller).await?;
    Ok(Json(Pages {
        pages: at.context(&state).pages(&snapshot),
    }))
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Format {
    #[default]
    Document,
    Markdown,
}

/// `evaluated`, `metadata` and `computed` are accepted no-ops.
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
    at: &ContentPath,
    snapshot: &Snapshot,
    page_id: &str,
    format: Format,
) -> ApiResult<PageView> {
    let markdown = content::page_markdown(&state.app, snapshot, page_id).await?;
    let mut view = at.context(state).page(snapshot, page_id);
    if let Some(text) = markdown {
        match format {
            Format::Markdown => view.markdown = Some(text.to_string()),
            Format::Document => {
                view.document = Some(quire_content::document::page_document(&text, &view.title));
            }
        }
    }
    Ok(view)
}

async fn read_page(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: ContentPath,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<PageView>> {
    let snapshot = at.open(&state, &caller).await?;
    let page = at.page.as_deref().unwrap_or_default();
    Ok(Json(page_view(&state, &at, &snapshot, page, query.format).await?))
}

async fn read_page_by_path(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: ContentPath,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<PageView>> {
    let snapshot = at.open(&state, &caller).await?;
    let page = content::page_by_path(&snapshot, at.path.as_deref().unwrap_or_default())?;
    Ok(Json(page_view(&state, &at, &snapshot, &page, query.format).await?))
}

/// Lists computed from a revision page by position.
const IN_REVISION_ORDER: ListOrder = ListOrder::ascending_by("position");

/// Files in revision order.
async fn read_files(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: ContentPath,
    page: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = page.request(IN_REVISION_ORDER)?;
    let snapshot = at.open(&state, &caller).await?;
    let files = Page::of_list(snapshot.files.iter().map(|(_, f)| f).collect(), &request);
    let ctx = at.context(&state);
    Ok(Json(List::from_page(files, IN_REVISION_ORDER, |f| {
        ctx.file(&snapshot, f)
    })))
}

async fn read_file(State(state): State<AppState>, Auth(caller): Auth, at: ContentPath) -> ApiResult<Json<Value>> {
    let snapshot = at.open(&state, &caller).await?;
    let file = content::file(&snapshot, at.file())?;
    Ok(Json(at.context(&state).file(&snapshot, file)))
}

/// The bytes of a file (the `downloadURL` of file objects); the caller
/// needs read access to the space. Served as `quire_http::files` says: an
/// uploaded page or SVG is an attachment in a sandbox, never active on the
/// web application's origin.
async fn download(State(state): State<AppState>, Auth(caller): Auth, at: ContentPath) -> ApiResult<Response> {
    let (file, bytes) = content::download(&state.app, &caller, &at.space, &at.source, at.file()).await?;
    let mut response = Response::new(Body::from(bytes));
    let headers = response.headers_mut();
    quire_http::files::headers(headers, &file.content_type, &file.name);
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=31536000, immutable"),
    );
    Ok(response)
}

#[derive(Debug, Deserialize)]
struct LinkQuery {
    status: Option<LinkStatus>,
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
async fn read_links(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: ContentPath,
    params: PageParams,
    Query(query): Query<LinkQuery>,
) -> ApiResult<Json<Value>> {
    let request = params.request(IN_REVISION_ORDER)?;
    let snapshot = at.open(&state, &caller).await?;
    let report = content::links(
        &state.app,
        &snapshot,
        at.page.as_deref(),
        query.status,
        &state.public_url,
    )
    .await?;
    let groups = Page::of_list(report.groups, &request);
    let list = List::from_page(groups, IN_REVISION_ORDER, |group| {
        json!({
            "status": LinkStatus::of(&group.target).as_str(),
            "relation": group.relation,
            "targetReference": target_reference(&at.space, &group.target),
            "locationReferences": group.pages.iter().map(|p| json!({ "kind": "page", "page": p, "space": at.space })).collect::<Vec<_>>(),
        })
    });
    let in_cr = matches!(at.source, Source::ChangeRequest(_));
    let mut body = serde_json::to_value(list).map_err(|e| ApiError::Internal(e.into()))?;
    body["stats"] = json!({
        "total": report.total,
        "broken": { "total": report.broken, "changeRequest": if in_cr { report.broken } else { 0 } },
    });
    Ok(Json(body))
}

/// The pages of the revision that reference a file.
async fn read_backlinks(
    State(state): State<AppState>,
    Auth(caller): Auth,
    at: ContentPath,
    params: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = params.request(IN_REVISION_ORDER)?;
    let (space, snapshot) = content::open(&state.app, &caller, &at.space, &at.source).await?;
    let pages = content::backlinks(&state.app, &snapshot, at.file(), &state.public_url).await?;
    let context = match &at.source {
        Source::ChangeRequest(cr) => json!({ "type": "changeRequest", "changeRequest": cr }),
        _ => json!({ "type": "revision", "revision": snapshot.revision.id }),
    };
    Ok(Json(List::from_page(
        Page::of_list(pages, &request),
        IN_REVISION_ORDER,
        |page| {
            json!({
                "kind": "page",
                "organization": space.organization_id,
                "space": space.id,
                "versionContext": context,
                "page": page,
                "file": at.file(),
            })
        },
    )))
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
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    JsonBody(body): JsonBody<TemplateBody>,
) -> ApiResult<StatusCode> {
    content::apply_template(
        &state.app,
        &caller,
        &space_id,
        &body.id,
        body.change_request_id.as_deref(),
    )
    .await?;
    Ok(StatusCode::CREATED)
}
