//! OAuth 2.1 for MCP clients, as the protocol's authorization asks: a
//! client that meets `401` at `/mcp` reads where to authorize from the
//! `WWW-Authenticate` header's protected-resource metadata (RFC 9728), then
//! the authorization server's metadata (RFC 8414), registers itself
//! (RFC 7591: public clients, no secret), sends the person to
//! `/oauth/authorize` with a PKCE S256 challenge, and exchanges the code it
//! gets back at `/oauth/token`.
//!
//! The person signs in as anywhere else in Quire (a browser session: the
//! web application's sign-in, OpenID Connect, SAML) and is asked once,
//! on a page of the server's own, whether the client may act for them. The
//! access token is an API token of theirs, labelled with the client's name:
//! the MCP server accepts it as any token, it can do what they may do, and
//! they see and revoke it on their account page. Codes last ten minutes
//! and are exchanged once. A person whose organization requires its single
//! sign-on is refused unless their session went through it, as for any new
//! token.
//!
//! Codes go only where a client may be sent (an allow-list,
//! [`redirect_uri_allowed`]): https; http to this machine only (RFC 8252's
//! loopback redirect); or an app's private-use scheme in reverse-DNS form
//! (RFC 8252 section 7.1: `com.example.app:/callback`). Every other scheme
//! is refused at registration, those a browser runs, reads or hands to
//! another program (`javascript:`, `view-source:`, `ms-msdt:`) among them.
//! The consent page names the host the person is sent to as it reads and,
//! when that differs, as it is written (`xn--...`), so a look-alike name in
//! another script shows for what it is.

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use quire_app::sessions::{self, Session};
use quire_app::{Caller, accounts};
use quire_core::Timestamp;
use quire_http::AppState;
use quire_site_render::html::escape;
use quire_store::oauth::{self, ClientRow, CodeRow};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// How long a granted code may wait to be exchanged.
const CODE_LIFETIME_MS: i64 = 10 * 60 * 1000;
/// Redirect URIs one client may register.
const MAX_REDIRECT_URIS: usize = 10;
/// The one scope: what the person may do, through MCP.
const SCOPE: &str = "mcp";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/.well-known/oauth-protected-resource", get(resource_metadata))
        .route("/.well-known/oauth-protected-resource/mcp", get(resource_metadata))
        .route("/.well-known/oauth-authorization-server", get(server_metadata))
        .route("/oauth/register", post(register))
        .route("/oauth/authorize", get(consent).post(decide))
        .route("/oauth/token", post(token))
}

/// The MCP server's address, as the resource tokens are for.
fn resource(state: &AppState) -> String {
    format!("{}/mcp", state.public_url)
}

