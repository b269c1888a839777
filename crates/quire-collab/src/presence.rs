//! Awareness (y-protocols): each editor's client publishes a small JSON
//! state (who it is, where its cursor is, which page it has open) with a
//! clock; the newest state of each client wins, and `null` means gone. A
//! room keeps the states of everyone connected, so a newcomer sees who is
//! there at once.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use yrs::block::ClientID;
use yrs::sync::awareness::{AwarenessUpdate, AwarenessUpdateEntry};

const GONE: &str = "null";

#[derive(Default)]
pub struct Presence {
    states: HashMap<ClientID, AwarenessUpdateEntry>,
}

/// Who a connection is: what its awareness states say about their person is
/// set by the server, so nobody can appear as someone else.
#[derive(Clone, Debug)]
pub struct Person {
    pub id: String,
    pub name: String,
}

impl Presence {
    /// Takes in what is newer than what the room knows; answers those
    /// entries (the ones to pass on), each state's person set to `person`
    /// when given.
    pub fn apply(&mut self, update: AwarenessUpdate, person: Option<&Person>) -> AwarenessUpdate {
        let mut changed = HashMap::new();
        for (client, mut entry) in update.clients {
            let newer = match self.states.get(&client) {
                None => true,
                Some(known) => {
                    entry.clock > known.clock
                        || (entry.clock == known.clock && &*entry.json == GONE && &*known.json != GONE)
                }
            };
            if !newer {
                continue;
            }
            if let Some(person) = person {
                entry.json = stamped(&entry.json, person);
            }
            self.states.insert(client, entry.clone());
            changed.insert(client, entry);
        }
        AwarenessUpdate { clients: changed }
    }

    /// Everyone present.
    pub fn full(&self) -> AwarenessUpdate {
        AwarenessUpdate {
            clients: self
                .states
                .iter()
                .filter(|(_, e)| &*e.json != GONE)
                .map(|(c, e)| (*c, e.clone()))
                .collect(),
        }
    }

    /// Marks `clients` gone (their connection closed); answers the update
    /// that says so.
    pub fn remove(&mut self, clients: impl IntoIterator<Item = ClientID>) -> AwarenessUpdate {
        let mut changed = HashMap::new();
        for client in clients {
            if let Some(entry) = self.states.get_mut(&client) {
                if &*entry.json == GONE {
                    continue;
                }
                entry.clock += 1;
                entry.json = Arc::from(GONE);
                changed.insert(client, entry.clone());
            }
        }
        AwarenessUpdate { clients: changed }
    }

    pub fn is_empty(&self) -> bool {
        self.states.values().all(|e| &*e.json == GONE)
    }
}

/// A state with its `user.id` and `user.name` set to the connection's
/// person (its colour and everything else kept).
fn stamped(json: &str, person: &Person) -> Arc<str> {
    if json == GONE {
        return Arc::from(GONE);
    }
    let mut state: Value = serde_json::from_str(json).unwrap_or_else(|_| json!({}));
    if !state.is_object() {
        state = json!({});
    }
    if !state["user"].is_object() {
        state["user"] = json!({});
    }
    state["user"]["id"] = Value::String(person.id.clone());
    state["user"]["name"] = Value::String(person.name.clone());
    Arc::from(state.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(client: u64, clock: u32, json: &str) -> AwarenessUpdate {
        AwarenessUpdate {
            clients: [(
                ClientID::new(client),
                AwarenessUpdateEntry {
                    clock,
                    json: Arc::from(json),
                },
            )]
            .into(),
        }
    }

    #[test]
    fn newer_states_win_and_people_cannot_pose_as_others() {
        let mut presence = Presence::default();
        let ada = Person {
            id: "u1".into(),
            name: "Ada".into(),
        };
        let taken = presence.apply(
            update(7, 1, r##"{"user":{"name":"Grace","color":"#f00"}}"##),
            Some(&ada),
        );
        let state: Value = serde_json::from_str(&taken.clients[&ClientID::new(7)].json).unwrap();
        assert_eq!(state["user"], json!({ "name": "Ada", "id": "u1", "color": "#f00" }));
        assert!(
            presence
                .apply(update(7, 1, r#"{"user":{}}"#), Some(&ada))
                .clients
                .is_empty()
        );
        assert_eq!(presence.full().clients.len(), 1);
        let gone = presence.remove([ClientID::new(7)]);
        assert_eq!(&*gone.clients[&ClientID::new(7)].json, "null");
        assert!(presence.is_empty());
        assert!(presence.full().clients.is_empty());
    }
}
