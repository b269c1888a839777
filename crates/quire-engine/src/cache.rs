//! In-memory caches of immutable things: parsed objects by hash, documents
//! by hash and whole snapshots by revision id. Entries never go stale; a
//! cache that grows past its bound is simply emptied.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use quire_content::objects::{FileObject, NodeObject};

use crate::snapshot::Snapshot;

pub(crate) struct Bounded<K, V> {
    map: Mutex<HashMap<K, V>>,
    capacity: usize,
}

impl<K: Eq + Hash, V: Clone> Bounded<K, V> {
    fn new(capacity: usize) -> Self {
        Bounded {
            map: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.map.lock().expect("cache lock").get(key).cloned()
    }

    pub(crate) fn put(&self, key: K, value: V) {
        let mut map = self.map.lock().expect("cache lock");
        if map.len() >= self.capacity {
            map.clear();
        }
        map.insert(key, value);
    }
}

pub(crate) struct Caches {
    pub(crate) nodes: Bounded<String, Arc<NodeObject>>,
    pub(crate) files: Bounded<String, Arc<FileObject>>,
    pub(crate) documents: Bounded<String, Arc<str>>,
    pub(crate) snapshots: Bounded<String, Arc<Snapshot>>,
    /// Links found in a document, by document hash.
    pub(crate) links: Bounded<String, Arc<Vec<(String, quire_content::markdown::Relation)>>>,
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            nodes: Bounded::new(200_000),
            files: Bounded::new(50_000),
            documents: Bounded::new(20_000),
            snapshots: Bounded::new(64),
            links: Bounded::new(50_000),
        }
    }
}