/// The `WWW-Authenticate` value of a `401` at `/mcp`: where a client finds
/// how to get a token.
pub fn challenge(state: &AppState) -> HeaderValue {
    let value = format!(
        "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"{SCOPE}\"",
        state.public_url
    );
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

async fn resource_metadata(State(state): State<AppState>) -> Response {
    json_answer(
        StatusCode::OK,
        &json!({
            "resource": resource(&state),
            "authorization_servers": [state.public_url.as_ref()],
            "bearer_methods_supported": ["header"],
            "scopes_supported": [SCOPE],
            "resource_name": "Quire",
        }),
    )
}

async fn server_metadata(State(state): State<AppState>) -> Response {
    let url = &state.public_url;
    json_answer(
        StatusCode::OK,
        &json!({
            "issuer": url.as_ref(),
            "authorization_endpoint": format!("{url}/oauth/authorize"),
            "token_endpoint": format!("{url}/oauth/token"),
            "registration_endpoint": format!("{url}/oauth/register"),
            "scopes_supported": [SCOPE],
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }),
    )
}

fn json_answer(status: StatusCode, body: &Value) -> Response {
    let mut res = quire_http::mcp::json_answer(status, body);
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// An OAuth error answer (`{"error", "error_description"}`, 400).
fn oauth_error(error: &str, description: &str) -> Response {
    json_answer(
        StatusCode::BAD_REQUEST,
        &json!({ "error": error, "error_description": description }),
    )
}

/// The schemes of well-known MCP clients that predate RFC 8252's
/// reverse-DNS names (editors registering their own URL handler), named
/// one by one.
const KNOWN_CLIENT_SCHEMES: &[&str] = &["cursor", "vscode", "vscode-insiders", "windsurf", "zed"];

/// Whether a client may be sent back to `uri`, by allow-list: https, http
/// only to this machine (RFC 8252's loopback redirect), an app's
/// private-use scheme in reverse-DNS form, or a known client's scheme;
/// never with a fragment or a user name.
fn redirect_uri_allowed(uri: &str) -> bool {
    let Ok(parsed) = url::Url::parse(uri) else {
        return false;
    };
    if parsed.fragment().is_some() || !parsed.username().is_empty() || parsed.password().is_some() {
        return false;
    }
    match parsed.scheme() {
        "https" => parsed.host().is_some(),
        "http" => matches!(parsed.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")),
        scheme => is_reverse_dns_scheme(scheme) || KNOWN_CLIENT_SCHEMES.contains(&scheme),
    }
}

/// Whether `scheme` is a private-use scheme as RFC 8252 (section 7.1) has
/// apps name theirs: a domain name the app's publisher controls, reversed
/// (`com.example.app`), so at least two labels separated by periods. No
/// scheme a browser or the system handles itself has a period.
fn is_reverse_dns_scheme(scheme: &str) -> bool {
    let mut labels = scheme.split('.');
    let first = labels.next().unwrap_or_default();
    // The url crate lowercases the scheme and lets it hold only letters,
    // digits, `+`, `-` and `.`, starting with a letter.
    let label_ok = |label: &str| !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let mut rest = labels.peekable();
    label_ok(first) && rest.peek().is_some() && rest.all(label_ok)
}

/// The host a redirect sends the person to, as a person reads it (Unicode)
/// and, when that differs, as it is written (the ASCII, `xn--...` form);
/// `None` for an address without a host (an app's scheme).
fn redirect_host(redirect_uri: &str) -> Option<(String, Option<String>)> {
    let parsed = url::Url::parse(redirect_uri).ok()?;
    let ascii = parsed.host_str().filter(|host| !host.is_empty())?;
    // The url crate keeps a domain in its ASCII form; `quirks` is its
    // public way to the Unicode one (UTS 46, as browsers show it).
    let unicode = match parsed.host() {
        Some(url::Host::Domain(_)) => url::quirks::domain_to_unicode(ascii),
        _ => String::new(),
    };
    if unicode.is_empty() || unicode == ascii {
        Some((ascii.to_owned(), None))
    } else {
        Some((unicode, Some(ascii.to_owned())))
    }
}

#[derive(Deserialize)]
struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    #[serde(default)]
    client_name: Option<String>,
}

async fn register(State(state): State<AppState>, body: axum::body::Bytes) -> Response {
    let Ok(registration) = serde_json::from_slice::<Registration>(&body) else {
        return oauth_error(
            "invalid_client_metadata",
            "send the client's metadata as JSON, with redirect_uris",
        );
    };
    if registration.redirect_uris.is_empty() || registration.redirect_uris.len() > MAX_REDIRECT_URIS {
        return oauth_error("invalid_redirect_uri", "give between 1 and 10 redirect_uris");
    }
    if let Some(bad) = registration.redirect_uris.iter().find(|uri| !redirect_uri_allowed(uri)) {
        return oauth_error(
            "invalid_redirect_uri",
            &format!(
                "{bad:?} is not a redirect URI Quire sends codes to (https, http to localhost, or an app's \
                 reverse-DNS scheme such as com.example.app:/callback; no fragment)"
            ),
        );
    }
    let name = registration
        .client_name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or("An MCP client");
    if name.chars().count() > 100 || name.chars().any(char::is_control) {
        return oauth_error(
            "invalid_client_metadata",
            "client_name has at most 100 characters and no control characters",
        );
    }
    let client = ClientRow {
        id: quire_core::id::new_id(),
        name: name.to_owned(),
        redirect_uris: registration.redirect_uris,
        created_at: state.app.now(),
    };
    let stored = async {
        let mut tx = state.app.db.write().await?;
        oauth::insert_client(&mut tx, &client).await?;
        tx.commit().await?;
        Ok::<_, quire_store::StoreError>(())
    }
    .await;
    if let Err(err) = stored {
        tracing::error!(error = %err, "registering an OAuth client");
        return json_answer(StatusCode::INTERNAL_SERVER_ERROR, &json!({ "error": "server_error" }));
    }
    json_answer(
        StatusCode::CREATED,
        &json!({
            "client_id": client.id,
            "client_id_issued_at": client.created_at.0 / 1000,
            "client_name": client.name,
            "redirect_uris": client.redirect_uris,
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "scope": SCOPE,
        }),
    )
}

/// What `/oauth/authorize` is asked (as query or form).
#[derive(Deserialize, Default)]
struct Authorization {
    #[serde(default)]
    response_type: String,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    redirect_uri: Option<String>,
    #[serde(default)]
    code_challenge: String,
    #[serde(default)]
    code_challenge_method: String,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    resource: Option<String>,
    /// The consent form's: the session's CSRF token and the person's answer.
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    decision: String,
}

/// An authorization request checked: its client and where to send the
/// answer, or the page refusing it (a request whose client or redirect is
/// wrong is never redirected anywhere).
struct Checked {
    client: ClientRow,
    redirect_uri: String,
}

async fn check(state: &AppState, ask: &Authorization) -> Result<Checked, Response> {
    let client = {
        let found = async {
            let mut conn = state.app.db.read().await?;
            oauth::client(&mut conn, &ask.client_id).await
        }
        .await;
        match found {
            Ok(Some(client)) => client,
            Ok(None) => {
                return Err(page(
                    StatusCode::BAD_REQUEST,
                    "Unknown application",
                    "<p>This application is not registered with Quire. Start again from the application.</p>",
                ));
            }
            Err(err) => {
                tracing::error!(error = %err, "reading an OAuth client");
                return Err(page(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "<p>Try again.</p>",
                ));
            }
        }
    };
    // Checked again here: a client registered before the allow-list
    // narrowed may hold an address no longer allowed.
    let redirect_uri = match (&ask.redirect_uri, client.redirect_uris.as_slice()) {
        (Some(uri), registered) if registered.contains(uri) && redirect_uri_allowed(uri) => uri.clone(),
        (None, [only]) if redirect_uri_allowed(only) => only.clone(),
        _ => {
            return Err(page(
                StatusCode::BAD_REQUEST,
                "Wrong redirect address",
                "<p>The application asked to be sent back to an address it did not register. Nothing was granted.</p>",
            ));
        }
    };
    let checked = Checked { client, redirect_uri };
    if ask.response_type != "code" {
        return Err(checked.answer(ask, &[("error", "unsupported_response_type")], &state.public_url));
    }
    if ask.code_challenge_method != "S256" || ask.code_challenge.len() < 43 || ask.code_challenge.len() > 128 {
        return Err(checked.answer(
            ask,
            &[
                ("error", "invalid_request"),
                (
                    "error_description",
                    "a PKCE code_challenge with code_challenge_method S256 is required",
                ),
            ],
            &state.public_url,
        ));
    }
    if let Some(asked) = &ask.resource
        && asked.trim_end_matches('/') != resource(state)
        && asked.trim_end_matches('/') != state.public_url.as_ref()
    {
        return Err(checked.answer(
            ask,
            &[
                ("error", "invalid_target"),
                ("error_description", "tokens here are for this server's /mcp"),
            ],
            &state.public_url,
        ));
    }
    Ok(checked)
}

impl Checked {
    /// Sends the browser back to the client with `params`, its `state` and
    /// this server's name (`iss`, RFC 9207).
    fn answer(&self, ask: &Authorization, params: &[(&str, &str)], issuer: &str) -> Response {
        let Ok(mut url) = url::Url::parse(&self.redirect_uri) else {
            return page(StatusCode::BAD_REQUEST, "Wrong redirect address", "");
        };
        {
            let mut query = url.query_pairs_mut();
            for (name, value) in params {
                query.append_pair(name, value);
            }
            if let Some(state) = &ask.state {
                query.append_pair("state", state);
            }
            query.append_pair("iss", issuer);
        }
        Redirect::to(url.as_str()).into_response()
    }
}

/// The browser session of the request, if any.
async fn session_of(state: &AppState, headers: &HeaderMap) -> Result<Option<Session>, Response> {
    let Some(token) = quire_http::session::token(headers) else {
        return Ok(None);
    };
    sessions::session(&state.app, &token).await.map_err(|err| {
        tracing::error!(error = %err, "reading a session");
        page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "<p>Try again.</p>",
        )
    })
}

/// `GET /oauth/authorize`: the page asking the signed-in person whether
/// the client may act for them (signing in first).
async fn consent(
    State(state): State<AppState>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Query(ask): Query<Authorization>,
) -> Response {
    let checked = match check(&state, &ask).await {
        Ok(checked) => checked,
        Err(refused) => return refused,
    };
    let session = match session_of(&state, &headers).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            let back = uri.path_and_query().map(|pq| pq.as_str()).unwrap_or("/oauth/authorize");
            return Redirect::to(&format!(
                "/sign-in?returnTo={}",
                quire_core::percent::encode_component(back)
            ))
            .into_response();
        }
        Err(refused) => return refused,
    };
    let hidden =
        |name: &str, value: &str| format!("<input type=\"hidden\" name=\"{name}\" value=\"{}\">", escape(value));
    let host = match redirect_host(&checked.redirect_uri) {
        Some((host, None)) => format!(", on <strong>{}</strong>", escape(&host)),
        Some((unicode, Some(ascii))) => format!(
            ", on <strong>{}</strong>, written <code>{}</code> (letters of other alphabets can look like those \
             you know: check this is the application's address)",
            escape(&unicode),
            escape(&ascii),
        ),
        None => String::new(),
    };
    let mut form = String::new();
    form.push_str(&format!(
        "<p><strong>{}</strong> asks to use Quire as <strong>{}</strong> ({}) through the Model Context Protocol: \
         to find, read and search what you may read, and to change what you may change, through change requests.</p>\
         <p>It will be sent back to <code>{}</code>{host}. You can revoke its access any time from your account's API tokens.</p>",
        escape(&checked.client.name),
        escape(&session.user.display_name),
        escape(&session.user.email),
        escape(&checked.redirect_uri),
    ));
    form.push_str("<form method=\"post\" action=\"/oauth/authorize\">");
    form.push_str(&hidden("csrf", &session.row.csrf_token));
    form.push_str(&hidden("response_type", "code"));
    form.push_str(&hidden("client_id", &checked.client.id));
    form.push_str(&hidden("redirect_uri", &checked.redirect_uri));
    form.push_str(&hidden("code_challenge", &ask.code_challenge));
    form.push_str(&hidden("code_challenge_method", &ask.code_challenge_method));
    if let Some(given) = &ask.state {
        form.push_str(&hidden("state", given));
    }
    if let Some(given) = &ask.resource {
        form.push_str(&hidden("resource", given));
    }
    form.push_str(
        "<p class=\"actions\"><button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button> \
         <button type=\"submit\" name=\"decision\" value=\"deny\" class=\"secondary\">Deny</button></p></form>",
    );
    page(StatusCode::OK, &format!("Allow {}?", checked.client.name), &form)
}

