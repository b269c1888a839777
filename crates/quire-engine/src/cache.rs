//! In-memory caches of immutable things: parsed objects by hash, documents
//! by hash, whole snapshots by revision id, a document's search sections
//! and links by its hash. Entries never go stale, so none expires; each
//! cache is a `moka` cache bounded by the bytes its entries take (its
//! share of the node's [`CacheBudget`]), which when full keeps what is used
//! often (TinyLFU admission, least recently used evicted first).
//! Snapshots share their trees with each other, so they are counted, not
//! weighed.
//!
//! Bounds by entry count let memory grow with the size of what was cached:
//! a root node of 200 pages holds 200 child hashes, and every merge makes
//! a new one; a 30-minute soak of merges grew the process past its
//! five-minute size by a fifth, filling caches of 200,000 nodes.

use std::sync::Arc;

use moka::sync::Cache;
use quire_content::objects::{FileObject, NodeObject};
use quire_core::memory::{CacheBudget, CacheShare};

use crate::snapshot::Snapshot;

/// A cache holding at most `capacity` entries.
pub(crate) fn bounded<V: Clone + Send + Sync + 'static>(capacity: u64) -> Cache<String, V> {
    Cache::new(capacity)
}

/// A cache holding entries whose keys and values (as `weigh` estimates
/// them, in bytes) take at most `bytes`.
pub(crate) fn weighed<V: Clone + Send + Sync + 'static>(bytes: u64, weigh: fn(&V) -> usize) -> Cache<String, V> {
    Cache::builder()
        .max_capacity(bytes)
        .weigher(move |key: &String, value: &V| u32::try_from(key.len() + weigh(value)).unwrap_or(u32::MAX))
        .build()
}

/// What a string takes: its bytes and its header.
fn text(s: &str) -> usize {
    s.len() + 24
}

fn optional(s: &Option<String>) -> usize {
    s.as_deref().map_or(0, text)
}

fn node_bytes(node: &Arc<NodeObject>) -> usize {
    let meta = &node.meta;
    96 + text(&node.id)
        + text(&meta.title)
        + text(&meta.slug)
        + optional(&meta.description)
        + optional(&meta.emoji)
        + optional(&meta.condition)
        + optional(&meta.link_title)
        + optional(&meta.document)
        + meta.git.as_ref().map_or(0, |git| text(&git.oid) + text(&git.path))
        + node.children.iter().map(|child| text(child)).sum::<usize>()
}

fn file_bytes(file: &Arc<FileObject>) -> usize {
    160 + text(&file.id) + text(&file.name) + text(&file.content_type) + text(&file.blob)
}

fn document_bytes(document: &Arc<str>) -> usize {
    32 + document.len()
}

fn sections_bytes(sections: &Arc<Vec<quire_content::document::Section>>) -> usize {
    32 + sections
        .iter()
        .map(|s| optional(&s.anchor) + text(&s.heading) + text(&s.text))
        .sum::<usize>()
}

pub(crate) struct Caches {
    pub(crate) nodes: Cache<String, Arc<NodeObject>>,
    pub(crate) files: Cache<String, Arc<FileObject>>,
    pub(crate) documents: Cache<String, Arc<str>>,
    pub(crate) snapshots: Cache<String, Arc<Snapshot>>,
    /// Search sections of a document, by document hash.
    pub(crate) sections: Cache<String, Arc<Vec<quire_content::document::Section>>>,
}

impl Caches {
    pub(crate) fn new(budget: CacheBudget) -> Self {
        Caches {
            nodes: weighed(budget.share(CacheShare::TreeNodes), node_bytes),
            files: weighed(budget.share(CacheShare::Files), file_bytes),
            documents: weighed(budget.share(CacheShare::Documents), document_bytes),
            snapshots: bounded(64),
            sections: weighed(budget.share(CacheShare::SearchSections), sections_bytes),
        }
    }

    /// Each cache's name, entries and bytes (snapshots are counted, so
    /// they weigh nothing).
    pub(crate) fn sizes(&self) -> Vec<(&'static str, u64, u64)> {
        vec![
            size("tree_nodes", &self.nodes),
            size("files", &self.files),
            size("documents", &self.documents),
            size("search_sections", &self.sections),
            ("snapshots", self.snapshots.entry_count(), 0),
        ]
    }
}

/// A cache's name, entries and weighed bytes.
pub(crate) fn size<V: Clone + Send + Sync + 'static>(
    name: &'static str,
    cache: &Cache<String, V>,
) -> (&'static str, u64, u64) {
    (name, cache.entry_count(), cache.weighted_size())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_stop_at_their_share_of_the_budget() {
        let caches = Caches::new(CacheBudget::mib(8));
        let share = CacheBudget::mib(8).share(CacheShare::Documents);
        let page: Arc<str> = "x".repeat(64 * 1024).into();
        for i in 0..200 {
            caches.documents.insert(format!("hash-{i}"), page.clone());
        }
        caches.documents.run_pending_tasks();
        assert!(
            caches.documents.weighted_size() <= share,
            "{} bytes held, {share} allowed",
            caches.documents.weighted_size()
        );
        let held = caches.documents.entry_count();
        assert!(held > 0 && held < 200, "{held} of 200 documents held");
    }
}
