//! Single sign-on and the account page, server-rendered HTML outside `/v1`:
//!
//! - `GET /saml/{providerId}/metadata`: Quire's SP metadata for that IdP;
//! - `GET /saml/{providerId}/start`: redirects to the IdP with an
//!   `AuthnRequest` (HTTP-Redirect binding);
//! - `POST /saml/{providerId}/acs`: takes the IdP's response (HTTP-POST
//!   binding), signs the person in and redirects to the account page;
//! - `GET /account`: the person's organizations and API tokens;
//! - `POST /account/tokens`, `/account/tokens/{tokenId}/revoke`,
//!   `/account/sign-out`: forms with the session's CSRF token.
//!
//! The session is the `quire_session` cookie (`quire_http::session`): HttpOnly, `SameSite=Lax` (the
//! IdP's POST to the ACS is cross-site; the redirect that follows is a
//! top-level navigation, which Lax lets through), `Secure` when the public
//! URL is https. There, `start` also sets `quire_saml_request` (the request
//! id, `SameSite=None; Secure`, for the ACS path only), and the ACS takes a
//! response only from the browser that started its sign-in. Every refusal is a plain HTML page with a 4xx status; the
//! reason is logged (by `quire_sso`).

use axum::Router;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use quire_app::error::AppError;
use quire_app::sessions::{self, Account, NewSession, Session};
use quire_site_render::html::escape;
use serde::Deserialize;

use quire_http::extract::{Path, Query};
use quire_http::session::{self, ClientInfo};
use quire_http::state::AppState;

/// The sign-in request a browser started (https only; see
/// `crate::binds_browsers`).
const REQUEST_COOKIE: &str = "quire_saml_request";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/saml/{providerId}/metadata", get(metadata))
        .route("/saml/{providerId}/start", get(start))
        .route("/saml/{providerId}/acs", post(acs))
        .route("/account", get(account))
        .route("/account/tokens", post(create_token))
        .route("/account/tokens/{tokenId}/revoke", post(revoke_token))
        .route("/account/sign-out", post(sign_out))
}

