//! `/auth/...`: signing in and out, one's sessions and password, one-time
//! links and OpenID Connect. JSON in and out, errors in the official shape;
//! outside `/v1` because the official API has no such operations. Requests
//! that change something on a session carry its CSRF token
//! (`quire_http::session`); signing in takes JSON only, which a page of
//! another site cannot post without a CORS preflight.
//!
//! - `GET /auth/methods`: the ways to sign in;
//! - `POST /auth/sign-in` `{email, password}`: sets the session cookie;
//! - `GET /auth/session`, `POST /auth/sign-out`;
//! - `GET /auth/sessions`, `DELETE /auth/sessions/{sessionId}`;
//! - `PUT /auth/password` `{currentPassword, newPassword}`;
//! - `GET /auth/tokens`, `POST /auth/tokens` `{label}` (the token is shown
//!   once, in that answer), `DELETE /auth/tokens/{tokenId}`: one's API
//!   tokens, as the account page manages them;
//! - `POST /auth/links` `{email}` (an organization admin, by token or
//!   session): a password link for a member or an invited email;
//! - `POST /auth/links/inspect` `{token}`, `POST /auth/links/use`
//!   `{token, password?, displayName?}` (tokens in bodies, never in URLs);
//! - `GET /auth/oidc/start?returnTo=`, `GET /auth/oidc/callback`.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{delete, get, post, put};
use quire_app::sessions::{self, NewSession};
use quire_http::auth::Auth;
use quire_http::error::{ApiError, ApiResult};
use quire_http::extract::{JsonBody, Path, Query};
use quire_http::session::{self as http_session, ClientInfo, SignedIn};
use quire_http::state::AppState;
use quire_store::users::UserRow;
use serde::Deserialize;

use crate::{links, oidc, passwords, views};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/auth/methods", get(methods))
        .route("/auth/sign-in", post(sign_in))
        .route("/auth/session", get(current))
        .route("/auth/sign-out", post(sign_out))
        .route("/auth/sessions", get(list_sessions))
        .route("/auth/sessions/{sessionId}", delete(revoke_session))
        .route("/auth/password", put(change_password))
        .route("/auth/tokens", get(list_tokens).post(create_token))
        .route("/auth/tokens/{tokenId}", delete(revoke_token))
        .route("/auth/links", post(make_link))
        .route("/auth/links/inspect", post(inspect_link))
        .route("/auth/links/use", post(use_link))
        .route("/auth/oidc/start", get(oidc_start))
        .route("/auth/oidc/callback", get(oidc_callback))
}

async fn methods(State(state): State<AppState>) -> Json<views::Methods> {
    Json(views::Methods {
        password: true,
        oidc: state.app.settings.oidc.as_ref().map(|o| views::OidcMethod {
            name: o.name.clone(),
            start_url: format!("{}/auth/oidc/start", state.public_url),
            redirect_uri: oidc::redirect_uri(&state.public_url),
        }),
    })
}

/// The answer to a sign-in: the session as JSON, its cookie set.
fn signed_in(state: &AppState, user: &UserRow, session: &NewSession, method: sessions::Method) -> Response {
    let view = views::session(state, user, &session.csrf_token, method.as_str(), session.expires_at);
    let mut response = Json(view).into_response();
    set_cookie(state, &mut response, session);
    response
}

fn set_cookie(state: &AppState, response: &mut Response, session: &NewSession) {
    let max_age = (session.expires_at.0 - state.app.now().0) / 1000;
    response.headers_mut().insert(
        header::SET_COOKIE,
        http_session::set_cookie(state, &session.token, max_age.max(0)),
    );
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    email: String,
    password: String,
}

async fn sign_in(
    State(state): State<AppState>,
    ClientInfo(client): ClientInfo,
    JsonBody(body): JsonBody<Credentials>,
) -> ApiResult<Response> {
    let (user, session) = passwords::sign_in(&state.app, &body.email, &body.password, &client).await?;
    Ok(signed_in(&state, &user, &session, sessions::Method::Password))
}

