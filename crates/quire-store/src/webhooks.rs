//! Webhook endpoints and their deliveries (migration 0023), and [`emit`]:
//! an event becomes one delivery per subscribed endpoint of its
//! organization, each with the job that sends it (kind [`DELIVERY_JOB`],
//! run by `quire_webhooks::Deliver`), written in the caller's transaction
//! so a delivery exists exactly when the change that caused it commits.

use quire_core::Timestamp;
use quire_core::events::{DeliveryState, EventType};
use serde_json::{Map, Value};
use sqlx::{AnyConnection, Row};

use crate::error::{StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

/// The job kind that sends a delivery; its payload is `{"delivery": id}`.
pub const DELIVERY_JOB: &str = "webhook-delivery";

/// Where an event happened: its organization, or a space of one.
#[derive(Debug, Clone, Copy)]
pub enum Origin<'a> {
    Organization(&'a str),
    Space(&'a str),
}

/// Records `kind` with `data` (the event's own fields) for every active
/// endpoint of the origin's organization subscribed to it; returns how
/// many deliveries were queued. Without endpoints this is one read.
pub async fn emit(
    conn: &mut AnyConnection,
    origin: Origin<'_>,
    kind: EventType,
    data: Value,
    now: Timestamp,
) -> StoreResult<usize> {
    let rows = match origin {
        Origin::Organization(org) => {
            sqlx::query("SELECT id, organization_id, events FROM webhooks WHERE organization_id = $1 AND active = 1")
                .bind(org)
                .fetch_all(&mut *conn)
                .await?
        }
        Origin::Space(space) => {
            sqlx::query(
                "SELECT w.id, w.organization_id, w.events FROM webhooks w \
                 WHERE w.active = 1 AND w.organization_id = (SELECT s.organization_id FROM spaces s WHERE s.id = $1)",
            )
            .bind(space)
            .fetch_all(&mut *conn)
            .await?
        }
    };
    let mut subscribed = Vec::new();
    for row in &rows {
        let events: String = row.try_get("events")?;
        if parse_events(&events)?.contains(&kind) {
            subscribed.push((
                row.try_get::<String, _>("id")?,
                row.try_get::<String, _>("organization_id")?,
            ));
        }
    }
    let Some((_, org)) = subscribed.first() else {
        return Ok(0);
    };
    let event_id = quire_core::id::new_id();
    let mut body = Map::new();
    body.insert("eventId".into(), Value::from(event_id.clone()));
    body.insert("type".into(), Value::from(kind.as_str()));
    body.insert("organizationId".into(), Value::from(org.clone()));
    body.insert("createdAt".into(), Value::from(now.to_rfc3339()));
    if let Value::Object(fields) = data {
        body.extend(fields);
    }
    let body = Value::Object(body).to_string();
    for (webhook, org) in &subscribed {
        let id = quire_core::id::new_id();
        insert_delivery(conn, &id, webhook, org, &event_id, kind.as_str(), &body, None, now).await?;
    }
    Ok(subscribed.len())
}

#[allow(clippy::too_many_arguments)]
async fn insert_delivery(
    conn: &mut AnyConnection,
    id: &str,
    webhook: &str,
    org: &str,
    event_id: &str,
    event_type: &str,
    body: &str,
    redelivery_of: Option<&str>,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, body, state, \
         attempts, created_at, redelivery_of) VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $8)",
    )
    .bind(id)
    .bind(webhook)
    .bind(org)
    .bind(event_id)
    .bind(event_type)
    .bind(body)
    .bind(now.0)
    .bind(redelivery_of)
    .execute(&mut *conn)
    .await?;
    let payload = serde_json::json!({ "delivery": id }).to_string();
    crate::jobs::enqueue(conn, DELIVERY_JOB, org, &payload, now, now).await?;
    Ok(())
}

fn parse_events(text: &str) -> StoreResult<Vec<EventType>> {
    let names: Vec<String> =
        serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("webhook events: {e}")))?;
    names
        .iter()
        .map(|name| EventType::parse(name).ok_or_else(|| StoreError::Corrupt(format!("webhook event {name:?}"))))
        .collect()
}

