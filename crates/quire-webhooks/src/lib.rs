//! Webhooks: an organization's administrators register endpoints for kinds
//! of event (`quire_core::events::EventType`); every event of those kinds
//! becomes a delivery, written with the change that caused it
//! (`quire_store::webhooks::emit`), and is sent by the [`Deliver`] job:
//! a JSON `POST` signed with HMAC-SHA256 over `{timestamp}.{body}` with the
//! endpoint's secret ([`signature`]), retried with growing waits while the
//! endpoint fails, each attempt kept in the delivery log. Endpoints go
//! through the server-side fetch policy when they are registered and
//! every time they are called.
//!
//! Routes are in [`routes`], shapes in [`views`].

pub mod routes;
pub mod views;

use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use quire_app::error::{AppError, AppResult};
use quire_app::jobs::{Job, Lane, Registry, RetryPolicy};
use quire_app::{App, Caller, access};
use quire_core::events::{DeliveryState, EventType};
use quire_store::page::PageRequest;
use quire_store::webhooks::{self, Attempt, DeliveryRow, WebhookRow};
use quire_store::{Page, StoreError};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Attempts per delivery, the first included.
pub const MAX_ATTEMPTS: i64 = 6;
/// The wait before attempt `n + 1` is `n` times this (15 s, 30 s, ... 75 s:
/// five minutes from the first attempt to the last).
pub const RETRY_BACKOFF: Duration = Duration::from_secs(15);
/// How long an endpoint has to answer.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The start of an endpoint's answer kept in the log.
const KEPT_RESPONSE_BYTES: usize = 1024;
/// Endpoints an organization may register.
const MAX_WEBHOOKS: i64 = 50;

/// The headers of a delivery.
pub const SIGNATURE_HEADER: &str = "x-quire-signature";
pub const EVENT_HEADER: &str = "x-quire-event";
pub const DELIVERY_HEADER: &str = "x-quire-delivery";

/// `t={timestamp},v1={hex HMAC-SHA256 of "{timestamp}.{body}"}`: what the
/// signature header holds. A receiver recomputes it with its secret and
/// refuses old timestamps (replays).
pub fn signature(secret: &str, timestamp: i64, body: &str) -> String {
    // HMAC takes a key of any length.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    let digest = mac.finalize().into_bytes();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("t={timestamp},v1={hex}")
}

/// A new endpoint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    /// The signing key, when the administrator brings one (16 to 128
    /// characters); else one is made and shown once.
    pub secret: Option<String>,
    pub active: Option<bool>,
}

/// A change of an endpoint (absent fields stay).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookUpdate {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub active: Option<bool>,
    /// `true` makes a new secret, shown once in the answer.
    #[serde(rename = "rotateSecret")]
    pub rotate_secret: Option<bool>,
}

/// An endpoint, with its secret when it was just made.
pub struct WebhookInfo {
    pub row: WebhookRow,
    pub secret_shown: bool,
}