/// `POST /oauth/authorize`: the person's answer; a code back to the client
/// when they allowed it.
async fn decide(State(state): State<AppState>, headers: HeaderMap, Form(ask): Form<Authorization>) -> Response {
    let session = match session_of(&state, &headers).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            return page(
                StatusCode::UNAUTHORIZED,
                "Signed out",
                "<p>Sign in, then start again from the application.</p>",
            );
        }
        Err(refused) => return refused,
    };
    if !session.csrf_matches(&ask.csrf) {
        return page(
            StatusCode::FORBIDDEN,
            "Not from this page",
            "<p>This answer did not come from Quire's page. Nothing was granted.</p>",
        );
    }
    let checked = match check(&state, &ask).await {
        Ok(checked) => checked,
        Err(refused) => return refused,
    };
    if ask.decision != "allow" {
        return checked.answer(&ask, &[("error", "access_denied")], &state.public_url);
    }
    let granted = async {
        let mut conn = state.app.db.read().await?;
        let blockers = sessions::sso_blockers(&mut conn, &session.user.id, &session.row.sso_organizations).await?;
        drop(conn);
        if let Some(org) = blockers.first() {
            return Ok(Err(format!(
                "{} requires signing in through its single sign-on before new tokens are made.",
                org.title
            )));
        }
        let code = quire_core::id::random_alphanumeric(43);
        let now = state.app.now();
        let mut tx = state.app.db.write().await?;
        oauth::insert_code(
            &mut tx,
            &CodeRow {
                code_hash: accounts::hash_token(&code),
                client_id: checked.client.id.clone(),
                user_id: session.user.id.clone(),
                redirect_uri: checked.redirect_uri.clone(),
                code_challenge: ask.code_challenge.clone(),
                expires_at: Timestamp(now.0 + CODE_LIFETIME_MS),
            },
        )
        .await?;
        tx.commit_unaudited().await?;
        Ok::<_, quire_app::error::AppError>(Ok(code))
    }
    .await;
    match granted {
        Ok(Ok(code)) => checked.answer(&ask, &[("code", &code)], &state.public_url),
        Ok(Err(refusal)) => page(
            StatusCode::FORBIDDEN,
            "Single sign-on required",
            &format!("<p>{}</p>", escape(&refusal)),
        ),
        Err(err) => {
            tracing::error!(error = %err, "granting an OAuth code");
            page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "<p>Try again.</p>",
            )
        }
    }
}

