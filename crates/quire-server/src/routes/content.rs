//! Reading content — of the space (its current revision), of a change
//! request (its head) or of any revision by id — plus links, backlinks,
//! file downloads and templates.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_core::Role;
use quire_engine::Snapshot;
use quire_engine::links::{Link, Target};
use quire_store::spaces::SpaceRow;
use serde::Deserialize;
use serde_json::{Value, json};

use super::change_requests::{load as load_cr, render as render_cr, space_with_role};
use crate::auth::Caller;
use crate::content_views::ContentContext;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, Path, Query};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    let main = "/spaces/{space}/content";
    let cr = "/spaces/{space}/change-requests/{cr}/content";
    let rev = "/spaces/{space}/revisions/{rev}";
    Router::new()
        .route(main, get(main_revision))
        .route(
            &format!("{main}/pages"),
            get(|s: State<AppState>, c: Caller, Path(space): Path<String>| read_pages(s, c, space, Source::Main)),
        )
        .route(
            &format!("{main}/page/{{page}}"),
            get(
                |s: State<AppState>, c: Caller, Path((space, page)): Path<(String, String)>, q: Query<PageQuery>| {
                    read_page(s, c, space, Source::Main, page, q)
                },
            ),
        )
        .route(
            &format!("{main}/path/{{*path}}"),
            get(
                |s: State<AppState>, c: Caller, Path((space, path)): Path<(String, String)>, q: Query<PageQuery>| {
                    read_page_by_path(s, c, space, Source::Main, path, q)
                },
            ),
        )
        .route(
            &format!("{main}/files"),
            get(
                |s: State<AppState>, c: Caller, Path(space): Path<String>, p: PageParams| {
                    read_files(s, c, space, Source::Main, p)
                },
            ),
        )
        .route(
            &format!("{main}/files/{{file}}"),
            get(
                |s: State<AppState>, c: Caller, Path((space, file)): Path<(String, String)>| {
                    read_file(s, c, space, Source::Main, file)
                },
            ),
        )
        .route(
            &format!("{main}/files/{{file}}/backlinks"),
            get(
                |s: State<AppState>, c: Caller, Path((space, file)): Path<(String, String)>, p: PageParams| {
                    read_backlinks(s, c, space, Source::Main, file, p)
                },
            ),
        )
        .route(
            &format!("{main}/page/{{page}}/links"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, page)): Path<(String, String)>,
                 p: PageParams,
                 q: Query<LinkQuery>| read_links(s, c, space, Source::Main, Some(page), p, q),
            ),
        )
        .route(
            "/spaces/{space}/links",
            get(
                |s: State<AppState>, c: Caller, Path(space): Path<String>, p: PageParams, q: Query<LinkQuery>| {
                    read_links(s, c, space, Source::Main, None, p, q)
                },
            ),
        )
        .route(&format!("{main}/template"), post(apply_template))
        .route(
            &format!("{cr}/pages"),
            get(
                |s: State<AppState>, c: Caller, Path((space, cr)): Path<(String, String)>| {
                    read_pages(s, c, space, Source::ChangeRequest(cr))
                },
            ),
        )
        .route(
            &format!("{cr}/page/{{page}}"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, cr, page)): Path<(String, String, String)>,
                 q: Query<PageQuery>| read_page(s, c, space, Source::ChangeRequest(cr), page, q),
            ),
        )
        .route(
            &format!("{cr}/path/{{*path}}"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, cr, path)): Path<(String, String, String)>,
                 q: Query<PageQuery>| {
                    read_page_by_path(s, c, space, Source::ChangeRequest(cr), path, q)
                },
            ),
        )
        .route(
            &format!("{cr}/files"),
            get(
                |s: State<AppState>, c: Caller, Path((space, cr)): Path<(String, String)>, p: PageParams| {
                    read_files(s, c, space, Source::ChangeRequest(cr), p)
                },
            ),
        )
        .route(
            &format!("{cr}/files/{{file}}"),
            get(
                |s: State<AppState>, c: Caller, Path((space, cr, file)): Path<(String, String, String)>| {
                    read_file(s, c, space, Source::ChangeRequest(cr), file)
                },
            ),
        )
        .route(
            &format!("{cr}/files/{{file}}/backlinks"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, cr, file)): Path<(String, String, String)>,
                 p: PageParams| read_backlinks(s, c, space, Source::ChangeRequest(cr), file, p),
            ),
        )
        .route(
            &format!("{cr}/page/{{page}}/links"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, cr, page)): Path<(String, String, String)>,
                 p: PageParams,
                 q: Query<LinkQuery>| {
                    read_links(s, c, space, Source::ChangeRequest(cr), Some(page), p, q)
                },
            ),
        )
        .route(
            rev,
            get(
                |s: State<AppState>, c: Caller, Path((space, rev)): Path<(String, String)>| {
                    read_revision(s, c, space, Source::Revision(rev))
                },
            ),
        )
        .route(
            &format!("{rev}/pages"),
            get(
                |s: State<AppState>, c: Caller, Path((space, rev)): Path<(String, String)>| {
                    read_pages(s, c, space, Source::Revision(rev))
                },
            ),
        )
        .route(
            &format!("{rev}/page/{{page}}"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, rev, page)): Path<(String, String, String)>,
                 q: Query<PageQuery>| read_page(s, c, space, Source::Revision(rev), page, q),
            ),
        )
        .route(
            &format!("{rev}/path/{{*path}}"),
            get(
                |s: State<AppState>,
                 c: Caller,
                 Path((space, rev, path)): Path<(String, String, String)>,
                 q: Query<PageQuery>| read_page_by_path(s, c, space, Source::Revision(rev), path, q),
            ),
        )
        .route(
            &format!("{rev}/files"),
            get(
                |s: State<AppState>, c: Caller, Path((space, rev)): Path<(String, String)>, p: PageParams| {
                    read_files(s, c, space, Source::Revision(rev), p)
                },
            ),
        )
        .route(
            &format!("{rev}/files/{{file}}"),
            get(
                |s: State<AppState>, c: Caller, Path((space, rev, file)): Path<(String, String, String)>| {
                    read_file(s, c, space, Source::Revision(rev), file)
                },
            ),
        )
        .route(&format!("{rev}/files/{{file}}/download"), get(download))
}

