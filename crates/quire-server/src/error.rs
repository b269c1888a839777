//! The one error type of the HTTP layer and its policy.
//!
//! Policy:
//! - Every failure answers `{"error": {"code": <status>, "message": "..."}}`,
//!   the official API's error shape, whatever produced it (handler, extractor,
//!   unknown route, body limit).
//! - 4xx messages say what was wrong with the request so a user can fix it.
//! - 5xx details (database errors, bugs) go to the log with the request id,
//!   never into the body, which only says "internal error".
//! - A resource the caller may not see is reported exactly like one that does
//!   not exist (404), so ids cannot be probed.
//! - Store outcomes map in one place: `NotFound` -> 404, `Conflict` -> 409.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use quire_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("a valid API token is required (Authorization: Bearer <token>)")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    Conflict(String),
    #[error("request body is too large")]
    PayloadTooLarge,
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::BadRequest(message.into())
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::Forbidden(message.into())
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::NotFound(format!("{what} not found"))
    }

    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::Conflict(message.into())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::NotFound => ApiError::NotFound("not found".into()),
            StoreError::Conflict(_) => {
                ApiError::Conflict("a resource with the same unique value already exists".into())
            }
            other => ApiError::Internal(other.into()),
        }
    }
}

/// The body of every error response.
pub fn error_body(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({ "error": { "code": status.as_u16(), "message": message } });
    (status, Json(body)).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = match &self {
            ApiError::Internal(err) => {
                tracing::error!(error = ?err, "internal error");
                "internal error".to_owned()
            }
            other => other.to_string(),
        };
        error_body(status, &message)
    }
}

impl From<quire_engine::EngineError> for ApiError {
    fn from(err: quire_engine::EngineError) -> Self {
        use quire_engine::EngineError;
        match err {
            EngineError::Invalid(message) => ApiError::BadRequest(message),
            EngineError::NotFound(what) => ApiError::not_found(what),
            EngineError::Conflict { message, .. } => ApiError::Conflict(message),
            EngineError::Store(err) => err.into(),
            EngineError::Blob(err) => ApiError::Internal(err.into()),
        }
    }
}
