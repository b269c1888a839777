//! A small builder for queries assembled at run time (optional filters,
//! keyset conditions). It numbers parameters `$1, $2, ...`, which both
//! backends accept, and keeps the text and the bound values in step.

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, AnyConnection, Arguments, AssertSqlSafe, Encode, Type};

use crate::error::StoreResult;

pub struct Sql {
    text: String,
    args: AnyArguments,
    count: usize,
    /// Whether the connection keeps the statement prepared (see
    /// [`Sql::not_kept`]).
    kept: bool,
}

impl Sql {
    pub fn new(text: &str) -> Sql {
        Sql {
            text: text.to_owned(),
            args: AnyArguments::default(),
            count: 0,
            kept: true,
        }
    }

    /// Appends literal SQL text (never user input).
    pub fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub fn bind<T>(&mut self, value: T) -> &mut Self
    where
        T: for<'q> Encode<'q, Any> + Type<Any> + Send + 'static,
    {
        self.count += 1;
        self.text.push('$');
        self.text.push_str(&self.count.to_string());
        // Encoding into `AnyArguments` only fails for types Any cannot carry,
        // which the bounds above already rule out.
        self.args.add(value).expect("value encodes for the Any driver");
        self
    }

    pub async fn fetch_all(self, conn: &mut AnyConnection) -> StoreResult<Vec<AnyRow>> {
        Ok(sqlx::query_with(AssertSqlSafe(self.text), self.args)
            .persistent(self.kept)
            .fetch_all(conn)
            .await?)
    }

    pub async fn execute(self, conn: &mut AnyConnection) -> StoreResult<u64> {
        Ok(sqlx::query_with(AssertSqlSafe(self.text), self.args)
            .persistent(self.kept)
            .execute(conn)
            .await?
            .rows_affected())
    }

    pub async fn fetch_one(self, conn: &mut AnyConnection) -> StoreResult<AnyRow> {
        Ok(sqlx::query_with(AssertSqlSafe(self.text), self.args)
            .persistent(self.kept)
            .fetch_one(conn)
            .await?)
    }
}

/// Reads a nullable role column.
pub(crate) fn role_column(row: &AnyRow, column: &str) -> StoreResult<Option<quire_core::Role>> {
    use sqlx::Row;
    let text: Option<String> = row.try_get(column)?;
    text.map(|t| {
        t.parse()
            .map_err(|e: quire_core::role::UnknownRole| crate::StoreError::Corrupt(e.to_string()))
    })
    .transpose()
}

impl Sql {
    /// Appends `LOWER(column) LIKE '%needle%'`: a case-insensitive substring
    /// test with the LIKE wildcards in `needle` taken literally.
    pub fn push_contains(&mut self, column: &str, needle: &str) -> &mut Self {
        let mut pattern = String::with_capacity(needle.len() + 2);
        pattern.push('%');
        for c in needle.to_lowercase().chars() {
            if matches!(c, '%' | '_' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        self.push("LOWER(")
            .push(column)
            .push(") LIKE ")
            .bind(pattern)
            .push(" ESCAPE '\\'")
    }
}

/// Reads a 0/1 flag column as a boolean.
pub(crate) fn flag_column(row: &AnyRow, column: &str) -> StoreResult<bool> {
    use sqlx::Row;
    Ok(row.try_get::<i64, _>(column)? != 0)
}

/// The stored form of a flag.
pub(crate) fn flag(value: bool) -> i64 {
    i64::from(value)
}

impl Sql {
    /// Appends `(<v1>, <v2>, ...)`, each value bound: the list of an `IN`
    /// condition. The caller makes sure `values` is not empty.
    ///
    /// The list is padded to a power of two by repeating its last value
    /// (which an `IN` ignores), so a query has at most ten shapes however
    /// long its lists are, and each shape stays among the connection's
    /// prepared statements instead of pushing out the others.
    pub fn bind_list<T>(&mut self, values: &[T]) -> &mut Self
    where
        T: Clone + for<'q> Encode<'q, Any> + Type<Any> + Send + 'static,
    {
        self.push("(");
        let padded = values.len().next_power_of_two();
        for (i, value) in values
            .iter()
            .chain(std::iter::repeat_n(values.last(), padded - values.len()).flatten())
            .enumerate()
        {
            if i > 0 {
                self.push(", ");
            }
            self.bind(value.clone());
        }
        self.push(")")
    }

    /// Marks a statement whose text grows with its input (the rows of a
    /// many-row `INSERT`) as one not to keep prepared: each length would be
    /// a statement of its own, filling every connection's cache.
    pub fn not_kept(&mut self) -> &mut Self {
        self.kept = false;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::Sql;

    fn list_of(n: usize) -> String {
        let values: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let mut sql = Sql::new("SELECT 1 WHERE id IN ");
        sql.bind_list(&values);
        sql.text
    }

    #[test]
    fn lists_are_padded_to_a_power_of_two() {
        assert_eq!(list_of(1), "SELECT 1 WHERE id IN ($1)");
        assert_eq!(list_of(3), "SELECT 1 WHERE id IN ($1, $2, $3, $4)");
        assert_eq!(list_of(4), "SELECT 1 WHERE id IN ($1, $2, $3, $4)");
        let shapes: std::collections::HashSet<String> = (1..=500).map(list_of).collect();
        assert_eq!(shapes.len(), 10);
    }
}
