//! The wire: y-protocols' sync and awareness messages (what y-websocket
//! speaks), one per WebSocket binary frame, plus Quire's own messages with
//! a JSON body (y-websocket lets a client add handlers by message type).
//!
//! A frame is checked before any decoder reads it ([`bounded`]): every
//! count a decoder would reserve room for up front (a state vector's
//! entries, an awareness update's clients, an update's clients) must fit in
//! the bytes that follow it, so a 7-byte frame claiming a billion entries
//! is refused instead of costing gigabytes. Awareness states are small JSON
//! objects; one over [`MAX_STATE_BYTES`] is refused too.

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

/// The largest awareness state one client may publish (a name, a colour,
/// a cursor and a selection take a few hundred bytes).
pub const MAX_STATE_BYTES: usize = 4096;

pub fn decode(frame: &[u8]) -> Result<Incoming, String> {
    bounded(frame)?;
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

/// y-protocols' message types, and the sync message's kinds.
const MESSAGE_SYNC: u64 = 0;
const MESSAGE_AWARENESS: u64 = 1;
const SYNC_STEP1: u64 = 0;
const SYNC_STEP2: u64 = 1;
const SYNC_UPDATE: u64 = 2;

/// Refuses a frame whose leading count could not be held by the bytes after
/// it (see the module's documentation); what it does not recognise is left
/// to the decoder.
pub fn bounded(frame: &[u8]) -> Result<(), String> {
    let mut reader = Reader(frame);
    match reader.var()? {
        MESSAGE_SYNC => {
            let kind = reader.var()?;
            let payload = reader.buf()?;
            match kind {
                // Entries of (client, clock): two bytes each at least.
                SYNC_STEP1 => count_fits(payload, 2, "state vector"),
                // Clients of (blocks, client, clock): three bytes each.
                SYNC_STEP2 | SYNC_UPDATE => count_fits(payload, 3, "update"),
                _ => Ok(()),
            }
        }
        MESSAGE_AWARENESS => {
            let payload = reader.buf()?;
            // Entries of (client, clock, state): three bytes each at least.
            count_fits(payload, 3, "awareness update")?;
            let mut entries = Reader(payload);
            let count = entries.var()?;
            for _ in 0..count {
                entries.var()?;
                entries.var()?;
                let state = entries.buf()?;
                if state.len() > MAX_STATE_BYTES {
                    return Err(format!("an awareness state holds at most {MAX_STATE_BYTES} bytes"));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Whether the count `payload` starts with fits in the bytes after it, at
/// `each` bytes an entry.
fn count_fits(payload: &[u8], each: u64, what: &str) -> Result<(), String> {
    let mut reader = Reader(payload);
    let count = reader.var()?;
    let room = reader.0.len() as u64 / each;
    if count > room {
        return Err(format!("a {what} claims {count} entries in {} bytes", reader.0.len()));
    }
    Ok(())
}

/// Reads lib0's variable-length unsigned integers and byte buffers.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn var(&mut self) -> Result<u64, String> {
        let mut value: u64 = 0;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.0.split_first().ok_or("a frame ends inside a number")?;
            self.0 = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err("a number in a frame is too long".into())
    }

    fn buf(&mut self) -> Result<&'a [u8], String> {
        let length = usize::try_from(self.var()?).map_err(|_| "a frame's length is too large")?;
        if length > self.0.len() {
            return Err(format!("a frame claims {length} bytes and holds {}", self.0.len()));
        }
        let (buf, rest) = self.0.split_at(length);
        self.0 = rest;
        Ok(buf)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::Arc;
    use yrs::block::ClientID;
    use yrs::sync::awareness::AwarenessUpdateEntry;

    /// lib0's encoding of `value`.
    fn var(mut value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let byte = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                out.push(byte);
                return out;
            }
            out.push(byte | 0x80);
        }
    }

    fn frame(head: &[u64], payload: &[u8]) -> Vec<u8> {
        let mut out: Vec<u8> = head.iter().flat_map(|v| var(*v)).collect();
        out.extend(var(payload.len() as u64));
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn a_count_the_frame_cannot_hold_is_refused_before_decoding() {
        let billion = var(1_000_000_000);
        let awareness = frame(&[MESSAGE_AWARENESS], &billion);
        assert_eq!(awareness.len(), 7, "the probe's 7-byte frame");
        for bomb in [
            awareness,
            frame(&[MESSAGE_SYNC, SYNC_STEP1], &billion),
            frame(&[MESSAGE_SYNC, SYNC_STEP2], &billion),
            frame(&[MESSAGE_SYNC, SYNC_UPDATE], &billion),
        ] {
            let refused = decode(&bomb).err().expect("refused");
            assert!(refused.contains("claims 1000000000 entries"), "{refused}");
        }
        // A buffer longer than the frame, and a number that never ends.
        assert!(decode(&[MESSAGE_AWARENESS as u8, 0x7f, 1]).is_err());
        assert!(decode(&[0xff; 11]).is_err());
    }

    #[test]
    fn real_messages_pass() {
        let doc = yrs::Doc::new();
        let text = {
            use yrs::{Text, Transact};
            let text = doc.get_or_insert_text("t");
            text.insert(&mut doc.transact_mut(), 0, "hello");
            text
        };
        let _ = text;
        use yrs::{ReadTxn, Transact};
        let sv = doc.transact().state_vector();
        let update = doc.transact().encode_state_as_update_v1(&StateVector::default());
        assert!(matches!(decode(&sync_step1(sv)), Ok(Incoming::SyncStep1(_))));
        assert!(matches!(decode(&sync_step2(update.clone())), Ok(Incoming::Update(_))));
        assert!(matches!(decode(&super::update(update)), Ok(Incoming::Update(_))));
        assert!(matches!(
            decode(&sync_step1(StateVector::default())),
            Ok(Incoming::SyncStep1(_))
        ));
        let entry = |json: &str| AwarenessUpdateEntry {
            clock: 1,
            json: Arc::from(json),
        };
        let small = AwarenessUpdate {
            clients: HashMap::from([(ClientID::new(7), entry(r#"{"user":{"name":"Ada"}}"#))]),
        };
        assert!(matches!(decode(&awareness(small)), Ok(Incoming::Awareness(_))));
        let large = AwarenessUpdate {
            clients: HashMap::from([(ClientID::new(7), entry(&format!("\"{}\"", "x".repeat(MAX_STATE_BYTES))))]),
        };
        assert!(decode(&awareness(large)).is_err());
    }
}
