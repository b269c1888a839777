//! SAML providers of an organization (admins) and its single sign-on
//! logins (members). The login itself is served by `account`.

use crate::ProviderInput;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use quire_store::Page;
use serde::Serialize;

use quire_http::auth::Auth;
use quire_http::error::ApiResult;
use quire_http::extract::{JsonBody, Path};
use quire_http::pagination::{List, ListOrder, PageParams};
use quire_http::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/orgs/{organizationId}/saml", get(list_providers).post(create_provider))
        .route(
            "/orgs/{organizationId}/saml/{samlProviderId}",
            get(get_provider).patch(update_provider).delete(delete_provider),
        )
        .route("/orgs/{organizationId}/sso", get(list_logins))
}

const PROVIDERS_ORDER: ListOrder = ListOrder::ascending_by("createdAt");

async fn list_providers(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    page: PageParams,
) -> ApiResult<Json<List<crate::views::SamlProvider>>> {
    let request = page.request(PROVIDERS_ORDER)?;
    let providers = crate::list(&state.app, &caller, &org_id).await?;
    Ok(Json(List::from_page(
        Page::of_list(providers, &request),
        PROVIDERS_ORDER,
        |p| crate::views::provider(&state, p),
    )))
}

async fn create_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<ProviderInput>,
) -> ApiResult<(StatusCode, Json<crate::views::SamlProvider>)> {
    let provider = crate::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(crate::views::provider(&state, provider))))
}

async fn get_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, provider_id)): Path<(String, String)>,
) -> ApiResult<Json<crate::views::SamlProvider>> {
    let provider = crate::get(&state.app, &caller, &org_id, &provider_id).await?;
    Ok(Json(crate::views::provider(&state, provider)))
}

async fn update_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, provider_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<ProviderInput>,
) -> ApiResult<Json<crate::views::SamlProvider>> {
    let provider = crate::update(&state.app, &caller, &org_id, &provider_id, body).await?;
    Ok(Json(crate::views::provider(&state, provider)))
}

async fn delete_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, provider_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    crate::delete(&state.app, &caller, &org_id, &provider_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Serialize)]
struct Logins {
    items: Vec<crate::views::SsoLogin>,
}

async fn list_logins(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
) -> ApiResult<Json<Logins>> {
    let providers = crate::logins(&state.app, &caller, &org_id).await?;
    Ok(Json(Logins {
        items: providers.iter().map(|p| crate::views::sso_login(&state, p)).collect(),
    }))
}
