//! Sites: list, create, read, update, delete, publish and unpublish; their
//! adaptive schema and visitor authentication; their structure (sections, section groups, site spaces,
//! `sortSiteStructure`); their share links; their redirects.
//!
//! Deletes answer 204, also when there was nothing to delete; a redirect's
//! delete answers 205 when it deleted one (the official codes).

use crate::adaptive::{self, SchemaInput};
use crate::customization;
use crate::redirects::{self, ListQuery};
use crate::share_links::{self, NewShareLink, ShareLinkUpdate};
use crate::structure::{
    self, GroupSection, GroupUpdate, MoveBody, NewGroup, NewSection, NewSiteSpace, SectionPointer, SectionUpdate,
    SiteRef, SiteSpacePointer, SiteSpaceUpdate, SortInput, TypedPointer,
};
use crate::visitor::{self, PublishingAuthUpdate};
use crate::{NewSite, SiteListFilter, SiteUpdate};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use serde::Deserialize;

use crate::views;
use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path, Query};
use quire_http::pagination::{List, ListOrder, PageParams};
use quire_http::state::AppState;

const SITE_ORDER: ListOrder = ListOrder::ascending_by("createdAt");
const STRUCTURE_ORDER: ListOrder = ListOrder::ascending_by("position");
const REDIRECTS_BY_CREATION: ListOrder = ListOrder::by_int("createdAt", true);
const REDIRECTS_BY_UPDATE: ListOrder = ListOrder::by_int("updatedAt", true);
const REDIRECTS_BY_SOURCE: ListOrder = ListOrder::by_text("source", false);

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/sites", get(list_sites).post(create_site))
        .route(
            "/orgs/{organizationId}/sites/{siteId}",
            get(get_site).patch(update_site).delete(delete_site),
        )
        .route("/orgs/{organizationId}/sites/{siteId}/published", get(get_published))
        .route("/orgs/{organizationId}/sites/{siteId}/publish", post(publish_site))
        .route("/orgs/{organizationId}/sites/{siteId}/unpublish", post(unpublish_site))
        .route(
            "/orgs/{organizationId}/sites/{siteId}/adaptive-schema",
            get(get_adaptive_schema).put(put_adaptive_schema),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions",
            get(list_template_conditions),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/publishing/auth",
            get(get_publishing_auth).patch(update_publishing_auth),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate",
            post(regenerate_publishing_auth),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/customization",
            get(get_customization).put(put_customization),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization",
            get(get_site_space_customization)
                .patch(patch_site_space_customization)
                .delete(delete_site_space_customization),
        )
        .route("/orgs/{organizationId}/sites/{siteId}/structure", get(get_structure))
        .route(
            "/orgs/{organizationId}/sites/{siteId}/structure/sort",
            patch(sort_structure),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/share-links",
            get(list_share_links).post(create_share_link),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}",
            patch(update_share_link).delete(delete_share_link),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/redirects",
            get(list_redirects).post(create_redirect).put(bulk_upsert_redirects),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}",
            patch(update_redirect).delete(delete_redirect),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/redirect",
            get(get_redirect_by_source),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/sections",
            get(list_sections).post(add_section),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}",
            patch(update_section).delete(delete_section),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move",
            post(move_section),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/section-groups",
            get(list_section_groups).post(create_section_group),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}",
            patch(update_section_group).delete(delete_section_group),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections",
            post(add_section_to_group),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}",
            axum::routing::delete(remove_section_from_group),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move",
            post(move_section_group),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/site-spaces",
            get(list_site_spaces).post(add_site_space),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}",
            patch(update_site_space).delete(delete_site_space),
        )
        .route(
            "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move",
            post(move_site_space),
        )
}

// ---------------------------------------------------------------------------
// Sites
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct SiteListQuery {
    space: Option<String>,
    title: Option<String>,
    published: Option<bool>,
    #[serde(rename = "type")]
    site_type: Option<String>,
}

async fn list_sites(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
    Query(query): Query<SiteListQuery>,
) -> ApiResult<Json<List<views::Site>>> {
    let request = page.request(SITE_ORDER)?;
    let filter = SiteListFilter {
        space: query.space,
        title: query.title,
        published: query.published,
        types: query.site_type.into_iter().collect(),
    };
    let page = crate::list(&state.app, &caller, &org_id, filter, &request).await?;
    Ok(Json(List::from_page(page, SITE_ORDER, |s| views::site(&state, s))))
}