/// Which content a read addresses.
#[derive(Debug, Clone)]
enum Source {
    Main,
    ChangeRequest(String),
    Revision(String),
}

/// The space (readable by the caller) and the snapshot a source names.
async fn open(
    state: &AppState,
    caller: &Caller,
    space_id: &str,
    source: &Source,
) -> ApiResult<(SpaceRow, Arc<Snapshot>)> {
    let mut conn = state.db.read().await?;
    let (space, _) = space_with_role(&mut conn, caller, space_id, Role::Read, "read its content").await?;
    let revision = match source {
        Source::Main => space.revision_id.clone(),
        Source::ChangeRequest(cr) => load_cr(&mut conn, &space.id, cr).await?.revision_id,
        Source::Revision(id) => id.clone(),
    };
    drop(conn);
    let snapshot = state.engine.snapshot(&space.id, &revision).await?;
    Ok((space, snapshot))
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub(crate) struct RevisionQuery {
    metadata: Option<bool>,
    computed: Option<bool>,
}

async fn main_revision(
    State(state): State<AppState>,
    caller: Caller,
    Path(space): Path<String>,
    Query(_q): Query<RevisionQuery>,
) -> ApiResult<Json<Value>> {
    read_revision(State(state), caller, space, Source::Main).await
}

/// `GET .../change-requests/{cr}/content`: the change request's head revision.
pub(crate) async fn cr_revision(
    State(state): State<AppState>,
    caller: Caller,
    Path((space, cr)): Path<(String, String)>,
    Query(_q): Query<RevisionQuery>,
) -> ApiResult<Json<Value>> {
    read_revision(State(state), caller, space, Source::ChangeRequest(cr)).await
}

async fn read_revision(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
) -> ApiResult<Json<Value>> {
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
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

async fn read_pages(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
) -> ApiResult<Json<Value>> {
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    Ok(Json(json!({ "pages": ctx.pages(&snapshot) })))
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
) -> ApiResult<Value> {
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
            Format::Markdown => view["markdown"] = text.to_string().into(),
            Format::Document => view["document"] = quire_content::document::markdown_to_document(&text),
        }
    }
    Ok(view)
}

