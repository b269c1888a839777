//! Requests per client and one-minute window, summed over the nodes that
//! share the database (see migration 0021): what rate limits across nodes
//! are counted in.

use sqlx::{AnyConnection, Row};

use crate::error::StoreResult;
use crate::sql::Sql;

/// Rows an upsert statement carries at most.
const ROWS_PER_STATEMENT: usize = 200;

/// Adds these counts (client, requests) to the window's, and returns each
/// client's total over every node.
pub async fn add(
    conn: &mut AnyConnection,
    window_start: i64,
    counts: &[(String, i64)],
) -> StoreResult<Vec<(String, i64)>> {
    let mut totals = Vec::with_capacity(counts.len());
    for chunk in counts.chunks(ROWS_PER_STATEMENT) {
        let mut sql = Sql::new("INSERT INTO rate_counts (client, window_start, requests) VALUES ");
        sql.not_kept();
        for (i, (client, requests)) in chunk.iter().enumerate() {
            sql.push(if i == 0 { "(" } else { ", (" })
                .bind(client.clone())
                .push(", ")
                .bind(window_start)
                .push(", ")
                .bind(*requests)
                .push(")");
        }
        sql.push(
            " ON CONFLICT (client, window_start) DO UPDATE SET requests = rate_counts.requests + excluded.requests \
             RETURNING client, requests",
        );
        for row in sql.fetch_all(&mut *conn).await? {
            totals.push((row.try_get("client")?, row.try_get("requests")?));
        }
    }
    Ok(totals)
}

/// The client's requests in the window over every node (0 when none).
pub async fn total(conn: &mut AnyConnection, client: &str, window_start: i64) -> StoreResult<i64> {
    let requests: Option<i64> =
        sqlx::query_scalar("SELECT requests FROM rate_counts WHERE client = $1 AND window_start = $2")
            .bind(client)
            .bind(window_start)
            .fetch_optional(conn)
            .await?;
    Ok(requests.unwrap_or(0))
}

/// Deletes the windows that started before `window_start`.
pub async fn forget_before(conn: &mut AnyConnection, window_start: i64) -> StoreResult<u64> {
    Ok(sqlx::query("DELETE FROM rate_counts WHERE window_start < $1")
        .bind(window_start)
        .execute(conn)
        .await?
        .rows_affected())
}