async fn create_site(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<NewSite>,
) -> ApiResult<(StatusCode, HeaderMap, Json<views::Site>)> {
    let site = views::site(&state, crate::create(&state.app, &caller, &org_id, body).await?);
    let mut headers = HeaderMap::new();
    if let Ok(location) = HeaderValue::from_str(&site.urls.location) {
        headers.insert(header::LOCATION, location);
    }
    Ok((StatusCode::CREATED, headers, Json(site)))
}

async fn get_site(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Site>> {
    let site = crate::get(&state.app, &caller, &org_id, &site_id).await?;
    Ok(Json(views::site(&state, site)))
}

async fn update_site(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<SiteUpdate>,
) -> ApiResult<Json<views::Site>> {
    let site = crate::update(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok(Json(views::site(&state, site)))
}

async fn delete_site(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    crate::delete(&state.app, &caller, &org_id, &site_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `?shareKey=`: lets a caller who is not a member read a shared site.
#[derive(Debug, Deserialize)]
struct ShareKeyQuery {
    #[serde(rename = "shareKey")]
    share_key: Option<String>,
}

fn site_ref<'a>(org_id: &'a str, site_id: &'a str, query: &'a ShareKeyQuery) -> SiteRef<'a> {
    SiteRef {
        org_id,
        site_id,
        share_key: query.share_key.as_deref(),
    }
}

async fn get_published(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    Query(query): Query<ShareKeyQuery>,
) -> ApiResult<Json<views::PublishedContentSite>> {
    let at = site_ref(&org_id, &site_id, &query);
    let content = crate::published_content(&state.app, &caller, at).await?;
    Ok(Json(views::published_content(&state, content)))
}

async fn publish_site(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Site>> {
    let site = crate::set_published(&state.app, &caller, &org_id, &site_id, true).await?;
    Ok(Json(views::site(&state, site)))
}

async fn unpublish_site(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::Site>> {
    let site = crate::set_published(&state.app, &caller, &org_id, &site_id, false).await?;
    Ok(Json(views::site(&state, site)))
}

async fn get_adaptive_schema(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::SiteAdaptiveSchema>> {
    let schema = adaptive::get(&state.app, &caller, &org_id, &site_id).await?;
    Ok(Json(views::adaptive_schema(schema)))
}

async fn put_adaptive_schema(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<SchemaInput>,
) -> ApiResult<Json<views::SiteAdaptiveSchema>> {
    let schema = adaptive::put(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok(Json(views::adaptive_schema(schema)))
}

async fn list_template_conditions(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::TemplateConditions>> {
    let items = adaptive::template(&state.app, &caller, &org_id, &site_id).await?;
    Ok(Json(views::template_conditions(items)))
}

async fn get_customization(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<serde_json::Value>> {
    let settings = customization::get(&state.app, &caller, &org_id, &site_id).await?;
    Ok(Json(views::customization(settings)))
}

async fn put_customization(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<Json<serde_json::Value>> {
    let settings = customization::put(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok(Json(views::customization(settings)))
}

async fn get_site_space_customization(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, site_space_id)): Path<(String, String, String)>,
) -> ApiResult<Json<serde_json::Value>> {
    let settings = customization::get_site_space(&state.app, &caller, &org_id, &site_id, &site_space_id).await?;
    Ok(Json(views::customization(settings)))
}

async fn patch_site_space_customization(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, site_space_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<Json<serde_json::Value>> {
    let settings =
        customization::patch_site_space(&state.app, &caller, &org_id, &site_id, &site_space_id, body).await?;
    Ok(Json(views::customization(settings)))
}

async fn delete_site_space_customization(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, site_space_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    customization::delete_site_space(&state.app, &caller, &org_id, &site_id, &site_space_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn get_publishing_auth(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::PublishingAuth>> {
    let auth = visitor::get(&state.app, &caller, &org_id, &site_id).await?;
    Ok(Json(views::publishing_auth(auth)))
}

async fn update_publishing_auth(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<PublishingAuthUpdate>,
) -> ApiResult<Json<views::PublishingAuth>> {
    let auth = visitor::update(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok(Json(views::publishing_auth(auth)))
}

async fn regenerate_publishing_auth(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
) -> ApiResult<Json<views::PublishingAuth>> {
    let auth = visitor::regenerate(&state.app, &caller, &org_id, &site_id).await?;
    Ok(Json(views::publishing_auth(auth)))
}

// ---------------------------------------------------------------------------
// Structure
// ---------------------------------------------------------------------------

async fn get_structure(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    Query(query): Query<ShareKeyQuery>,
) -> ApiResult<Json<views::SiteStructure>> {
    let info = structure::get(&state.app, &caller, site_ref(&org_id, &site_id, &query)).await?;
    Ok(Json(views::structure(&state, info)))
}

async fn sort_structure(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<SortInput>,
) -> ApiResult<StatusCode> {
    structure::sort(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_sections(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<ShareKeyQuery>,
) -> ApiResult<Json<List<views::SiteSection>>> {
    let request = page.request(STRUCTURE_ORDER)?;
    let at = site_ref(&org_id, &site_id, &query);
    let (site, page) = structure::list_sections(&state.app, &caller, at, &request).await?;
    Ok(Json(List::from_page(page, STRUCTURE_ORDER, |s| {
        views::section(&state, &site, s)
    })))
}

async fn add_section(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<NewSection>,
) -> ApiResult<(StatusCode, Json<views::SiteSection>)> {
    let (site, section) = structure::add_section(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::section(&state, &site, section))))
}

async fn update_section(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, section_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<SectionUpdate>,
) -> ApiResult<Json<views::SiteSection>> {
    let (site, section) = structure::update_section(&state.app, &caller, &org_id, &site_id, &section_id, body).await?;
    Ok(Json(views::section(&state, &site, section)))
}

async fn delete_section(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, section_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    structure::delete_section(&state.app, &caller, &org_id, &site_id, &section_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn move_section(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, section_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<MoveBody<SectionPointer>>,
) -> ApiResult<Json<views::SiteSection>> {
    let (site, section) = structure::move_section(&state.app, &caller, &org_id, &site_id, &section_id, body).await?;
    Ok(Json(views::section(&state, &site, section)))
}

async fn list_section_groups(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<views::SiteSectionGroup>>> {
    let request = page.request(STRUCTURE_ORDER)?;
    let (site, page) = structure::list_groups(&state.app, &caller, &org_id, &site_id, &request).await?;
    Ok(Json(List::from_page(page, STRUCTURE_ORDER, |g| {
        views::group(&state, &site, g)
    })))
}

async fn create_section_group(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<NewGroup>,
) -> ApiResult<(StatusCode, Json<views::SiteSectionGroup>)> {
    let (site, group) = structure::create_group(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::group(&state, &site, group))))
}

async fn update_section_group(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, group_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<GroupUpdate>,
) -> ApiResult<Json<views::SiteSectionGroup>> {
    let (site, group) = structure::update_group(&state.app, &caller, &org_id, &site_id, &group_id, body).await?;
    Ok(Json(views::group(&state, &site, group)))
}

async fn delete_section_group(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, group_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    structure::delete_group(&state.app, &caller, &org_id, &site_id, &group_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn add_section_to_group(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, group_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<GroupSection>,
) -> ApiResult<(StatusCode, Json<views::SiteSectionGroup>)> {
    let (site, group) = structure::add_to_group(&state.app, &caller, &org_id, &site_id, &group_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::group(&state, &site, group))))
}

async fn remove_section_from_group(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, group_id, section_id)): Path<(String, String, String, String)>,
) -> ApiResult<StatusCode> {
    structure::remove_from_group(&state.app, &caller, &org_id, &site_id, &group_id, &section_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn move_section_group(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, group_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<MoveBody<TypedPointer>>,
) -> ApiResult<Json<views::SiteSectionGroup>> {
    let (site, group) = structure::move_group(&state.app, &caller, &org_id, &site_id, &group_id, body).await?;
    Ok(Json(views::group(&state, &site, group)))
}

#[derive(Debug, Deserialize)]
struct SiteSpaceListQuery {
    default: Option<bool>,
    #[serde(rename = "shareKey")]
    share_key: Option<String>,
}

async fn list_site_spaces(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<SiteSpaceListQuery>,
) -> ApiResult<Json<List<views::SiteSpace>>> {
    let request = page.request(STRUCTURE_ORDER)?;
    let at = SiteRef {
        org_id: &org_id,
        site_id: &site_id,
        share_key: query.share_key.as_deref(),
    };
    let (site, page) = structure::list_site_spaces(&state.app, &caller, at, query.default, &request).await?;
    Ok(Json(List::from_page(page, STRUCTURE_ORDER, |(section, s)| {
        views::site_space(&state, &site, section.as_ref(), s)
    })))
}

async fn add_site_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<NewSiteSpace>,
) -> ApiResult<(StatusCode, Json<views::SiteSpace>)> {
    let (site, section, s) = structure::add_site_space(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok((
        StatusCode::CREATED,
        Json(views::site_space(&state, &site, section.as_ref(), s)),
    ))
}

async fn update_site_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<SiteSpaceUpdate>,
) -> ApiResult<Json<views::SiteSpace>> {
    let (site, section, s) = structure::update_site_space(&state.app, &caller, &org_id, &site_id, &id, body).await?;
    Ok(Json(views::site_space(&state, &site, section.as_ref(), s)))
}

async fn delete_site_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    structure::delete_site_space(&state.app, &caller, &org_id, &site_id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn move_site_space(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<MoveBody<SiteSpacePointer>>,
) -> ApiResult<Json<views::SiteSpace>> {
    let (site, section, s) = structure::move_site_space(&state.app, &caller, &org_id, &site_id, &id, body).await?;
    Ok(Json(views::site_space(&state, &site, section.as_ref(), s)))
}

// ---------------------------------------------------------------------------
// Share links
// ---------------------------------------------------------------------------

async fn list_share_links(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    page: PageParams,
) -> ApiResult<Json<List<views::ShareLink>>> {
    let request = page.request(SITE_ORDER)?;
    let (site, page) = share_links::list(&state.app, &caller, &org_id, &site_id, &request).await?;
    Ok(Json(List::from_page(page, SITE_ORDER, |l| {
        views::share_link(&state, &site, l)
    })))
}

async fn create_share_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<NewShareLink>,
) -> ApiResult<(StatusCode, Json<views::ShareLink>)> {
    let (site, link) = share_links::create(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::share_link(&state, &site, link))))
}

async fn update_share_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, link_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<ShareLinkUpdate>,
) -> ApiResult<Json<views::ShareLink>> {
    let (site, link) = share_links::update(&state.app, &caller, &org_id, &site_id, &link_id, body).await?;
    Ok(Json(views::share_link(&state, &site, link)))
}

async fn delete_share_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, link_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    share_links::delete(&state.app, &caller, &org_id, &site_id, &link_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------
// Redirects
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct RedirectListQuery {
    search: Option<String>,
    draft: Option<bool>,
    #[serde(rename = "orderBy")]
    order_by: Option<String>,
}

async fn list_redirects(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    page: PageParams,
    Query(query): Query<RedirectListQuery>,
) -> ApiResult<Json<List<views::SiteRedirect>>> {
    let order = redirects::order(query.order_by.as_deref())?;
    let list_order = match order {
        quire_store::site_redirects::RedirectOrder::CreatedAt => REDIRECTS_BY_CREATION,
        quire_store::site_redirects::RedirectOrder::UpdatedAt => REDIRECTS_BY_UPDATE,
        quire_store::site_redirects::RedirectOrder::Source => REDIRECTS_BY_SOURCE,
    };
    let request = page.request(list_order)?;
    let query = ListQuery {
        draft: query.draft,
        search: query.search,
    };
    let page = redirects::list(&state.app, &caller, &org_id, &site_id, &query, order, &request).await?;
    Ok(Json(List::from_page(page, list_order, views::site_redirect)))
}

async fn create_redirect(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<(StatusCode, Json<views::SiteRedirect>)> {
    let redirect = redirects::create(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::site_redirect(redirect))))
}

async fn bulk_upsert_redirects(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<Json<views::BulkRedirects>> {
    let results = redirects::bulk(&state.app, &caller, &org_id, &site_id, body).await?;
    Ok(Json(views::bulk_redirects(results)))
}

async fn update_redirect(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, redirect_id)): Path<(String, String, String)>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<Json<views::SiteRedirect>> {
    let redirect = redirects::update(&state.app, &caller, &org_id, &site_id, &redirect_id, body).await?;
    Ok(Json(views::site_redirect(redirect)))
}

async fn delete_redirect(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id, redirect_id)): Path<(String, String, String)>,
) -> ApiResult<StatusCode> {
    let deleted = redirects::delete(&state.app, &caller, &org_id, &site_id, &redirect_id).await?;
    Ok(if deleted {
        StatusCode::RESET_CONTENT
    } else {
        StatusCode::NO_CONTENT
    })
}

#[derive(Debug, Deserialize)]
struct RedirectSourceQuery {
    source: Option<String>,
    #[serde(rename = "shareKey")]
    share_key: Option<String>,
}

async fn get_redirect_by_source(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, site_id)): Path<(String, String)>,
    Query(query): Query<RedirectSourceQuery>,
) -> ApiResult<Json<views::ResolvedRedirect>> {
    let resolved = redirects::by_source(
        &state.app,
        &caller,
        &org_id,
        &site_id,
        query.source.as_deref(),
        query.share_key.as_deref(),
    )
    .await?;
    Ok(Json(views::resolved_redirect(&state, resolved)))
}
