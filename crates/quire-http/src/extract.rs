//! Request extractors that report bad input in the official error shape.
//!
//! axum's own extractors answer with plain-text rejections; these wrap them so
//! every malformed body, query or path becomes an [`ApiError`]. They also hold
//! the rules every text input obeys, in one place:
//! - a body is JSON, sent as `Content-Type: application/json` (415 otherwise);
//! - no text (body string, query parameter, path segment) contains NUL: it
//!   has no meaning in any field, PostgreSQL cannot store it, and SQLite
//!   would store it silently, so both backends refuse it alike (400).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Largest request body accepted (file uploads in content batches included).
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

const NUL_REFUSED: &str = "text must not contain NUL characters (\\u0000)";

/// True when a JSON text holds a NUL character in a string (`\u0000`), or
/// a raw NUL byte anywhere.
fn json_has_nul(json: &[u8]) -> bool {
    let mut in_string = false;
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            0 => return true,
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if json.get(i + 1) == Some(&b'u') && json.get(i + 2..i + 6) == Some(b"0000".as_slice()) {
                    return true;
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// True when a URL component holds an encoded NUL (`%00`).
fn url_has_nul(component: &str) -> bool {
    component.contains("%00")
}

/// Whether the request says its body is JSON (`application/json`, with or
/// without parameters, or a `+json` type).
fn declares_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// A JSON request body. An empty body reads as `{}`, so operations whose
/// fields are all optional work bare (with or without a `Content-Type`);
/// anything else must be declared `application/json`.
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let json = declares_json(req.headers());
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge(format!(
                    "the request body is larger than {} MiB",
                    MAX_BODY_BYTES / (1024 * 1024)
                ))
            } else {
                ApiError::bad_request(format!("could not read the request body: {rejection}"))
            }
        })?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else if !json {
            return Err(ApiError::UnsupportedMediaType(
                "request bodies are JSON: send them with Content-Type: application/json".into(),
            ));
        } else {
            &bytes
        };
        if json_has_nul(bytes) {
            return Err(ApiError::bad_request(NUL_REFUSED));
        }
        serde_json::from_slice(bytes)
            .map(JsonBody)
            .map_err(|err| ApiError::bad_request(format!("invalid request body: {err}")))
    }
}

/// Query-string parameters.
pub struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        if url_has_nul(query) {
            return Err(ApiError::bad_request(NUL_REFUSED));
        }
        serde_html_form::from_str(query)
            .map(Query)
            .map_err(|err| ApiError::bad_request(format!("invalid query parameter: {err}")))
    }
}

/// Path parameters.
pub struct Path<T>(pub T);

impl<S, T> FromRequestParts<S> for Path<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if url_has_nul(parts.uri.path()) {
            return Err(ApiError::bad_request(NUL_REFUSED));
        }
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|err| ApiError::bad_request(format!("invalid path parameter: {}", err.body_text())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_in_json_strings_is_found_and_escaped_backslashes_are_not() {
        assert!(json_has_nul(br#"{"title":"a\u0000b"}"#));
        assert!(json_has_nul(b"{\"title\":\"a\0b\"}"));
        assert!(!json_has_nul(br#"{"title":"a\\u0000b"}"#));
        assert!(!json_has_nul(br#"{"title":"\"\\","n":"u0000"}"#));
        assert!(json_has_nul(br#"{"a":"\\","b":"\u0000"}"#));
    }

    #[test]
    fn json_content_types() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_TYPE, value.parse().unwrap());
            declares_json(&headers)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(with("application/merge-patch+json"));
        assert!(!with("text/plain"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(!declares_json(&HeaderMap::new()));
    }
}