/// An endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRow {
    pub id: String,
    pub organization_id: String,
    pub url: String,
    pub events: Vec<EventType>,
    /// The signing key: never shown after it was made.
    pub secret: String,
    pub active: bool,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

const WEBHOOK_COLUMNS: &str =
    "id, organization_id, url, events, secret, active, created_by, created_at, updated_at FROM webhooks";

fn webhook(row: &sqlx::any::AnyRow) -> StoreResult<WebhookRow> {
    Ok(WebhookRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        url: row.try_get("url")?,
        events: parse_events(&row.try_get::<String, _>("events")?)?,
        secret: row.try_get("secret")?,
        active: row.try_get::<i64, _>("active")? != 0,
        created_by: row.try_get("created_by")?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

fn events_json(events: &[EventType]) -> String {
    Value::from(events.iter().map(|e| e.as_str()).collect::<Vec<_>>()).to_string()
}

/// Inserts or rewrites an endpoint.
pub async fn put(conn: &mut AnyConnection, w: &WebhookRow) -> StoreResult<()> {
    crate::audit::created("webhook", &w.id);
    sqlx::query(
        "INSERT INTO webhooks (id, organization_id, url, events, secret, active, created_by, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO UPDATE SET url = excluded.url, \
         events = excluded.events, secret = excluded.secret, active = excluded.active, updated_at = excluded.updated_at",
    )
    .bind(&w.id)
    .bind(&w.organization_id)
    .bind(&w.url)
    .bind(events_json(&w.events))
    .bind(&w.secret)
    .bind(i64::from(w.active))
    .bind(w.created_by.as_deref())
    .bind(w.created_at.0)
    .bind(w.updated_at.0)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<WebhookRow> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {WEBHOOK_COLUMNS} WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org_id)
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound)?;
    webhook(&row)
}

/// The organization's endpoints, oldest first.
pub async fn list(conn: &mut AnyConnection, org_id: &str, page: &PageRequest) -> StoreResult<Page<WebhookRow>> {
    let total = count(&mut *conn, org_id).await?;
    let mut sql = Sql::new(&format!("SELECT {WEBHOOK_COLUMNS} WHERE organization_id = "));
    sql.bind(org_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let rows = rows.iter().map(webhook).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(rows, total, |w| Keyset {
        key: SortKey::Int(w.created_at.0),
        id: w.id.clone(),
    }))
}

/// How many endpoints the organization has.
pub async fn count(conn: &mut AnyConnection, org_id: &str) -> StoreResult<i64> {
    Ok(
        sqlx::query_scalar("SELECT COUNT(*) FROM webhooks WHERE organization_id = $1")
            .bind(org_id)
            .fetch_one(conn)
            .await?,
    )
}