/// A page of its own: title and body (already HTML).
fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · Quire</title><style>\
         body{{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2937}}\
         table{{border-collapse:collapse;width:100%}}td,th{{text-align:left;padding:.4rem;border-bottom:1px solid #e5e7eb}}\
         code{{background:#f3f4f6;padding:.2rem .4rem;border-radius:4px;word-break:break-all}}\
         .note{{background:#fef3c7;padding:.6rem;border-radius:6px}}button{{cursor:pointer}}\
         </style></head><body><h1>{title}</h1>{body}</body></html>",
        title = escape(title),
    );
    quire_http::pages::own_page(
        status,
        html,
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    )
}

/// An error as a page: the status of its kind, its message (internal
/// errors are logged and shown as such, without details).
fn error_page(error: AppError) -> Response {
    let (status, message) = match error {
        AppError::Invalid(m) => (StatusCode::BAD_REQUEST, m),
        AppError::Forbidden(m) => (StatusCode::FORBIDDEN, m),
        AppError::NotFound(m) => (StatusCode::NOT_FOUND, m),
        AppError::Conflict(m) => (StatusCode::CONFLICT, m),
        AppError::TooLarge(m) => (StatusCode::PAYLOAD_TOO_LARGE, m),
        AppError::SignInFailed(m) => (StatusCode::UNAUTHORIZED, m),
        AppError::TooManyAttempts { message, .. } => (StatusCode::TOO_MANY_REQUESTS, message),
        AppError::Internal(err) => {
            tracing::error!(error = ?err, "internal error");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong on our side; try again later.".to_owned(),
            )
        }
    };
    page(status, "Sign-in problem", &format!("<p>{}</p>", escape(&message)))
}

/// The cookie binding a sign-in to this browser, for the ACS only:
/// `SameSite=None` so the IdP's cross-site POST carries it.
fn request_cookie(provider_id: &str, request_id: &str, max_age_secs: i64) -> HeaderValue {
    let cookie = format!(
        "{REQUEST_COOKIE}={request_id}; Path=/saml/{provider_id}/acs; HttpOnly; Secure; SameSite=None; \
         Max-Age={max_age_secs}"
    );
    HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static(""))
}

async fn current_session(state: &AppState, headers: &HeaderMap) -> Result<Option<Session>, AppError> {
    match session::token(headers) {
        Some(token) => sessions::session(&state.app, &token).await,
        None => Ok(None),
    }
}

async fn metadata(State(state): State<AppState>, Path(provider_id): Path<String>) -> Response {
    match crate::metadata(&state.app, &state.public_url, &provider_id).await {
        Ok(xml) => ([(header::CONTENT_TYPE, "application/samlmetadata+xml")], xml).into_response(),
        Err(e) => error_page(e),
    }
}

#[derive(Debug, Deserialize)]
struct StartQuery {
    /// Where to go after signing in: a path of this server.
    then: Option<String>,
}

async fn start(
    State(state): State<AppState>,
    Path(provider_id): Path<String>,
    Query(query): Query<StartQuery>,
) -> Response {
    match crate::start(&state.app, &state.public_url, &provider_id, query.then.as_deref()).await {
        Ok((url, request_id)) => {
            let mut response = Redirect::to(&url).into_response();
            if crate::binds_browsers(&state.public_url) {
                let lifetime = crate::REQUEST_LIFETIME_MS / 1000;
                response
                    .headers_mut()
                    .append(header::SET_COOKIE, request_cookie(&provider_id, &request_id, lifetime));
            }
            response
        }
        Err(e) => error_page(e),
    }
}

#[derive(Debug, Deserialize)]
struct PostedResponse {
    #[serde(rename = "SAMLResponse")]
    saml_response: String,
    #[serde(rename = "RelayState")]
    relay_state: Option<String>,
}

async fn acs(
    State(state): State<AppState>,
    Path(provider_id): Path<String>,
    headers: HeaderMap,
    ClientInfo(client): ClientInfo,
    form: Result<Form<PostedResponse>, axum::extract::rejection::FormRejection>,
) -> Response {
    let Ok(Form(posted)) = form else {
        tracing::warn!(provider = %provider_id, reason = "no SAMLResponse form field", "SAML login refused");
        return error_page(AppError::invalid("The identity provider sent no SAML response."));
    };
    let existing = session::token(&headers);
    let started_here = session::cookie(&headers, REQUEST_COOKIE);
    match crate::consume(
        &state.app,
        &state.public_url,
        &provider_id,
        &posted.saml_response,
        existing.as_deref(),
        started_here.as_deref(),
        &client,
    )
    .await
    {
        Ok(signed_in) => {
            let NewSession { token, expires_at, .. } = signed_in.session;
            let max_age = (expires_at.0 - state.app.now().0) / 1000;
            let mut response = Redirect::to(&crate::local_path(posted.relay_state.as_deref())).into_response();
            let headers = response.headers_mut();
            headers.insert(header::SET_COOKIE, session::set_cookie(&state, &token, max_age.max(0)));
            if started_here.is_some() {
                headers.append(header::SET_COOKIE, request_cookie(&provider_id, "", 0));
            }
            response
        }
        Err(e) => error_page(e),
    }
}

fn account_html(state: &AppState, session: &Session, account: &Account, new_token: Option<&str>) -> String {
    let csrf = escape(&session.row.csrf_token);
    let mut body = format!(
        "<p>Signed in as <strong>{}</strong> ({}).</p>",
        escape(&session.user.display_name),
        escape(&session.user.email)
    );
    if let Some(token) = new_token {
        body.push_str(&format!(
            "<p class=\"note\">Your new API token, shown only this once:<br><code id=\"new-token\">{}</code></p>",
            escape(token)
        ));
    }
    body.push_str("<h2>Organizations</h2><table><tr><th>Organization</th><th>Role</th><th>Single sign-on</th></tr>");
    for org in &account.organizations {
        let role = org.role.map_or("guest", |r| r.as_str());
        let sso = if org.org.sso { "required" } else { "optional" };
        body.push_str(&format!(
            "<tr><td>{}</td><td>{role}</td><td>{sso}</td></tr>",
            escape(&org.org.title)
        ));
    }
    body.push_str("</table><h2>API tokens</h2>");
    body.push_str(&format!(
        "<p>Use them as <code>Authorization: Bearer …</code> with the API at <code>{}/v1</code>.</p>",
        escape(&state.public_url)
    ));
    if account.tokens.is_empty() {
        body.push_str("<p>No tokens yet.</p>");
    } else {
        body.push_str("<table><tr><th>Label</th><th>Created</th><th></th></tr>");
        for token in &account.tokens {
            let created = token.created_at.to_rfc3339();
            body.push_str(&format!(
                "<tr class=\"token\" data-id=\"{id}\"><td>{label}</td><td>{created}</td><td>\
                 <form method=\"post\" action=\"/account/tokens/{id}/revoke\">\
                 <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><button>Revoke</button></form></td></tr>",
                id = escape(&token.id),
                label = escape(token.label.as_deref().unwrap_or("(no label)")),
            ));
        }
        body.push_str("</table>");
    }
    if let Some(org) = account.blockers.first() {
        body.push_str(&format!(
            "<p class=\"note\">{} requires signing in through its single sign-on before new tokens are made.</p>",
            escape(&org.title)
        ));
    } else {
        body.push_str(&format!(
            "<form method=\"post\" action=\"/account/tokens\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <label>Label <input name=\"label\" required maxlength=\"64\"></label> <button>Create token</button></form>"
        ));
    }
    body.push_str(&format!(
        "<h2>Session</h2><form method=\"post\" action=\"/account/sign-out\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><button>Sign out</button></form>"
    ));
    body
}

fn signed_out_page() -> Response {
    page(
        StatusCode::OK,
        "Your account",
        "<p>You are not signed in. Sign in through your organization's single sign-on link.</p>",
    )
}

async fn show_account(state: &AppState, session: &Session, new_token: Option<&str>) -> Response {
    match sessions::account(&state.app, session).await {
        Ok(account) => page(
            StatusCode::OK,
            "Your account",
            &account_html(state, session, &account, new_token),
        ),
        Err(e) => error_page(e),
    }
}

async fn account(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match current_session(&state, &headers).await {
        Ok(Some(session)) => show_account(&state, &session, None).await,
        Ok(None) => signed_out_page(),
        Err(e) => error_page(e),
    }
}

#[derive(Debug, Deserialize)]
struct TokenForm {
    csrf: String,
    #[serde(default)]
    label: String,
}

/// The session of a form post: there, with its CSRF token, from this
/// server's own pages (when the browser says where from).
async fn form_session(state: &AppState, headers: &HeaderMap, csrf: &str) -> Result<Session, Response> {
    let session = match current_session(state, headers).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            return Err(error_page(AppError::forbidden(
                "You are not signed in (or your session expired).",
            )));
        }
        Err(e) => return Err(error_page(e)),
    };
    let origin_ok = headers
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .is_none_or(|origin| {
            state.public_url.starts_with(origin) && {
                let rest = &state.public_url[origin.len()..];
                rest.is_empty() || rest.starts_with('/')
            }
        });
    if !session.csrf_matches(csrf) || !origin_ok {
        tracing::warn!(user = %session.user.id, "account form refused: CSRF check failed");
        return Err(error_page(AppError::forbidden(
            "This form did not come from your account page; open the page again and retry.",
        )));
    }
    Ok(session)
}

async fn create_token(State(state): State<AppState>, headers: HeaderMap, Form(form): Form<TokenForm>) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(page) => return page,
    };
    match sessions::create_token(&state.app, &session, &form.label).await {
        Ok(token) => show_account(&state, &session, Some(&token)).await,
        Err(e) => error_page(e),
    }
}

#[derive(Debug, Deserialize)]
struct CsrfForm {
    csrf: String,
}

async fn revoke_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(token_id): Path<String>,
    Form(form): Form<CsrfForm>,
) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(page) => return page,
    };
    match sessions::revoke_token(&state.app, &session, &token_id).await {
        Ok(hash) => {
            state.tokens.forget(&hash);
            Redirect::to("/account").into_response()
        }
        Err(e) => error_page(e),
    }
}

async fn sign_out(State(state): State<AppState>, headers: HeaderMap, Form(form): Form<CsrfForm>) -> Response {
    let session = match form_session(&state, &headers, &form.csrf).await {
        Ok(session) => session,
        Err(page) => return page,
    };
    if let Err(e) = sessions::sign_out(&state.app, &session).await {
        return error_page(e);
    }
    let mut response = Redirect::to("/account").into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, session::clear_cookie(&state));
    response
}
