//! The wire: y-protocols' sync and awareness messages (what y-websocket
//! speaks), one per WebSocket binary frame, plus Quire's own messages with
//! a JSON body (y-websocket lets a client add handlers by message type).

use serde_json::Value;
use yrs::StateVector;
use yrs::sync::awareness::AwarenessUpdate;
use yrs::sync::{Message, SyncMessage};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;

/// Server to client: make the shared document hold `target`'s page, from
/// `base` (`null`: the document is empty, fill it).
pub const REBASE: u8 = 100;
/// Client to server: the shared document now holds `target`'s page.
pub const REBASED: u8 = 101;
/// Server to client: whether the shared document can be edited yet
/// (`ready`) and by this client (`readOnly`), and why not (`reason`).
pub const STATE: u8 = 102;

/// What a client sent.
pub enum Incoming {
    SyncStep1(StateVector),
    /// A sync step 2 or an update: both carry an update to apply.
    Update(Vec<u8>),
    Awareness(AwarenessUpdate),
    AwarenessQuery,
    Rebased(String),
    /// Anything else (authentication messages, unknown types): ignored.
    Other,
}

pub fn decode(frame: &[u8]) -> Result<Incoming, String> {
    let message = Message::decode_v1(frame).map_err(|e| format!("not a y-protocols message: {e}"))?;
    Ok(match message {
        Message::Sync(SyncMessage::SyncStep1(sv)) => Incoming::SyncStep1(sv),
        Message::Sync(SyncMessage::SyncStep2(update) | SyncMessage::Update(update)) => Incoming::Update(update),
        Message::Awareness(update) => Incoming::Awareness(update),
        Message::AwarenessQuery => Incoming::AwarenessQuery,
        Message::Custom(REBASED, body) => {
            let body: Value = serde_json::from_slice(&body).map_err(|_| "a rebased message holds JSON")?;
            let target = body["target"].as_str().ok_or("a rebased message names its target")?;
            Incoming::Rebased(target.to_owned())
        }
        _ => Incoming::Other,
    })
}

pub fn sync_step1(sv: StateVector) -> Vec<u8> {
    Message::Sync(SyncMessage::SyncStep1(sv)).encode_v1()
}

pub fn sync_step2(update: Vec<u8>) -> Vec<u8> {
    Message::Sync(SyncMessage::SyncStep2(update)).encode_v1()
}

pub fn update(update: Vec<u8>) -> Vec<u8> {
    Message::Sync(SyncMessage::Update(update)).encode_v1()
}

pub fn awareness(update: AwarenessUpdate) -> Vec<u8> {
    Message::Awareness(update).encode_v1()
}

pub fn custom(tag: u8, body: &Value) -> Vec<u8> {
    Message::Custom(tag, body.to_string().into_bytes()).encode_v1()
}
