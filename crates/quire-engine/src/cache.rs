//! In-memory caches of immutable things: parsed objects by hash, documents
//! by hash, whole snapshots by revision id, a document's search sections
//! and links by its hash. Entries never go stale, so none expires; each
//! cache is a `moka` cache bounded by the bytes its entries take (its
//! share of the node's [`CacheBudget`]), which when full keeps what is used
//! often (TinyLFU admission, least recently used evicted first).
//! Snapshots are counted, not weighed: those a node commits share their
//! trees with each other, but one loaded whole (a revision another node
//! committed) shares nothing, some hundreds of kilobytes for a space of
//! 200 pages, outside the budget.
//!
//! Weights count each entry's bookkeeping too ([`CACHE_ENTRY_OVERHEAD`]),
//! which for the small documents merges write is most of what they take.
//!
//! Bounds by entry count let memory grow with the size of what was cached:
//! a root node of 200 pages holds 200 child hashes, and every merge makes
//! a new one; a 30-minute soak of merges grew the process past its
//! five-minute size by a fifth, filling caches of 200,000 nodes.

use std::sync::Arc;

use moka::sync::Cache;
use quire_content::objects::{FileObject, NodeObject};
use quire_core::memory::{CACHE_ENTRY_OVERHEAD, CacheBudget, CacheShare, arc_bytes};

use crate::snapshot::Snapshot;

/// A cache holding at most `capacity` entries.
pub(crate) fn bounded<V: Clone + Send + Sync + 'static>(capacity: u64) -> Cache<String, V> {
    Cache::new(capacity)
}

/// A cache holding entries whose keys and values (as `weigh` estimates
/// them, in bytes) and bookkeeping take at most `bytes`.
pub(crate) fn weighed<V: Clone + Send + Sync + 'static>(bytes: u64, weigh: fn(&V) -> usize) -> Cache<String, V> {
    Cache::builder()
        .max_capacity(bytes)
        .weigher(move |key: &String, value: &V| {
            u32::try_from(key.len() + weigh(value) + CACHE_ENTRY_OVERHEAD).unwrap_or(u32::MAX)
        })
        .build()
}

/// The heap bytes of an optional string (its header is in its owner).
fn optional(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

fn node_bytes(node: &Arc<NodeObject>) -> usize {
    let meta = &node.meta;
    arc_bytes::<NodeObject>()
        + node.id.len()
        + meta.title.len()
        + meta.slug.len()
        + optional(&meta.description)
        + optional(&meta.emoji)
        + optional(&meta.condition)
        + optional(&meta.link_title)
        + optional(&meta.document)
        + meta.git.as_ref().map_or(0, |git| git.oid.len() + git.path.len())
        + node.children.capacity() * std::mem::size_of::<String>()
        + node.children.iter().map(String::len).sum::<usize>()
}

fn file_bytes(file: &Arc<FileObject>) -> usize {
    arc_bytes::<FileObject>() + file.id.len() + file.name.len() + file.content_type.len() + file.blob.len()
}

fn document_bytes(document: &Arc<str>) -> usize {
    16 + document.len()
}

fn sections_bytes(sections: &Arc<Vec<quire_content::document::Section>>) -> usize {
    arc_bytes::<Vec<quire_content::document::Section>>()
        + sections.capacity() * std::mem::size_of::<quire_content::document::Section>()
        + sections
            .iter()
            .map(|s| optional(&s.anchor) + s.heading.len() + s.text.len())
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

/// Counts the bytes each test thread holds, so a test can measure what a
/// cache really takes.
#[cfg(test)]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static HELD: Cell<i64> = const { Cell::new(0) };
    }

    struct Counting;

    fn add(bytes: usize, sign: i64) {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        let _ = HELD.try_with(|held| held.set(held.get() + sign * bytes));
    }

    // SAFETY: every call is passed on to the system allocator unchanged.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(layout.size(), 1);
            // SAFETY: the caller's contract for `alloc`, passed on.
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(layout.size(), -1);
            // SAFETY: the caller's contract for `dealloc`, passed on.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    /// Bytes this thread allocated and has not freed.
    pub(super) fn held() -> i64 {
        HELD.with(Cell::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small documents (the ones merges write) weigh what they really take,
    /// bookkeeping included, within a quarter.
    #[test]
    fn weights_count_what_small_entries_really_take() {
        let caches = Caches::new(CacheBudget::mib(256));
        let entries = 20_000;
        let mut documents: Vec<(String, Arc<str>)> = (0..entries)
            .map(|i| {
                let key = format!("{i:064x}");
                let body: Arc<str> = format!("# Soak page {i}\n\nA paragraph written by a merge.").into();
                (key, body)
            })
            .collect();
        let before = counting::held();
        // Drained, not consumed: the list's own buffer stays until the end.
        for (key, body) in documents.drain(..) {
            caches.documents.insert(key, body);
        }
        caches.documents.run_pending_tasks();
        let held = counting::held() - before;
        assert_eq!(caches.documents.entry_count(), entries);
        let weighed = i64::try_from(caches.documents.weighted_size()).unwrap_or(i64::MAX);
        // The keys and bodies were allocated before `before`: what the
        // cache holds for them is counted by the weights, not by `held`.
        let bookkeeping = held / i64::try_from(entries).unwrap_or(1);
        let counted = i64::try_from(CACHE_ENTRY_OVERHEAD).unwrap_or(0);
        assert!(
            bookkeeping * 4 >= counted * 3 && bookkeeping * 4 <= counted * 5,
            "the cache took {bookkeeping} bytes per entry for its bookkeeping, \
             weights count {counted} ({weighed} weighed in all)"
        );
    }

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
