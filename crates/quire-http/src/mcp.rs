//! The HTTP side of the Model Context Protocol's streamable transport,
//! shared by the published sites' servers and the organization's: a `POST`
//! of JSON-RPC messages is checked (content type, `MCP-Protocol-Version`),
//! read, and each request answered by the server's own dispatch; `GET` and
//! `DELETE` are refused, the servers being stateless. The messages
//! themselves are `quire-mcp`'s.
//!
//! A batch costs what its requests would cost one by one: the rate limits
//! counted the `POST` as one request, and each request of the batch after
//! the first counts as one more against the same client's limit
//! ([`Charge`]). Once the limit is reached, the batch's remaining requests
//! are not run: each gets a JSON-RPC error ([`RATE_LIMITED`]).

use std::future::Future;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quire_mcp::{Message, Reply};
use serde_json::Value;

use crate::limits::Charge;

/// The JSON-RPC error code of a request of a batch refused for the
/// client's rate limit (a server error, in the range JSON-RPC leaves to
/// servers).
pub const RATE_LIMITED: i64 = -32000;

/// What a server's dispatch makes of one request: its result, or a
/// JSON-RPC error code and message.
pub type Outcome = Result<Value, (i64, String)>;

/// A JSON answer.
pub fn json_answer(status: StatusCode, body: &Value) -> Response {
    let mut res = (status, body.to_string()).into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    res
}

/// A refusal before any request is read, as a JSON-RPC error without id.
pub fn refused(status: StatusCode, message: &str) -> Response {
    json_answer(status, &quire_mcp::error(&Value::Null, -32000, message))
}

/// The answer to `GET` and `DELETE`: 405, `Allow: POST`.
pub fn method_not_allowed() -> Response {
    let mut res = json_answer(StatusCode::METHOD_NOT_ALLOWED, &quire_mcp::method_not_allowed());
    res.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    res
}

/// Answers a `POST` of `body`: 415 unless it is JSON, 400 for a protocol
/// version the server does not speak or an unreadable body, else each
/// request answered by `respond(method, params)`, in order (202 when the
/// body held only notifications), each after the first counted against
/// the client's limit with `charge` (see the module's documentation). An
/// error of `respond` ends the whole answer.
pub async fn answer<E, Fut>(
    headers: &HeaderMap,
    charge: &Charge,
    body: &[u8],
    mut respond: impl FnMut(String, Value) -> Fut,
) -> Result<Response, E>
where
    Fut: Future<Output = Result<Outcome, E>>,
{
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !content_type.starts_with("application/json") {
        return Ok(refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send JSON-RPC as application/json",
        ));
    }
    let version = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
    if !quire_mcp::speaks(version) {
        return Ok(refused(StatusCode::BAD_REQUEST, "unsupported MCP-Protocol-Version"));
    }
    let messages = match quire_mcp::read(body) {
        Ok(messages) => messages,
        Err(unreadable) => return Ok(json_answer(StatusCode::BAD_REQUEST, &unreadable.answer())),
    };
    let mut answers = Vec::new();
    // Why the batch's remaining requests are not run, once its client's
    // limit is reached.
    let mut limit_reached: Option<String> = None;
    for message in messages {
        if let Message::Request { id, method, params } = message {
            if !answers.is_empty()
                && limit_reached.is_none()
                && let Err(reached) = charge.one_more().await
            {
                limit_reached = Some(format!("{reached}; this request of the batch was not run"));
            }
            if let Some(why) = &limit_reached {
                answers.push(quire_mcp::error(&id, RATE_LIMITED, why));
                continue;
            }
            answers.push(match respond(method, params).await? {
                Ok(result) => quire_mcp::result(&id, result),
                Err((code, message)) => quire_mcp::error(&id, code, &message),
            });
        }
    }
    Ok(match Reply::of(quire_mcp::is_batch(body), answers) {
        Reply::Accepted => StatusCode::ACCEPTED.into_response(),
        Reply::Json(value) => json_answer(StatusCode::OK, &value),
    })
}
