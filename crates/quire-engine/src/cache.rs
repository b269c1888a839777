//! In-memory caches of immutable things: parsed objects by hash, documents
//! by hash, whole snapshots by revision id, a document's search sections
//! and links by its hash. Entries never go stale, so none expires; each
//! cache is a `moka` cache bounded by entry count (the sizes below), which
//! when full keeps what is used often (TinyLFU admission, least recently
//! used evicted first).

use std::sync::Arc;

use moka::sync::Cache;
use quire_content::objects::{FileObject, NodeObject};

use crate::snapshot::Snapshot;

/// A cache holding at most `capacity` entries.
pub(crate) fn bounded<V: Clone + Send + Sync + 'static>(capacity: u64) -> Cache<String, V> {
    Cache::new(capacity)
}

pub(crate) struct Caches {
    pub(crate) nodes: Cache<String, Arc<NodeObject>>,
    pub(crate) files: Cache<String, Arc<FileObject>>,
    pub(crate) documents: Cache<String, Arc<str>>,
    pub(crate) snapshots: Cache<String, Arc<Snapshot>>,
    /// Search sections of a document, by document hash.
    pub(crate) sections: Cache<String, Arc<Vec<quire_content::document::Section>>>,
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            nodes: bounded(200_000),
            files: bounded(50_000),
            documents: bounded(20_000),
            snapshots: bounded(64),
            sections: bounded(20_000),
        }
    }
}
