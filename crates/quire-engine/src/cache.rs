//! In-memory caches of immutable things: parsed objects by hash, documents
//! by hash and whole snapshots by revision id. Entries never go stale; a
//! full cache forgets its oldest entry (one at a time, so no request pays
//! for dropping a whole cache).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use quire_content::objects::{FileObject, NodeObject};

use crate::snapshot::Snapshot;

pub(crate) struct Bounded<K, V> {
    inner: Mutex<Entries<K, V>>,
    capacity: usize,
}

struct Entries<K, V> {
    map: HashMap<K, V>,
    /// Keys in insertion order, oldest first.
    order: VecDeque<K>,
}

impl<K: Eq + Hash + Clone, V: Clone> Bounded<K, V> {
    pub(crate) fn new(capacity: usize) -> Self {
        Bounded {
            inner: Mutex::new(Entries {
                map: HashMap::new(),
                order: VecDeque::new(),
            }),
            capacity,
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.inner.lock().expect("cache lock").map.get(key).cloned()
    }

    pub(crate) fn put(&self, key: K, value: V) {
        let evicted = {
            let mut entries = self.inner.lock().expect("cache lock");
            if entries.map.insert(key.clone(), value).is_some() {
                return;
            }
            entries.order.push_back(key);
            if entries.order.len() > self.capacity {
                entries.order.pop_front().and_then(|oldest| entries.map.remove(&oldest))
            } else {
                None
            }
        };
        // Dropped outside the lock: a snapshot can be large.
        drop(evicted);
    }
}

pub(crate) struct Caches {
    pub(crate) nodes: Bounded<String, Arc<NodeObject>>,
    pub(crate) files: Bounded<String, Arc<FileObject>>,
    pub(crate) documents: Bounded<String, Arc<str>>,
    pub(crate) snapshots: Bounded<String, Arc<Snapshot>>,
    /// Search sections of a document, by document hash.
    pub(crate) sections: Bounded<String, Arc<Vec<quire_content::document::Section>>>,
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            nodes: Bounded::new(200_000),
            files: Bounded::new(50_000),
            documents: Bounded::new(20_000),
            snapshots: Bounded::new(64),
            sections: Bounded::new(20_000),
        }
    }
}
