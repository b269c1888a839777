//! The official `AuditEvent`, `AuditEventDetails` and `AuditEventAction`.

use quire_core::Timestamp;
use quire_store::audit::AuditRow;
use serde::Serialize;
use serde_json::Value;

use crate::state::AppState;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    pub object: &'static str,
    pub id: String,
    pub occurred_at: Timestamp,
    pub action: String,
    pub actor: Actor,
    pub source: &'static str,
    pub target: Target,
    pub urls: Urls,
}

#[derive(Serialize)]
pub struct Actor {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(Serialize)]
pub struct Target {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
}

#[derive(Serialize)]
pub struct Urls {
    pub location: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEventDetails {
    #[serde(flatten)]
    pub event: AuditEvent,
    pub execution_id: String,
    pub correlation_id: String,
    pub schema_version: u32,
    pub payload: Value,
}

#[derive(Serialize)]
pub struct AuditEventAction {
    pub object: &'static str,
    pub id: String,
    pub label: String,
}

/// Where an entry is read: in an organization's log, or among the
/// caller's own account events.
#[derive(Clone, Copy)]
pub enum Log<'a> {
    Organization(&'a str),
    Own,
}

pub fn audit_event(state: &AppState, log: Log<'_>, row: AuditRow) -> AuditEvent {
    let location = match log {
        Log::Organization(org) => format!("{}/v1/orgs/{org}/audit-events/{}", state.public_url, row.id),
        Log::Own => format!("{}/v1/user/audit-events/{}", state.public_url, row.id),
    };
    AuditEvent {
        object: "audit-event",
        urls: Urls { location },
        id: row.id,
        occurred_at: row.occurred_at,
        action: row.action,
        actor: Actor {
            kind: row.actor.kind.as_str(),
            id: row.actor.id,
            label: row.actor.label,
        },
        source: row.source.as_str(),
        target: Target {
            kind: row.target.kind,
            id: row.target.id,
        },
    }
}

pub fn audit_event_details(state: &AppState, log: Log<'_>, row: AuditRow) -> AuditEventDetails {
    let execution_id = row.execution_id.clone();
    let correlation_id = row
        .payload
        .get("requestId")
        .and_then(Value::as_str)
        .unwrap_or(&execution_id)
        .to_owned();
    let payload = row.payload.clone();
    AuditEventDetails {
        event: audit_event(state, log, row),
        execution_id,
        correlation_id,
        schema_version: 1,
        payload,
    }
}

/// An action as listed: its id, and as label the same words (`DELETE
/// /spaces/{spaceId}` says what it is and where its handler is).
pub fn audit_event_action(action: String) -> AuditEventAction {
    AuditEventAction {
        object: "audit-event-action",
        label: action.clone(),
        id: action,
    }
}