/// Deletes an endpoint and its deliveries; false when there was none.
pub async fn delete(conn: &mut AnyConnection, org_id: &str, id: &str) -> StoreResult<bool> {
    sqlx::query("DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND organization_id = $2")
        .bind(id)
        .bind(org_id)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query("DELETE FROM webhooks WHERE organization_id = $1 AND id = $2")
        .bind(org_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// One delivery of an event to an endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRow {
    pub id: String,
    pub webhook_id: String,
    pub organization_id: String,
    pub event_id: String,
    pub event_type: String,
    pub body: String,
    pub state: DeliveryState,
    pub attempts: i64,
    pub response_status: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: Timestamp,
    pub last_attempt_at: Option<Timestamp>,
    pub delivered_at: Option<Timestamp>,
    pub redelivery_of: Option<String>,
}

const DELIVERY_COLUMNS: &str = "id, webhook_id, organization_id, event_id, event_type, body, state, attempts, \
                                response_status, error, duration_ms, created_at, last_attempt_at, delivered_at, \
                                redelivery_of FROM webhook_deliveries";

fn delivery(row: &sqlx::any::AnyRow) -> StoreResult<DeliveryRow> {
    let state: String = row.try_get("state")?;
    Ok(DeliveryRow {
        id: row.try_get("id")?,
        webhook_id: row.try_get("webhook_id")?,
        organization_id: row.try_get("organization_id")?,
        event_id: row.try_get("event_id")?,
        event_type: row.try_get("event_type")?,
        body: row.try_get("body")?,
        state: DeliveryState::parse(&state).ok_or_else(|| StoreError::Corrupt(format!("delivery state {state:?}")))?,
        attempts: row.try_get("attempts")?,
        response_status: row.try_get("response_status")?,
        error: row.try_get("error")?,
        duration_ms: row.try_get("duration_ms")?,
        created_at: Timestamp(row.try_get("created_at")?),
        last_attempt_at: row.try_get::<Option<i64>, _>("last_attempt_at")?.map(Timestamp),
        delivered_at: row.try_get::<Option<i64>, _>("delivered_at")?.map(Timestamp),
        redelivery_of: row.try_get("redelivery_of")?,
    })
}

/// A delivery by id alone (for the job sending it).
pub async fn delivery_by_id(conn: &mut AnyConnection, id: &str) -> StoreResult<Option<DeliveryRow>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {DELIVERY_COLUMNS} WHERE id = $1")))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(delivery).transpose()
}

/// A delivery of an organization's endpoint.
pub async fn get_delivery(
    conn: &mut AnyConnection,
    org_id: &str,
    webhook_id: &str,
    id: &str,
) -> StoreResult<DeliveryRow> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {DELIVERY_COLUMNS} WHERE organization_id = $1 AND webhook_id = $2 AND id = $3"
    )))
    .bind(org_id)
    .bind(webhook_id)
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound)?;
    delivery(&row)
}

/// An endpoint's deliveries, newest first.
pub async fn deliveries(
    conn: &mut AnyConnection,
    webhook_id: &str,
    page: &PageRequest,
) -> StoreResult<Page<DeliveryRow>> {
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = $1")
        .bind(webhook_id)
        .fetch_one(&mut *conn)
        .await?;
    let mut sql = Sql::new(&format!("SELECT {DELIVERY_COLUMNS} WHERE webhook_id = "));
    sql.bind(webhook_id.to_owned());
    page.push_after(&mut sql, "created_at", "id");
    page.push_order_and_limit(&mut sql, "created_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let rows = rows.iter().map(delivery).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(rows, total, |d| Keyset {
        key: SortKey::Int(d.created_at.0),
        id: d.id.clone(),
    }))
}

/// Queues `original`'s body again as a new delivery; its id.
pub async fn redeliver(conn: &mut AnyConnection, original: &DeliveryRow, now: Timestamp) -> StoreResult<String> {
    let id = quire_core::id::new_id();
    insert_delivery(
        conn,
        &id,
        &original.webhook_id,
        &original.organization_id,
        &original.event_id,
        &original.event_type,
        &original.body,
        Some(&original.id),
        now,
    )
    .await?;
    Ok(id)
}

/// How one attempt went.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub state: DeliveryState,
    pub response_status: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: i64,
    pub at: Timestamp,
}

/// Records an attempt on a delivery.
pub async fn record_attempt(conn: &mut AnyConnection, id: &str, attempt: &Attempt) -> StoreResult<()> {
    let delivered = (attempt.state == DeliveryState::Delivered).then_some(attempt.at.0);
    sqlx::query(
        "UPDATE webhook_deliveries SET state = $2, attempts = attempts + 1, response_status = $3, error = $4, \
         duration_ms = $5, last_attempt_at = $6, delivered_at = $7 WHERE id = $1",
    )
    .bind(id)
    .bind(attempt.state.as_str())
    .bind(attempt.response_status)
    .bind(attempt.error.as_deref())
    .bind(attempt.duration_ms)
    .bind(attempt.at.0)
    .bind(delivered)
    .execute(conn)
    .await?;
    Ok(())
}
