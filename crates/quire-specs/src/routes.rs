//! OpenAPI specs of an organization and their versions.

use crate::{NewSpec, SpecSource, VisibilityUpdate};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::views;
use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path};
use quire_http::pagination::{List, ListOrder, PageParams};
use quire_http::state::AppState;

const SPEC_ORDER: ListOrder = ListOrder::by_text("slug", false);
const VERSION_ORDER: ListOrder = ListOrder::by_int("createdAt", true);

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/openapi", get(list_specs).post(create_spec))
        .route(
            "/orgs/{organizationId}/openapi/{specSlug}",
            get(get_spec).put(put_spec).patch(update_spec).delete(delete_spec),
        )
        .route("/orgs/{organizationId}/openapi/{specSlug}/versions", get(list_versions))
        .route(
            "/orgs/{organizationId}/openapi/{specSlug}/versions/latest",
            get(latest_version),
        )
        .route(
            "/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content",
            get(latest_content),
        )
        .route(
            "/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content/raw",
            get(latest_raw),
        )
        .route(
            "/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}",
            get(get_version),
        )
        .route(
            "/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content",
            get(version_content),
        )
}

async fn list_specs(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<views::Spec>>> {
    let request = page.request(SPEC_ORDER)?;
    let specs = crate::list(&state.app, &caller, &org_id, &request).await?;
    Ok(Json(List::from_page(specs, SPEC_ORDER, |s| views::spec(&state, s))))
}

async fn create_spec(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewSpec>,
) -> ApiResult<(StatusCode, Json<views::Spec>)> {
    let spec = crate::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::spec(&state, spec))))
}

async fn get_spec(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
) -> ApiResult<Json<views::Spec>> {
    let spec = crate::get(&state.app, &caller, &org_id, &slug).await?;
    Ok(Json(views::spec(&state, spec)))
}

async fn put_spec(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
    JsonBody(body): JsonBody<SpecSource>,
) -> ApiResult<(StatusCode, Json<views::Spec>)> {
    let (spec, created) = crate::put(&state.app, &caller, &org_id, &slug, body.source).await?;
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(views::spec(&state, spec))))
}

async fn update_spec(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
    JsonBody(body): JsonBody<VisibilityUpdate>,
) -> ApiResult<Json<views::Spec>> {
    let spec = crate::set_visibility(&state.app, &caller, &org_id, &slug, &body.visibility).await?;
    Ok(Json(views::spec(&state, spec)))
}

async fn delete_spec(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    crate::delete(&state.app, &caller, &org_id, &slug).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_versions(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<views::Version>>> {
    let request = page.request(VERSION_ORDER)?;
    let spec = crate::get(&state.app, &caller, &org_id, &slug).await?.spec;
    let versions = crate::versions(&state.app, &caller, &org_id, &slug, &request).await?;
    Ok(Json(List::from_page(versions, VERSION_ORDER, |v| {
        views::version(&state, &spec, v)
    })))
}

async fn latest_version(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
) -> ApiResult<Json<views::Version>> {
    let (spec, version) = crate::version(&state.app, &caller, &org_id, &slug, "latest").await?;
    Ok(Json(views::version(&state, &spec, version)))
}

async fn get_version(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug, version_id)): Path<(String, String, String)>,
) -> ApiResult<Json<views::Version>> {
    let (spec, version) = crate::version(&state.app, &caller, &org_id, &slug, &version_id).await?;
    Ok(Json(views::version(&state, &spec, version)))
}

async fn latest_content(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let (spec, version) = crate::version(&state.app, &caller, &org_id, &slug, "latest").await?;
    Ok(Json(views::content(&state, &spec, &version)))
}

async fn version_content(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug, version_id)): Path<(String, String, String)>,
) -> ApiResult<Json<Value>> {
    let (spec, version) = crate::version(&state.app, &caller, &org_id, &slug, &version_id).await?;
    Ok(Json(views::content(&state, &spec, &version)))
}

async fn latest_raw(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, slug)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let (_, version) = crate::version(&state.app, &caller, &org_id, &slug, "latest").await?;
    Ok(Json(json!({ "text": version.content, "format": version.format })))
}
