//! Store errors: the few outcomes callers branch on, plus the database error.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row asked for does not exist.
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was broken (a second row with the same key).
    #[error("conflict: {0}")]
    Conflict(String),
    /// A stored value could not be read back (a bug or a hand-edited database).
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Database(sqlx::Error),
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

pub type StoreResult<T> = Result<T, StoreError>;

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
            _ => StoreError::Database(err),
        }
    }
}

/// Turns `Ok(None)` into `NotFound`, for lookups that must find their row.
pub trait FoundExt<T> {
    fn found(self) -> StoreResult<T>;
}

impl<T> FoundExt<T> for StoreResult<Option<T>> {
    fn found(self) -> StoreResult<T> {
        self.and_then(|row| row.ok_or(StoreError::NotFound))
    }
}
