//! Store errors: the few outcomes callers branch on, plus the database error.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row asked for does not exist.
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was broken: a second row of `table` with the same
    /// values in `columns` (read from the error of either backend).
    #[error("a {table} row with the same {} already exists", columns.join(", "))]
    Unique { table: String, columns: Vec<String> },
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
            sqlx::Error::Database(db) if db.is_unique_violation() => unique_violation(db.as_ref()),
            _ => StoreError::Database(err),
        }
    }
}

/// The table and columns of a unique violation. SQLite names them in its
/// message (`UNIQUE constraint failed: invites.organization_id, invites.email`);
/// PostgreSQL gives the table and names the columns in the detail
/// (`Key (organization_id, email)=(...) already exists.`).
fn unique_violation(err: &dyn sqlx::error::DatabaseError) -> StoreError {
    if let Some(pg) = err.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
        let columns = pg
            .detail()
            .and_then(|d| d.strip_prefix("Key ("))
            .and_then(|d| d.split_once(")="))
            .map(|(cols, _)| cols.split(", ").map(str::to_owned).collect())
            .unwrap_or_default();
        return StoreError::Unique {
            table: pg.table().unwrap_or_default().to_owned(),
            columns,
        };
    }
    let listed = err.message().rsplit_once("failed: ").map_or("", |(_, cols)| cols);
    let mut table = String::new();
    let mut columns = Vec::new();
    for qualified in listed.split(", ") {
        if let Some((t, column)) = qualified.split_once('.') {
            table = t.to_owned();
            columns.push(column.to_owned());
        }
    }
    StoreError::Unique { table, columns }
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
