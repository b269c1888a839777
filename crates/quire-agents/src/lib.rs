//! The organization's Model Context Protocol server, at `/mcp` of the
//! instance: an agent holding an API token (`Authorization: Bearer`) works
//! through tools over what the token's person may do — find spaces, search
//! and read pages, open a change request, write pages from markdown,
//! comment, ask for review, merge, publish a site. Each tool calls the same
//! `quire_app` (and feature) function as the HTTP API, so the same access
//! checks, rules, audit entries and webhooks apply; a refusal comes back as
//! the tool's error text, for the model to read. The protocol's messages
//! are `quire-mcp`'s.

mod tools;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use quire_http::AppState;
use quire_http::auth::Auth;
use quire_mcp::{Message, Reply};
use serde_json::{Value, json};

/// `POST /mcp` (and `GET`/`DELETE`, refused: the server is stateless).
pub fn router() -> Router<AppState> {
    Router::new().route("/mcp", post(serve).get(method_not_allowed).delete(method_not_allowed))
}

fn json_answer(status: StatusCode, body: &Value) -> Response {
    let mut res = (status, body.to_string()).into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    res
}

async fn method_not_allowed() -> Response {
    let mut res = json_answer(StatusCode::METHOD_NOT_ALLOWED, &quire_mcp::method_not_allowed());
    res.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    res
}

async fn serve(State(state): State<AppState>, Auth(caller): Auth, headers: HeaderMap, body: Bytes) -> Response {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !content_type.starts_with("application/json") {
        return json_answer(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &quire_mcp::error(&Value::Null, -32000, "send JSON-RPC as application/json"),
        );
    }
    let version = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
    if !quire_mcp::speaks(version) {
        return json_answer(
            StatusCode::BAD_REQUEST,
            &quire_mcp::error(&Value::Null, -32000, "unsupported MCP-Protocol-Version"),
        );
    }
    let messages = match quire_mcp::read(&body) {
        Ok(messages) => messages,
        Err(unreadable) => return json_answer(StatusCode::BAD_REQUEST, &unreadable.answer()),
    };
    let mut answers = Vec::new();
    for message in messages {
        if let Message::Request { id, method, params } = message {
            let answer = match method.as_str() {
                "initialize" => quire_mcp::result(
                    &id,
                    quire_mcp::initialize(
                        &params,
                        "Quire",
                        env!("CARGO_PKG_VERSION"),
                        "Quire's documentation, as the token's person may use it: find spaces, search and read \
                         pages, and change them through change requests (open one, write pages from markdown, \
                         ask for review, merge), comment, publish sites.",
                    ),
                ),
                "ping" => quire_mcp::result(&id, json!({})),
                "tools/list" => quire_mcp::result(&id, quire_mcp::tool_list(&tools::list())),
                "tools/call" => match quire_mcp::tool_call(&params) {
                    Ok((name, arguments)) => match tools::call(&state, &caller, name, arguments).await {
                        Ok(result) => quire_mcp::result(&id, result),
                        Err((code, message)) => quire_mcp::error(&id, code, &message),
                    },
                    Err((code, message)) => quire_mcp::error(&id, code, &message),
                },
                other => quire_mcp::error(&id, quire_mcp::METHOD_NOT_FOUND, &format!("no method {other:?}")),
            };
            answers.push(answer);
        }
    }
    match Reply::of(quire_mcp::is_batch(&body), answers) {
        Reply::Accepted => StatusCode::ACCEPTED.into_response(),
        Reply::Json(value) => json_answer(StatusCode::OK, &value),
    }
}
