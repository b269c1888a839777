//! The one error type of the HTTP layer and its policy.
//!
//! Policy:
//! - Every failure answers `{"error": {"code": <status>, "message": "..."}}`,
//!   the official API's error shape, whatever produced it (an area of the
//!   application, an extractor, an unknown route, the body limit, a request
//!   hyper refuses before routing: see `http::ErrorBodies`).
//! - Application errors map to statuses in one place ([`From<AppError>`]):
//!   invalid 400, failed sign-in 401, forbidden 403, not found 404,
//!   conflict 409, too large 413, too many attempts 429 (with
//!   `Retry-After`).
//!   Their messages are written for the person who sent the request.
//! - 5xx details (database errors, bugs) go to the log with the request id,
//!   never into the body, which only says "internal error".

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use quire_app::AppError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("a valid API token is required (Authorization: Bearer <token>)")]
    Unauthorized,
    #[error("{0}")]
    SignInFailed(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{message}")]
    TooManyRequests { message: String, retry_after_secs: u64 },
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::BadRequest(message.into())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized | ApiError::SignInFailed(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<AppError> for ApiError {
    fn from(err: AppError) -> Self {
        match err {
            AppError::Invalid(message) => ApiError::BadRequest(message),
            AppError::Forbidden(message) => ApiError::Forbidden(message),
            AppError::NotFound(message) => ApiError::NotFound(message),
            AppError::Conflict(message) => ApiError::Conflict(message),
            AppError::TooLarge(message) => ApiError::PayloadTooLarge(message),
            AppError::SignInFailed(message) => ApiError::SignInFailed(message),
            AppError::TooManyAttempts {
                message,
                retry_after_secs,
            } => ApiError::TooManyRequests {
                message,
                retry_after_secs,
            },
            AppError::Internal(err) => ApiError::Internal(err),
        }
    }
}

/// The body of every error response.
pub fn error_body(status: StatusCode, message: &str) -> Response {
    (status, Json(error_json(status, message))).into_response()
}

/// `{"error": {"code", "message"}}`.
pub fn error_json(status: StatusCode, message: &str) -> serde_json::Value {
    serde_json::json!({ "error": { "code": status.as_u16(), "message": message } })
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
        let mut response = error_body(status, &message);
        if let ApiError::TooManyRequests { retry_after_secs, .. } = self {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, retry_after_secs.into());
        }
        response
    }
}
