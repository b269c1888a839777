//! The JSON shapes of webhooks and their deliveries (Quire's own: the
//! official API has none).

use quire_core::Timestamp;
use quire_store::webhooks::{DeliveryRow, WebhookRow};
use serde::Serialize;
use serde_json::Value;

use crate::WebhookInfo;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub object: &'static str,
    pub id: String,
    /// Credentials in it (userinfo, query values) shown as `***`.
    pub url: String,
    pub events: Vec<&'static str>,
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Only in the answer that made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

pub fn webhook(row: WebhookRow) -> Webhook {
    Webhook {
        object: "webhook",
        url: quire_core::secrets::redact_url(&row.url),
        events: row.events.iter().map(|e| e.as_str()).collect(),
        active: row.active,
        created_at: row.created_at,
        updated_at: row.updated_at,
        secret: None,
        id: row.id,
    }
}

pub fn webhook_info(info: WebhookInfo) -> Webhook {
    let secret = info.secret_shown.then(|| info.row.secret.clone());
    Webhook {
        secret,
        ..webhook(info.row)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub object: &'static str,
    pub id: String,
    pub webhook_id: String,
    pub event_id: String,
    pub event_type: String,
    pub state: &'static str,
    pub attempts: i64,
    pub response_status: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub created_at: Timestamp,
    pub last_attempt_at: Option<Timestamp>,
    pub delivered_at: Option<Timestamp>,
    pub redelivery_of: Option<String>,
    /// The event as sent, in the answer for one delivery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<Value>,
}

pub fn delivery(row: DeliveryRow, with_event: bool) -> Delivery {
    let event = with_event.then(|| serde_json::from_str(&row.body).unwrap_or(Value::Null));
    Delivery {
        object: "webhook-delivery",
        id: row.id,
        webhook_id: row.webhook_id,
        event_id: row.event_id,
        event_type: row.event_type,
        state: row.state.as_str(),
        attempts: row.attempts,
        response_status: row.response_status,
        error: row.error,
        duration_ms: row.duration_ms,
        created_at: row.created_at,
        last_attempt_at: row.last_attempt_at,
        delivered_at: row.delivered_at,
        redelivery_of: row.redelivery_of,
        event,
    }
}
