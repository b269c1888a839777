//! PDFs of a space or a change request (`only` and `page` select one page,
//! or a page with its subpages), answered as `{url}`: a download link that
//! works for an hour without a token, served by [`downloads`] at
//! `/~pdf/{token}`.

use crate::PdfRequest;
use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use quire_app::content::Source;
use serde::Deserialize;
use serde_json::{Value, json};

use quire_http::auth::Auth;
use quire_http::error::{ApiError, ApiResult};
use quire_http::extract::{Path, Query};
use quire_http::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/spaces/{spaceId}/pdf", get(space_pdf)).route(
        "/spaces/{spaceId}/change-requests/{changeRequestId}/pdf",
        get(change_request_pdf),
    )
}

/// The download links, outside `/v1`.
pub fn downloads() -> Router<AppState> {
    Router::new().route("/~pdf/{token}", get(download))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PdfQuery {
    only: Option<bool>,
    page: Option<String>,
}

impl PdfQuery {
    fn request(self) -> PdfRequest {
        PdfRequest {
            page: self.page.filter(|p| !p.is_empty()),
            only: self.only.unwrap_or(false),
        }
    }
}

fn answer(state: &AppState, link: crate::PdfLink) -> Json<Value> {
    Json(json!({ "url": state.app_url(&format!("/~pdf/{}", link.token)) }))
}

async fn space_pdf(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(space_id): Path<String>,
    Query(query): Query<PdfQuery>,
) -> ApiResult<Json<Value>> {
    let link = crate::export(&state.app, &caller, &space_id, &Source::Main, &query.request()).await?;
    Ok(answer(&state, link))
}

async fn change_request_pdf(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((space_id, change_request_id)): Path<(String, String)>,
    Query(query): Query<PdfQuery>,
) -> ApiResult<Json<Value>> {
    let source = Source::ChangeRequest(change_request_id);
    let link = crate::export(&state.app, &caller, &space_id, &source, &query.request()).await?;
    Ok(answer(&state, link))
}

/// The PDF behind a link (404 once it expired).
async fn download(State(state): State<AppState>, Path(token): Path<String>) -> ApiResult<Response> {
    let (file_name, bytes) = crate::download(&state.app, &token).await?;
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/pdf")
        .header(header::CONTENT_LENGTH, bytes.len())
        .header(
            header::CONTENT_DISPOSITION,
            quire_http::files::disposition_value("inline", &file_name),
        )
        .header(header::CACHE_CONTROL, "private, max-age=3600")
        .header("x-robots-tag", "noindex")
        .body(Body::from(bytes))
        .map_err(|e| ApiError::Internal(e.into()))
}
