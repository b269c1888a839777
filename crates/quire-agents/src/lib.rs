//! The organization's Model Context Protocol server, at `/mcp` of the
//! instance: an agent holding an API token (`Authorization: Bearer`) works
//! through tools over what the token's person may do — find spaces, search
//! and read pages, open a change request, write pages from markdown,
//! comment, ask for review, merge, publish a site. Each tool calls the same
//! `quire_app` (and feature) function as the HTTP API, so the same access
//! checks, rules, audit entries and webhooks apply; a refusal comes back as
//! the tool's error text, for the model to read. Each request of a batch
//! counts against the token's rate limit (`quire_http::mcp`). The
//! protocol's messages are `quire-mcp`'s. Clients that follow the
//! protocol's authorization get their token through OAuth ([`oauth`]).

mod oauth;
mod tools;

use std::convert::Infallible;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use quire_app::Caller;
use quire_http::AppState;
use quire_http::auth::Auth;
use quire_http::error::ApiError;
use quire_http::limits::Charge;
use quire_http::mcp::Outcome;
use serde_json::{Value, json};

/// `POST /mcp` (and `GET`/`DELETE`, refused: the server is stateless),
/// and the OAuth flow that gets a client its token ([`oauth`]).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/mcp", post(serve).get(method_not_allowed).delete(method_not_allowed))
        .merge(oauth::router())
}

async fn method_not_allowed() -> Response {
    quire_http::mcp::method_not_allowed()
}

async fn serve(
    State(state): State<AppState>,
    auth: Result<Auth, ApiError>,
    charge: Charge,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let caller = match auth {
        Ok(Auth(caller)) => caller,
        Err(refused) => {
            // A client without a token learns where to get one.
            let mut res = refused.into_response();
            if res.status() == StatusCode::UNAUTHORIZED {
                res.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, oauth::challenge(&state));
            }
            return res;
        }
    };
    let (state, caller) = (&state, &caller);
    let answered = quire_http::mcp::answer(&headers, &charge, &body, move |method, params| async move {
        Ok::<_, Infallible>(request(state, caller, &method, &params).await)
    })
    .await;
    match answered {
        Ok(res) => res,
        Err(never) => match never {},
    }
}

async fn request(state: &AppState, caller: &Caller, method: &str, params: &Value) -> Outcome {
    match method {
        "initialize" => Ok(quire_mcp::initialize(
            params,
            "Quire",
            env!("CARGO_PKG_VERSION"),
            "Quire's documentation, as the token's person may use it: find spaces, search and read \
             pages, and change them through change requests (open one, write pages from markdown, \
             ask for review, merge), comment, publish sites.",
        )),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(quire_mcp::tool_list(&tools::list())),
        "tools/call" => {
            let (name, arguments) = quire_mcp::tool_call(params)?;
            tools::call(state, caller, name, arguments).await
        }
        other => Err((quire_mcp::METHOD_NOT_FOUND, format!("no method {other:?}"))),
    }
}
