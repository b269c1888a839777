//! SAML providers of an organization (admins) and its single sign-on
//! logins (members). The login itself is served by `account`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use quire_app::saml::{self, ProviderInput};
use quire_store::Page;
use serde::Serialize;

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::{JsonBody, Path};
use crate::pagination::{List, ListOrder, PageParams};
use crate::state::AppState;
use crate::views;

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
) -> ApiResult<Json<List<views::saml::SamlProvider>>> {
    let request = page.request(PROVIDERS_ORDER)?;
    let providers = saml::list(&state.app, &caller, &org_id).await?;
    Ok(Json(List::from_page(
        Page::of_list(providers, &request),
        PROVIDERS_ORDER,
        |p| views::saml::provider(&state, p),
    )))
}

async fn create_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
    JsonBody(body): JsonBody<ProviderInput>,
) -> ApiResult<(StatusCode, Json<views::saml::SamlProvider>)> {
    let provider = saml::create(&state.app, &caller, &org_id, body).await?;
    Ok((StatusCode::CREATED, Json(views::saml::provider(&state, provider))))
}

async fn get_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, provider_id)): Path<(String, String)>,
) -> ApiResult<Json<views::saml::SamlProvider>> {
    let provider = saml::get(&state.app, &caller, &org_id, &provider_id).await?;
    Ok(Json(views::saml::provider(&state, provider)))
}

async fn update_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, provider_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<ProviderInput>,
) -> ApiResult<Json<views::saml::SamlProvider>> {
    let provider = saml::update(&state.app, &caller, &org_id, &provider_id, body).await?;
    Ok(Json(views::saml::provider(&state, provider)))
}

async fn delete_provider(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path((org_id, provider_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    saml::delete(&state.app, &caller, &org_id, &provider_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Serialize)]
struct Logins {
    items: Vec<views::saml::SsoLogin>,
}

async fn list_logins(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(org_id): Path<String>,
) -> ApiResult<Json<Logins>> {
    let providers = saml::logins(&state.app, &caller, &org_id).await?;
    Ok(Json(Logins {
        items: providers.iter().map(|p| views::saml::sso_login(&state, p)).collect(),
    }))
}
