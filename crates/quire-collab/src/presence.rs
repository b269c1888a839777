//! Awareness (y-protocols): each editor's client publishes a small JSON
//! state (who it is, where its cursor is, which page it has open) with a
//! clock; the newest state of each client wins, and `null` means gone. A
//! room keeps the states of everyone connected, so a newcomer sees who is
//! there at once.
//!
//! Each state belongs to the person whose connection first published it:
//! nobody changes or removes another's. A person has at most
//! [`MAX_STATES_PER_PERSON`] states in a room and a room at most
//! [`MAX_ROOM_STATES`]; a state that is gone is forgotten, so a room's
//! memory follows who is there, not who ever was.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use yrs::block::ClientID;
use yrs::sync::awareness::{AwarenessUpdate, AwarenessUpdateEntry};

const GONE: &str = "null";

/// States one person may hold in a room (an editor's page, a second tab,
/// a reconnect not yet noticed as gone).
pub const MAX_STATES_PER_PERSON: usize = 16;
/// States a room holds at most.
pub const MAX_ROOM_STATES: usize = 512;

#[derive(Default)]
pub struct Presence {
    states: HashMap<ClientID, Held>,
}

/// A state and the person it belongs to.
struct Held {
    entry: AwarenessUpdateEntry,
    owner: String,
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
    /// entries (the ones to pass on). From a connection of this node
    /// (`person` given), each state's person is set to `person`, and states
    /// of other people or over the caps are left out; from another node
    /// (which checked them), the owner is the person the state names.
    pub fn apply(&mut self, update: AwarenessUpdate, person: Option<&Person>) -> AwarenessUpdate {
        let mut changed = HashMap::new();
        for (client, mut entry) in update.clients {
            let owner = match person {
                Some(person) => person.id.clone(),
                None => named_person(&entry.json).unwrap_or_default(),
            };
            let newer = match self.states.get(&client) {
                None => &*entry.json != GONE && self.has_room_for(&owner, person.is_some()),
                // Another's state, unless another node (which checked it)
                // says it changed or is gone.
                Some(known) if person.is_some() && known.owner != owner => false,
                Some(known) => {
                    entry.clock > known.entry.clock
                        || (entry.clock == known.entry.clock && &*entry.json == GONE && &*known.entry.json != GONE)
                }
            };
            if !newer {
                continue;
            }
            if let Some(person) = person {
                entry.json = stamped(&entry.json, person);
            }
            if &*entry.json == GONE {
                self.states.remove(&client);
            } else {
                let owner = match self.states.get(&client) {
                    Some(known) if person.is_none() => known.owner.clone(),
                    _ => owner,
                };
                self.states.insert(
                    client,
                    Held {
                        entry: entry.clone(),
                        owner,
                    },
                );
            }
            changed.insert(client, entry);
        }
        AwarenessUpdate { clients: changed }
    }

    /// Whether a new state of `owner` fits under the caps (another node's
    /// states only under the room's).
    fn has_room_for(&self, owner: &str, local: bool) -> bool {
        if self.states.len() >= MAX_ROOM_STATES {
            return false;
        }
        !local || self.states.values().filter(|held| held.owner == owner).count() < MAX_STATES_PER_PERSON
    }

    /// Everyone present.
    pub fn full(&self) -> AwarenessUpdate {
        AwarenessUpdate {
            clients: self.states.iter().map(|(c, held)| (*c, held.entry.clone())).collect(),
        }
    }

    /// Removes `clients` (their connection closed); answers the update
    /// that says they are gone.
    pub fn remove(&mut self, clients: impl IntoIterator<Item = ClientID>) -> AwarenessUpdate {
        let mut changed = HashMap::new();
        for client in clients {
            if let Some(held) = self.states.remove(&client) {
                let gone = AwarenessUpdateEntry {
                    clock: held.entry.clock + 1,
                    json: Arc::from(GONE),
                };
                changed.insert(client, gone);
            }
        }
        AwarenessUpdate { clients: changed }
    }

    /// Whether `client`'s state is `person`'s (or nobody's yet).
    pub fn may_publish(&self, client: ClientID, person: &str) -> bool {
        self.states.get(&client).is_none_or(|held| held.owner == person)
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
}

/// The `user.id` a state names (set by the node that took it in).
fn named_person(json: &str) -> Option<String> {
    let state: Value = serde_json::from_str(json).ok()?;
    state["user"]["id"].as_str().map(str::to_owned)
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

    fn person(id: &str) -> Person {
        Person {
            id: id.into(),
            name: id.into(),
        }
    }

    #[test]
    fn a_state_is_only_its_owners_to_change_or_remove() {
        let mut presence = Presence::default();
        let (ada, eve) = (person("ada"), person("eve"));
        presence.apply(update(7, 1, r#"{"cursor":1}"#), Some(&ada));
        assert!(
            presence
                .apply(update(7, 2, r#"{"cursor":9}"#), Some(&eve))
                .clients
                .is_empty()
        );
        assert!(presence.apply(update(7, 3, "null"), Some(&eve)).clients.is_empty());
        assert!(!presence.may_publish(ClientID::new(7), "eve"));
        let state: Value = serde_json::from_str(&presence.full().clients[&ClientID::new(7)].json).unwrap();
        assert_eq!(state["cursor"], 1);
        // Ada's own removal is taken, and the state forgotten.
        assert_eq!(presence.apply(update(7, 2, "null"), Some(&ada)).clients.len(), 1);
        assert!(presence.is_empty());
        // Another node's states keep the owner they name.
        presence.apply(update(8, 1, r#"{"user":{"id":"grace"}}"#), None);
        assert!(presence.apply(update(8, 2, "{}"), Some(&eve)).clients.is_empty());
        assert!(presence.may_publish(ClientID::new(8), "grace"));
        assert_eq!(presence.apply(update(8, 2, "null"), None).clients.len(), 1);
        assert!(presence.is_empty());
    }

    #[test]
    fn states_are_capped_per_person_and_per_room() {
        let mut presence = Presence::default();
        let eve = person("eve");
        for client in 0..1000 {
            presence.apply(update(client, 1, "{}"), Some(&eve));
        }
        assert_eq!(presence.full().clients.len(), MAX_STATES_PER_PERSON);
        for who in 0..100 {
            let someone = person(&format!("p{who}"));
            for client in 0..MAX_STATES_PER_PERSON as u64 {
                presence.apply(update(10_000 + who * 100 + client, 1, "{}"), Some(&someone));
            }
        }
        assert_eq!(presence.full().clients.len(), MAX_ROOM_STATES);
        // Gone states free their place.
        let freed = presence.remove((0..MAX_STATES_PER_PERSON as u64).map(ClientID::new));
        assert_eq!(freed.clients.len(), MAX_STATES_PER_PERSON);
        assert_eq!(presence.full().clients.len(), MAX_ROOM_STATES - MAX_STATES_PER_PERSON);
    }
}
