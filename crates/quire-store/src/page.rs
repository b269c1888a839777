//! Keyset pagination: a page is "the next `limit` rows after this position in
//! a total order", never an OFFSET, so a deep page costs what the first costs
//! and rows inserted meanwhile never shift what a cursor points at.

use crate::sql::Sql;

/// The value of the sort column at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortKey {
    Int(i64),
    Text(String),
}

/// A position in a list ordered by `(sort column, id column)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyset {
    pub key: SortKey,
    pub id: String,
}

/// One page of rows and the position of its last row when more follow.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<Keyset>,
    /// How many rows the whole list holds; `None` for lists too long to
    /// count on every read (the audit log), where `count` is left out.
    pub total: Option<i64>,
}

/// Where a page starts and how big it is.
#[derive(Debug, Clone)]
pub struct PageRequest {
    pub after: Option<Keyset>,
    pub limit: u32,
    pub descending: bool,
}

impl PageRequest {
    /// Appends ` AND (sort_col, id_col) > (<cursor>)` (`<` when descending):
    /// the rows after the cursor in that order. A row-value comparison rather
    /// than the equivalent `a > x OR (a = x AND b > y)`, because PostgreSQL
    /// turns only the former into an index range, so a deep page seeks
    /// straight to the cursor instead of filtering every row before it.
    pub fn push_after(&self, sql: &mut Sql, sort_col: &str, id_col: &str) {
        let Some(after) = &self.after else { return };
        let cmp = if self.descending { ") < (" } else { ") > (" };
        sql.push(" AND (").push(sort_col).push(", ").push(id_col).push(cmp);
        bind_key(sql, &after.key);
        sql.push(", ").bind(after.id.clone()).push(")");
    }

    /// Appends ` ORDER BY ... LIMIT <limit + 1>`: one extra row tells whether
    /// another page follows.
    pub fn push_order_and_limit(&self, sql: &mut Sql, sort_col: &str, id_col: &str) {
        let dir = if self.descending { " DESC" } else { " ASC" };
        sql.push(" ORDER BY ")
            .push(sort_col)
            .push(dir)
            .push(", ")
            .push(id_col)
            .push(dir);
        sql.push(" LIMIT ").bind(i64::from(self.limit) + 1);
    }

    /// Cuts the extra row off and records where the next page starts.
    pub fn finish<T>(&self, mut rows: Vec<T>, total: impl Into<Option<i64>>, key_of: impl Fn(&T) -> Keyset) -> Page<T> {
        let limit = self.limit as usize;
        let next = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(key_of)
        } else {
            None
        };
        Page {
            items: rows,
            next,
            total: total.into(),
        }
    }
}

impl<T> Page<T> {
    /// Shapes every item with `f`, keeping the page's position and total.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next: self.next,
            total: self.total,
        }
    }

    /// One page of a list computed in memory, in its order: the cursor is
    /// the position of the last item (lists derived from a revision, whose
    /// order never changes).
    pub fn of_list(items: Vec<T>, request: &PageRequest) -> Page<T> {
        let start = request
            .after
            .as_ref()
            .and_then(|a| a.id.parse::<usize>().ok())
            .map_or(0, |i| i + 1);
        let total = items.len() as i64;
        let rows: Vec<(usize, T)> = items
            .into_iter()
            .enumerate()
            .skip(start)
            .take(request.limit as usize + 1)
            .collect();
        request
            .finish(rows, total, |(i, _)| Keyset {
                key: SortKey::Int(*i as i64),
                id: i.to_string(),
            })
            .map(|(_, item)| item)
    }
}

fn bind_key(sql: &mut Sql, key: &SortKey) {
    match key {
        SortKey::Int(v) => sql.bind(*v),
        SortKey::Text(v) => sql.bind(v.clone()),
    };
}