async fn read_page(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
    page_id: String,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<Value>> {
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
    Ok(Json(
        page_view(&state, &space, &snapshot, &page_id, query.format).await?,
    ))
}

async fn read_page_by_path(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
    path: String,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<Value>> {
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
    let id = snapshot
        .page_by_path(&path)
        .ok_or_else(|| ApiError::not_found("page"))?;
    Ok(Json(page_view(&state, &space, &snapshot, &id, query.format).await?))
}

const FILES_ORDER: ListOrder = ListOrder::ascending_by("file");

/// Files in revision order, paged by position.
async fn read_files(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
    page: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = page.request(FILES_ORDER)?;
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    let start = match &request.after {
        Some(after) => snapshot
            .files
            .iter()
            .position(|(_, f)| f.id == after.id)
            .map_or(snapshot.files.len(), |i| i + 1),
        None => 0,
    };
    let rows: Vec<(usize, &quire_content::objects::FileObject)> = snapshot
        .files
        .iter()
        .enumerate()
        .skip(start)
        .take(request.limit as usize + 1)
        .map(|(i, (_, f))| (i, f))
        .collect();
    let page = request.finish(rows, snapshot.files.len() as i64, |(i, f)| quire_store::Keyset {
        key: quire_store::SortKey::Int(*i as i64),
        id: f.id.clone(),
    });
    Ok(Json(List::from_page(page, FILES_ORDER, |(_, f)| {
        ctx.file(&snapshot, f)
    })))
}

async fn read_file(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
    file_id: String,
) -> ApiResult<Json<Value>> {
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
    let file = snapshot.file(&file_id).ok_or_else(|| ApiError::not_found("file"))?;
    let ctx = ContentContext {
        state: &state,
        space_id: &space.id,
    };
    Ok(Json(ctx.file(&snapshot, file)))
}

/// The bytes of a file (the `downloadURL` of file objects); the caller
/// needs read access to the space.
async fn download(
    State(state): State<AppState>,
    caller: Caller,
    Path((space_id, rev, file_id)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    let (_, snapshot) = open(&state, &caller, &space_id, &Source::Revision(rev)).await?;
    let file = snapshot.file(&file_id).ok_or_else(|| ApiError::not_found("file"))?;
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

const LINKS_ORDER: ListOrder = ListOrder::ascending_by("link");

/// Links of the whole revision, or of one page: one item per target and
/// relation, with every page that makes it.
#[allow(clippy::too_many_arguments)]
async fn read_links(
    State(state): State<AppState>,
    caller: Caller,
    space_id: String,
    source: Source,
    page: Option<String>,
    params: PageParams,
    Query(query): Query<LinkQuery>,
) -> ApiResult<Json<Value>> {
    let request = params.request(LINKS_ORDER)?;
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
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
    let count = filtered.len();
    let start = request
        .after
        .as_ref()
        .and_then(|a| a.id.parse::<usize>().ok())
        .map_or(0, |i| i + 1);
    let rows: Vec<(usize, (Target, &str, Vec<String>))> = filtered
        .into_iter()
        .enumerate()
        .skip(start)
        .take(request.limit as usize + 1)
        .collect();
    let page = request.finish(rows, count as i64, |(i, _)| quire_store::Keyset {
        key: quire_store::SortKey::Int(*i as i64),
        id: i.to_string(),
    });
    let in_cr = matches!(source, Source::ChangeRequest(_));
    let list = List::from_page(page, LINKS_ORDER, |(_, (target, relation, pages))| {
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
    space_id: String,
    source: Source,
    file_id: String,
    params: PageParams,
) -> ApiResult<Json<List<Value>>> {
    let request = params.request(LINKS_ORDER)?;
    let (space, snapshot) = open(&state, &caller, &space_id, &source).await?;
    if snapshot.file(&file_id).is_none() {
        return Err(ApiError::not_found("file"));
    }
    let mut pages: Vec<String> = Vec::new();
    for link in state.engine.links(&snapshot, &state.public_url).await? {
        if link.target == Target::File(file_id.clone()) && !pages.contains(&link.source) {
            pages.push(link.source);
        }
    }
    let count = pages.len();
    let start = request
        .after
        .as_ref()
        .and_then(|a| a.id.parse::<usize>().ok())
        .map_or(0, |i| i + 1);
    let rows: Vec<(usize, String)> = pages
        .into_iter()
        .enumerate()
        .skip(start)
        .take(request.limit as usize + 1)
        .collect();
    let page = request.finish(rows, count as i64, |(i, _)| quire_store::Keyset {
        key: quire_store::SortKey::Int(*i as i64),
        id: i.to_string(),
    });
    let context = match &source {
        Source::ChangeRequest(cr) => json!({ "type": "changeRequest", "changeRequest": cr }),
        _ => json!({ "type": "revision", "revision": snapshot.revision.id }),
    };
    Ok(Json(List::from_page(page, LINKS_ORDER, |(_, page)| {
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
