//! The application's errors: the few outcomes a caller can act on, each with
//! a message written for the person who sent the request.
//!
//! Policy:
//! - `NotFound` names what was missing (`space "abc" not found`). Something
//!   the caller may not see is reported exactly like something that does not
//!   exist, so ids cannot be probed.
//! - A broken uniqueness rule maps, by its table and columns, to a message
//!   that says what is taken ([`unique_conflict`]); the store never decides
//!   wording.
//! - A refused merge or update names every conflicting page, title and id.
//! - `Internal` carries the cause for the log; callers show only that
//!   something went wrong.

use quire_engine::EngineError;
use quire_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The input is invalid; the message names the field and the rule.
    #[error("{0}")]
    Invalid(String),
    /// The caller may see the resource but not do this to it.
    #[error("{0}")]
    Forbidden(String),
    /// The message names what is missing (see [`AppError::not_found`]).
    #[error("{0}")]
    NotFound(String),
    /// The request cannot apply in the current state.
    #[error("{0}")]
    Conflict(String),
    /// The input is larger than a documented limit.
    #[error("{0}")]
    TooLarge(String),
    /// Signing in failed: wrong credentials, an expired link. The message
    /// never says which of email or password was wrong.
    #[error("{0}")]
    SignInFailed(String),
    /// Too many attempts; try again after `retry_after_secs`.
    #[error("{message}")]
    TooManyAttempts { message: String, retry_after_secs: u64 },
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    pub fn invalid(message: impl Into<String>) -> AppError {
        AppError::Invalid(message.into())
    }

    pub fn forbidden(message: impl Into<String>) -> AppError {
        AppError::Forbidden(message.into())
    }

    /// `<what> "<id>" not found`.
    pub fn not_found(what: &str, id: &str) -> AppError {
        AppError::NotFound(format!("{what} {id:?} not found"))
    }

    pub fn conflict(message: impl Into<String>) -> AppError {
        AppError::Conflict(message.into())
    }

    pub fn is_not_found(&self) -> bool {
        matches!(self, AppError::NotFound(_))
    }
}

/// The message for a second row with the same unique values.
fn unique_conflict(table: &str, columns: &[String]) -> AppError {
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let message = match (table, columns.as_slice()) {
        ("organizations", ["hostname"]) => "that hostname is already taken by another organization".to_owned(),
        ("users", ["email"]) => "a user with that email address already exists".to_owned(),
        ("change_requests", ["space_id", "number"]) => {
            "another change request took that number at the same time: retry".to_owned()
        }
        ("invites", ["organization_id", "email"]) => "that email address is already invited".to_owned(),
        ("sites", ["basename"]) => "another site already uses that basename".to_owned(),
        ("sites", ["hostname"]) => "that hostname is already used by another site".to_owned(),
        ("site_sections", ["site_id", "path"]) => "another section of this site already uses that path".to_owned(),
        (table, columns) => format!(
            "a {} with the same {} already exists",
            table.trim_end_matches('s'),
            columns.join(" and ")
        ),
    };
    AppError::Conflict(message)
}

impl From<StoreError> for AppError {
    fn from(err: StoreError) -> Self {
        match err {
            // Lookups that can miss name what they looked for (see
            // `NotFoundExt`); a bare `NotFound` reaching here is a row that
            // vanished in between, which only a retry can fix.
            StoreError::NotFound => {
                AppError::NotFound("the resource was not found (it may just have been removed)".into())
            }
            StoreError::Unique { table, columns } => unique_conflict(&table, &columns),
            other => AppError::Internal(other.into()),
        }
    }
}

impl From<EngineError> for AppError {
    fn from(err: EngineError) -> Self {
        match err {
            EngineError::Invalid(message) => AppError::Invalid(message),
            EngineError::NotFound(what) => AppError::NotFound(what),
            EngineError::Conflict(message) => AppError::Conflict(message),
            EngineError::TooLarge(message) => AppError::TooLarge(message),
            EngineError::Store(err) => err.into(),
            EngineError::Blob(err) => AppError::Internal(err.into()),
        }
    }
}

/// Names what a store lookup was looking for when it finds nothing.
pub trait NotFoundExt<T> {
    fn or_not_found(self, what: &str, id: &str) -> AppResult<T>;
}

impl<T> NotFoundExt<T> for Result<T, StoreError> {
    fn or_not_found(self, what: &str, id: &str) -> AppResult<T> {
        self.map_err(|err| match err {
            StoreError::NotFound => AppError::not_found(what, id),
            other => other.into(),
        })
    }
}