#[derive(Deserialize)]
struct Exchange {
    #[serde(default)]
    grant_type: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    redirect_uri: Option<String>,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    code_verifier: String,
}

/// Whether `verifier` is the one `challenge` was made from (S256).
fn verifier_matches(verifier: &str, challenge: &str) -> bool {
    let made = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    made.len() == challenge.len()
        && made
            .bytes()
            .zip(challenge.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// `POST /oauth/token`: a code and its verifier become an API token of the
/// person who granted it.
async fn token(State(state): State<AppState>, Form(exchange): Form<Exchange>) -> Response {
    if exchange.grant_type != "authorization_code" {
        return oauth_error("unsupported_grant_type", "only authorization_code is granted here");
    }
    if exchange.code.is_empty() || exchange.code_verifier.len() < 43 || exchange.code_verifier.len() > 128 {
        return oauth_error(
            "invalid_request",
            "code and a code_verifier of 43 to 128 characters are required",
        );
    }
    let exchanged = async {
        let now = state.app.now();
        let mut tx = state.app.db.write().await?;
        let Some(code) = oauth::take_code(&mut tx, &accounts::hash_token(&exchange.code), now).await? else {
            return Ok(Err("the code is unknown, used or expired"));
        };
        // The code is spent whatever follows.
        let refused = if code.client_id != exchange.client_id {
            Some("the code was granted to another client")
        } else if exchange
            .redirect_uri
            .as_deref()
            .is_some_and(|uri| uri != code.redirect_uri)
        {
            Some("redirect_uri differs from the authorization request's")
        } else if !verifier_matches(&exchange.code_verifier, &code.code_challenge) {
            Some("the code_verifier does not match the code_challenge")
        } else {
            None
        };
        if let Some(refused) = refused {
            tx.commit_unaudited().await?;
            return Ok(Err(refused));
        }
        let client = oauth::client(&mut tx, &code.client_id).await?;
        let user = quire_store::users::get(&mut tx, &code.user_id).await?;
        quire_http::audit::acting(&Caller::with_token(user));
        let label = format!("MCP: {}", client.map(|c| c.name).unwrap_or_default());
        let label: String = label.chars().take(64).collect();
        let token = accounts::insert_token(&mut tx, &code.user_id, Some(&label), now).await?;
        tx.commit().await?;
        Ok::<_, quire_app::error::AppError>(Ok(token))
    }
    .await;
    match exchanged {
        Ok(Ok(token)) => json_answer(
            StatusCode::OK,
            &json!({ "access_token": token, "token_type": "Bearer", "scope": SCOPE }),
        ),
        Ok(Err(refused)) => oauth_error("invalid_grant", refused),
        Err(err) => {
            tracing::error!(error = %err, "exchanging an OAuth code");
            json_answer(StatusCode::INTERNAL_SERVER_ERROR, &json!({ "error": "server_error" }))
        }
    }
}

/// A page of this flow: a small document of its own (no script), never
/// framed.
fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · Quire</title><style>{STYLE}</style></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>",
        title = escape(title),
    );
    // No form-action: the answer redirects to the client, whatever its scheme.
    quire_http::pages::own_page(
        status,
        html,
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    )
}

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;color:#1b1b1f;background:#f6f6f8;margin:0}\
main{max-width:32rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #ddd;border-radius:8px}\
@media(max-width:36rem){main{margin:1rem;padding:1.25rem}}\
h1{font-size:1.4rem;margin-top:0}code{background:#f0f0f3;padding:0 .2em;border-radius:3px;word-break:break-all}\
.actions{display:flex;gap:.75rem;margin-top:1.5rem}\
button{font:inherit;padding:.5rem 1.2rem;border-radius:6px;border:1px solid #3451b2;background:#3451b2;color:#fff;cursor:pointer}\
button.secondary{background:#fff;color:#3451b2}button:focus-visible{outline:3px solid #8aa2ff;outline-offset:2px}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_go_to_https_loopback_or_an_apps_scheme() {
        assert!(redirect_uri_allowed("https://claude.ai/api/mcp/auth_callback"));
        assert!(redirect_uri_allowed("http://localhost:6274/oauth/callback"));
        assert!(redirect_uri_allowed("http://127.0.0.1:33418/callback"));
        assert!(redirect_uri_allowed("http://[::1]:33418/callback"));
        assert!(redirect_uri_allowed("com.example.app:/oauth2redirect"));
        assert!(redirect_uri_allowed("com.example.app:/callback"));
        assert!(redirect_uri_allowed("io.github.some-app://callback"));
        assert!(
            redirect_uri_allowed("https://xn--pple-43d.com/cb"),
            "shown for what it is on the page"
        );
        assert!(!redirect_uri_allowed("http://evil.example/callback"));
        assert!(!redirect_uri_allowed("http://localhost.evil.example/callback"));
        assert!(!redirect_uri_allowed("https://example.com/cb#fragment"));
        assert!(!redirect_uri_allowed("https://user:pw@example.com/cb"));
        assert!(!redirect_uri_allowed("not a url"));
        // A scheme without a period is not an app's reverse-DNS one: the
        // browser's own and the system's handlers all fall out.
        for refused in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
            "vbscript:msgbox",
            "about:blank",
            "blob:https://x.example/1",
            "ms-msdt:/id PCWDiagnostic",
            "ms-msdt:foo",
            "view-source:https://x.example/",
            "chrome://settings",
            "ftp://x.example/cb",
            "wss://x.example/cb",
            "myapp:/callback",
        ] {
            assert!(!redirect_uri_allowed(refused), "{refused}");
        }
        // Editors' own schemes, named one by one.
        assert!(redirect_uri_allowed(
            "cursor://anysphere.cursor-retrieval/oauth/callback"
        ));
        assert!(redirect_uri_allowed(
            "vscode://vscode.github-authentication/did-authenticate"
        ));
        // Periods in the wrong places make no reverse-DNS name.
        for refused in ["com.:/cb", "com..app:/cb"] {
            assert!(!redirect_uri_allowed(refused), "{refused}");
        }
    }

    #[test]
    fn the_consent_page_shows_a_hosts_written_form_when_it_reads_otherwise() {
        assert_eq!(
            redirect_host("https://xn--pple-43d.com/cb"),
            Some(("\u{430}pple.com".to_owned(), Some("xn--pple-43d.com".to_owned())))
        );
        // Given in Unicode, it is compared in its written form all the same.
        assert_eq!(
            redirect_host("https://\u{430}pple.com/cb"),
            Some(("\u{430}pple.com".to_owned(), Some("xn--pple-43d.com".to_owned())))
        );
        assert_eq!(
            redirect_host("https://claude.ai/cb"),
            Some(("claude.ai".to_owned(), None))
        );
        assert_eq!(
            redirect_host("http://127.0.0.1:33418/cb"),
            Some(("127.0.0.1".to_owned(), None))
        );
        assert_eq!(redirect_host("com.example.app:/callback"), None);
    }

    #[test]
    fn verifiers_match_their_s256_challenge() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert!(verifier_matches(
            verifier,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        ));
        assert!(!verifier_matches(
            "another-verifier-of-enough-length-0123456789",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        ));
    }
}
