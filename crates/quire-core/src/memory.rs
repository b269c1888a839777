//! The memory a node's caches may take: one budget the operator sets
//! (`--cache-memory`, in MiB), split here between the caches, so that what
//! a node holds at most is one number chosen for the machine, and every
//! cache stops growing once its share is full.

/// The caches that share the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheShare {
    /// Rendered answers of published sites.
    PublishedPages,
    /// Documents' markdown, by hash.
    Documents,
    /// Page tree nodes, by hash.
    TreeNodes,
    /// Answers of API reads kept between changes.
    ApiReads,
    /// Search sections of documents.
    SearchSections,
    /// Links found in documents.
    Links,
    /// File records, by hash.
    Files,
}

impl CacheShare {
    /// Percent of the budget; together they make 100.
    const fn percent(self) -> u64 {
        match self {
            CacheShare::PublishedPages => 50,
            CacheShare::Documents => 14,
            CacheShare::TreeNodes => 10,
            CacheShare::ApiReads => 13,
            CacheShare::SearchSections => 7,
            CacheShare::Links => 3,
            CacheShare::Files => 3,
        }
    }
}

/// What a cache entry takes beyond its key and value: the cache's own
/// bookkeeping for it (its hash-table bucket, shared key, entry record and
/// queue nodes; 245 bytes requested, measured) and the allocator's
/// rounding of those. Every weigher adds it, so a
/// budget counts real memory even for small entries; without it a soak
/// filled caches of documents of ~150 bytes to three times their counted
/// size (`quire-engine`'s cache tests measure it against the cache itself).
pub const CACHE_ENTRY_OVERHEAD: usize = 256;

/// What an `Arc<T>` takes on the heap besides what `T` points to: its two
/// counters and `T` itself. Weighers count cached records with it.
pub const fn arc_bytes<T>() -> usize {
    16 + std::mem::size_of::<T>()
}

/// Bytes all of a node's caches may hold together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheBudget {
    bytes: u64,
}

impl CacheBudget {
    /// What a node holds unless the operator says: enough for the pages and
    /// documents of a few large sites, small enough for a laptop.
    pub const DEFAULT_MIB: u64 = 256;

    pub const fn mib(mib: u64) -> CacheBudget {
        CacheBudget {
            bytes: mib.saturating_mul(1 << 20),
        }
    }

    /// The bytes one cache may hold.
    pub const fn share(self, cache: CacheShare) -> u64 {
        self.bytes.saturating_mul(cache.percent()) / 100
    }
}

impl Default for CacheBudget {
    fn default() -> CacheBudget {
        CacheBudget::mib(CacheBudget::DEFAULT_MIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shares_make_the_whole_budget() {
        let all = [
            CacheShare::PublishedPages,
            CacheShare::Documents,
            CacheShare::TreeNodes,
            CacheShare::ApiReads,
            CacheShare::SearchSections,
            CacheShare::Links,
            CacheShare::Files,
        ];
        assert_eq!(all.iter().map(|s| s.percent()).sum::<u64>(), 100);
        let budget = CacheBudget::mib(100);
        let total: u64 = all.iter().map(|s| budget.share(*s)).sum();
        assert!(total <= 100 << 20 && total > 99 << 20, "{total}");
        assert_eq!(CacheBudget::mib(64).share(CacheShare::PublishedPages), 32 << 20);
    }
}