async fn current(State(state): State<AppState>, SignedIn(session): SignedIn) -> Response {
    let mut response = Json(views::current(&state, &session)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn sign_out(State(state): State<AppState>, SignedIn(session): SignedIn) -> ApiResult<Response> {
    sessions::sign_out(&state.app, &session).await?;
    let mut response = StatusCode::NO_CONTENT.into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, http_session::clear_cookie(&state));
    Ok(response)
}

#[derive(serde::Serialize)]
struct SessionList {
    items: Vec<views::SessionEntry>,
}

async fn list_sessions(State(state): State<AppState>, SignedIn(session): SignedIn) -> ApiResult<Json<SessionList>> {
    let rows = sessions::list(&state.app, &session.user.id).await?;
    Ok(Json(SessionList {
        items: rows.iter().map(|r| views::entry(r, &session.row.id)).collect(),
    }))
}

async fn revoke_session(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
    Path(session_id): Path<String>,
) -> ApiResult<StatusCode> {
    sessions::revoke(&state.app, &session.user.id, &session_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_tokens(State(state): State<AppState>, SignedIn(session): SignedIn) -> ApiResult<Json<views::TokenList>> {
    let rows = sessions::tokens(&state.app, &session).await?;
    Ok(Json(views::TokenList {
        items: rows.iter().map(views::token).collect(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewToken {
    label: String,
}

async fn create_token(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
    JsonBody(body): JsonBody<NewToken>,
) -> ApiResult<(StatusCode, Json<views::CreatedToken>)> {
    let token = sessions::create_token(&state.app, &session, &body.label).await?;
    Ok((StatusCode::CREATED, Json(views::CreatedToken { token })))
}

async fn revoke_token(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
    Path(token_id): Path<String>,
) -> ApiResult<StatusCode> {
    let hash = sessions::revoke_token(&state.app, &session, &token_id).await?;
    state.tokens.forget(&hash);
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasswordChange {
    current_password: Option<String>,
    new_password: String,
}

async fn change_password(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
    ClientInfo(client): ClientInfo,
    JsonBody(body): JsonBody<PasswordChange>,
) -> ApiResult<StatusCode> {
    passwords::change(
        &state.app,
        &session,
        body.current_password.as_deref(),
        &body.new_password,
        &client,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkRequest {
    email: String,
}

async fn make_link(
    State(state): State<AppState>,
    Auth(caller): Auth,
    JsonBody(body): JsonBody<LinkRequest>,
) -> ApiResult<(StatusCode, Json<views::IssuedLinkView>)> {
    let link = links::password_link(&state.app, &caller, &state.public_url, &body.email).await?;
    Ok((StatusCode::CREATED, Json(views::issued(&link))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkToken {
    token: String,
}

async fn inspect_link(
    State(state): State<AppState>,
    ClientInfo(client): ClientInfo,
    JsonBody(body): JsonBody<LinkToken>,
) -> ApiResult<Json<views::LinkInfoView>> {
    let info = links::inspect(&state.app, &body.token, &client).await?;
    Ok(Json(views::link_info(&info)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LinkUse {
    token: String,
    password: Option<String>,
    display_name: Option<String>,
}

async fn use_link(
    State(state): State<AppState>,
    ClientInfo(client): ClientInfo,
    JsonBody(body): JsonBody<LinkUse>,
) -> ApiResult<Response> {
    let given = links::LinkUse {
        password: body.password,
        display_name: body.display_name,
    };
    let (user, session) = links::use_link(&state.app, &body.token, given, &client).await?;
    Ok(signed_in(&state, &user, &session, sessions::Method::Link))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StartQuery {
    return_to: Option<String>,
}

async fn oidc_start(State(state): State<AppState>, Query(query): Query<StartQuery>) -> ApiResult<Redirect> {
    let url = oidc::start(&state.app, &state.public_url, query.return_to.as_deref()).await?;
    Ok(Redirect::to(&url))
}

/// Back from the provider: signed in and on to where the person was going,
/// or to the sign-in screen with the reason.
async fn oidc_callback(
    State(state): State<AppState>,
    ClientInfo(client): ClientInfo,
    Query(callback): Query<oidc::Callback>,
) -> Response {
    match oidc::finish(&state.app, &state.public_url, callback, &client).await {
        Ok((_, session, return_to)) => {
            let mut response = Redirect::to(&return_to).into_response();
            set_cookie(&state, &mut response, &session);
            response
        }
        Err(error) => {
            let message = match ApiError::from(error) {
                ApiError::Internal(err) => {
                    tracing::error!(error = ?err, "OpenID Connect sign-in failed");
                    "something went wrong on our side; try again later".to_owned()
                }
                other => other.to_string(),
            };
            let path = format!("/sign-in?error={}", quire_core::percent::encode_component(&message));
            Redirect::to(&path).into_response()
        }
    }
}