fn events(names: &[String]) -> AppResult<Vec<EventType>> {
    if names.is_empty() {
        return Err(AppError::invalid("events must name at least one event type"));
    }
    let mut kinds = Vec::new();
    for name in names {
        let kind = EventType::parse(name).ok_or_else(|| {
            let known: Vec<&str> = EventType::ALL.iter().map(|k| k.as_str()).collect();
            AppError::invalid(format!("unknown event type {name:?}; known: {}", known.join(", ")))
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// The endpoint's URL, checked against the fetch policy now (and again at
/// every delivery, since names can move).
async fn endpoint(app: &App, url: &str) -> AppResult<String> {
    let url = url.trim();
    if url.len() > 2048 {
        return Err(AppError::invalid("url is longer than 2048 characters"));
    }
    let parsed = app
        .engine
        .fetcher
        .check(url)
        .await
        .map_err(|e| AppError::invalid(format!("url: {e}")))?;
    Ok(parsed.to_string())
}

fn secret(given: Option<String>) -> AppResult<String> {
    match given {
        Some(secret) if (16..=128).contains(&secret.chars().count()) && !secret.chars().any(char::is_control) => {
            Ok(secret)
        }
        Some(_) => Err(AppError::invalid("secret must be 16 to 128 characters")),
        None => Ok(format!("whsec_{}", quire_core::id::random_alphanumeric(32))),
    }
}

pub async fn create(app: &App, caller: &Caller, org_id: &str, new: NewWebhook) -> AppResult<WebhookInfo> {
    let kinds = events(&new.events)?;
    let secret = secret(new.secret)?;
    {
        let mut conn = app.db.read().await?;
        access::org(&mut conn, caller, org_id).await?.require_admin()?;
    }
    let url = endpoint(app, &new.url).await?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    if webhooks::count(&mut tx, org_id).await? >= MAX_WEBHOOKS {
        return Err(AppError::conflict(format!(
            "an organization has at most {MAX_WEBHOOKS} webhooks"
        )));
    }
    let row = WebhookRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        url,
        events: kinds,
        secret,
        active: new.active.unwrap_or(true),
        created_by: Some(caller.id().to_owned()),
        created_at: now,
        updated_at: now,
    };
    webhooks::put(&mut tx, &row).await?;
    tx.commit().await?;
    Ok(WebhookInfo {
        row,
        secret_shown: true,
    })
}

async fn admin_webhook(conn: &mut quire_store::Conn, caller: &Caller, org_id: &str, id: &str) -> AppResult<WebhookRow> {
    access::org(conn, caller, org_id).await?.require_admin()?;
    match webhooks::get(conn, org_id, id).await {
        Err(StoreError::NotFound) => Err(AppError::not_found("webhook", id)),
        found => Ok(found?),
    }
}

pub async fn list(app: &App, caller: &Caller, org_id: &str, request: &PageRequest) -> AppResult<Page<WebhookRow>> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    Ok(webhooks::list(&mut conn, org_id, request).await?)
}

pub async fn get(app: &App, caller: &Caller, org_id: &str, id: &str) -> AppResult<WebhookRow> {
    let mut conn = app.db.read().await?;
    admin_webhook(&mut conn, caller, org_id, id).await
}

pub async fn update(
    app: &App,
    caller: &Caller,
    org_id: &str,
    id: &str,
    update: WebhookUpdate,
) -> AppResult<WebhookInfo> {
    let kinds = update.events.as_deref().map(events).transpose()?;
    {
        let mut conn = app.db.read().await?;
        admin_webhook(&mut conn, caller, org_id, id).await?;
    }
    let url = match &update.url {
        Some(url) => Some(endpoint(app, url).await?),
        None => None,
    };
    let mut tx = app.db.write().await?;
    let mut row = admin_webhook(&mut tx, caller, org_id, id).await?;
    if let Some(url) = url {
        row.url = url;
    }
    if let Some(kinds) = kinds {
        row.events = kinds;
    }
    if let Some(active) = update.active {
        row.active = active;
    }
    let rotate = update.rotate_secret == Some(true);
    if rotate {
        row.secret = secret(None)?;
    }
    row.updated_at = app.now();
    webhooks::put(&mut tx, &row).await?;
    tx.commit().await?;
    Ok(WebhookInfo {
        row,
        secret_shown: rotate,
    })
}

pub async fn delete(app: &App, caller: &Caller, org_id: &str, id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    webhooks::delete(&mut tx, org_id, id).await?;
    tx.commit().await?;
    Ok(())
}

pub async fn deliveries(
    app: &App,
    caller: &Caller,
    org_id: &str,
    webhook_id: &str,
    request: &PageRequest,
) -> AppResult<Page<DeliveryRow>> {
    let mut conn = app.db.read().await?;
    admin_webhook(&mut conn, caller, org_id, webhook_id).await?;
    Ok(webhooks::deliveries(&mut conn, webhook_id, request).await?)
}

pub async fn delivery(app: &App, caller: &Caller, org_id: &str, webhook_id: &str, id: &str) -> AppResult<DeliveryRow> {
    let mut conn = app.db.read().await?;
    admin_webhook(&mut conn, caller, org_id, webhook_id).await?;
    match webhooks::get_delivery(&mut conn, org_id, webhook_id, id).await {
        Err(StoreError::NotFound) => Err(AppError::not_found("delivery", id)),
        found => Ok(found?),
    }
}

/// Sends a delivery's event again, as a new delivery (the log keeps both).
pub async fn redeliver(app: &App, caller: &Caller, org_id: &str, webhook_id: &str, id: &str) -> AppResult<DeliveryRow> {
    let mut tx = app.db.write().await?;
    admin_webhook(&mut tx, caller, org_id, webhook_id).await?;
    let original = match webhooks::get_delivery(&mut tx, org_id, webhook_id, id).await {
        Err(StoreError::NotFound) => return Err(AppError::not_found("delivery", id)),
        found => found?,
    };
    let new_id = webhooks::redeliver(&mut tx, &original, app.now()).await?;
    let row = webhooks::get_delivery(&mut tx, org_id, webhook_id, &new_id).await?;
    tx.commit().await?;
    Ok(row)
}

/// Sends one delivery (job kind `quire_store::webhooks::DELIVERY_JOB`,
/// queued by `emit` and `redeliver`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Deliver {
    pub delivery: String,
}

impl Job for Deliver {
    const KIND: &'static str = webhooks::DELIVERY_JOB;
    const RETRY: RetryPolicy = RetryPolicy {
        max_attempts: MAX_ATTEMPTS,
        backoff: RETRY_BACKOFF,
    };
    const TIME_LIMIT: Duration = Duration::from_secs(60);
    /// Sending is no change of anyone's; the delivery log records it.
    const AUDITED: bool = false;
    /// A delivery waits on the endpoint, not on this node: many run at once,
    /// beside the organization's other jobs.
    const LANE: Lane = Lane::Sends;

    async fn run(self, app: &App) -> anyhow::Result<Option<serde_json::Value>> {
        let (delivery, hook) = {
            let mut conn = app.db.read().await?;
            let Some(delivery) = webhooks::delivery_by_id(&mut conn, &self.delivery).await? else {
                // Its endpoint was deleted.
                return Ok(None);
            };
            let hook = match webhooks::get(&mut conn, &delivery.organization_id, &delivery.webhook_id).await {
                Ok(hook) => hook,
                Err(StoreError::NotFound) => return Ok(None),
                Err(err) => return Err(err.into()),
            };
            (delivery, hook)
        };
        if delivery.state != DeliveryState::Pending {
            return Ok(None);
        }
        let timestamp = app.now().0 / 1000;
        let headers = [
            ("content-type", "application/json".to_owned()),
            (SIGNATURE_HEADER, signature(&hook.secret, timestamp, &delivery.body)),
            (EVENT_HEADER, delivery.event_type.clone()),
            (DELIVERY_HEADER, delivery.id.clone()),
        ];
        let started = Instant::now();
        let sent = tokio_timeout(app.engine.fetcher.post(
            &hook.url,
            &headers,
            delivery.body.clone().into_bytes(),
            KEPT_RESPONSE_BYTES,
        ))
        .await;
        let duration_ms = started.elapsed().as_millis() as i64;
        let (response_status, error) = match &sent {
            Ok(posted) if (200..300).contains(&posted.status) => (Some(i64::from(posted.status)), None),
            Ok(posted) => (
                Some(i64::from(posted.status)),
                Some(format!(
                    "the endpoint answered HTTP {}: {}",
                    posted.status,
                    String::from_utf8_lossy(&posted.bytes)
                        .chars()
                        .take(200)
                        .collect::<String>()
                )),
            ),
            Err(err) => (
                None,
                Some(quire_core::secrets::redact_quoting(&err.to_string(), &hook.url)),
            ),
        };
        let state = match &error {
            None => DeliveryState::Delivered,
            Some(_) if delivery.attempts + 1 >= MAX_ATTEMPTS => DeliveryState::Failed,
            Some(_) => DeliveryState::Pending,
        };
        let attempt = Attempt {
            state,
            response_status,
            error: error.clone(),
            duration_ms,
            at: app.now(),
        };
        let mut tx = app.db.write().await?;
        webhooks::record_attempt(&mut tx, &delivery.id, &attempt).await?;
        tx.commit().await?;
        match error {
            None => Ok(Some(serde_json::json!({ "status": response_status }))),
            // The job fails, so the queue tries again after its backoff.
            Some(error) => Err(anyhow::anyhow!(error)),
        }
    }
}

async fn tokio_timeout<T>(
    future: impl std::future::Future<Output = Result<T, quire_adapters::fetch::FetchError>>,
) -> Result<T, quire_adapters::fetch::FetchError> {
    match tokio::time::timeout(TIMEOUT, future).await {
        Ok(result) => result,
        Err(_) => Err(quire_adapters::fetch::FetchError::Timeout(TIMEOUT)),
    }
}

pub fn register_jobs(registry: &mut Registry) {
    registry.register::<Deliver>();
}

#[cfg(test)]
mod tests {
    use super::signature;

    #[test]
    fn signatures_are_hmac_sha256_over_timestamp_and_body() {
        // Computed independently: python3 -c 'hmac.new(b"key", b"1700000000.{}", hashlib.sha256)'.
        assert_eq!(
            signature("key", 1700000000, "{}"),
            "t=1700000000,v1=9d713ed406bb7076d4123f0dc2c39d2df5c654ed4b0cd56b52c8b4c940bd63ae"
        );
    }
}
