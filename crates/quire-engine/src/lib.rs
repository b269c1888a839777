//! The content engine: everything that reads or writes a space's pages and
//! files, and the change requests that carry edits to them.
//!
//! A revision is a tree of immutable objects ([`quire_content::objects`]).
//! Reading a revision gives a [`Snapshot`]: the flat tree plus the hash of
//! every page node. An edit copies the snapshot into a draft, changes it, and
//! writes back only the objects on the path from each changed page to the
//! root; the new revision then replaces the space's or change request's head
//! with a compare-and-set, so concurrent writers never lose an update.
//!
//! One service per concern, each in its own module:
//! - [`Revisions`]: load snapshots and documents (cached: they never change)
//!   and commit new revisions — the only place a revision is written;
//! - [`Edits`]: apply a batch of changes to a change request or a space;
//! - [`Merges`]: merge a change request into its space, update it from it;
//! - [`ChangeRequests`]: open change requests;
//! - [`Files`]: file bytes in the blob store, fetched by URL when asked;
//! - [`Links`]: the links of a revision and whether their targets exist;
//! - [`Imports`]: whole content states (from Git, websites, files)
//!   committed as one revision;
//! - [`search`]: the search index follows every move of a space's head in
//!   the same transaction.

mod cache;
pub mod change_requests;
pub mod changes;
pub mod edits;
pub mod files;
pub mod imports;
pub mod links;
pub mod merges;
pub mod revisions;
pub mod search;
mod snapshot;
pub mod templates;

use std::sync::Arc;

use quire_adapters::Fetcher;
use quire_core::Clock;
use quire_core::memory::{CacheBudget, CacheShare};
use quire_store::Db;
use quire_store::blobs::BlobStore;

pub use change_requests::ChangeRequests;
pub use changes::{
    AppliedChange, Change, DocumentInput, FileInput, MAX_FILE_BYTES, MAX_PAGE_MARKDOWN_BYTES, PageFields,
};
pub use edits::Edits;
pub use files::Files;
pub use imports::Imports;
pub use links::Links;
pub use merges::{MergeResult, Merges, PageConflict, Resolution};
pub use revisions::Revisions;
pub use snapshot::{GitTarget, Snapshot};

/// Why a content operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The request is invalid (a batch change names a missing page, ...).
    #[error("{0}")]
    Invalid(String),
    /// What is missing, named (`revision "abc" not found`).
    #[error("{0}")]
    NotFound(String),
    /// The change cannot apply in the current state (a locked space, a
    /// merged change request, a merge conflict naming its pages, a head that
    /// moved meanwhile).
    #[error("{0}")]
    Conflict(String),
    /// Input over a documented size limit.
    #[error("{0}")]
    TooLarge(String),
    #[error(transparent)]
    Store(#[from] quire_store::StoreError),
    #[error(transparent)]
    Blob(#[from] quire_store::blobs::BlobError),
}

impl EngineError {
    pub fn invalid(message: impl Into<String>) -> EngineError {
        EngineError::Invalid(message.into())
    }

    pub fn conflict(message: impl Into<String>) -> EngineError {
        EngineError::Conflict(message.into())
    }

    pub fn not_found(what: &str, id: &str) -> EngineError {
        EngineError::NotFound(format!("{what} {id:?} not found"))
    }
}

pub type EngineResult<T> = Result<T, EngineError>;

/// The engine's services, shared by all requests of a server.
pub struct Engine {
    pub revisions: Arc<Revisions>,
    pub files: Arc<Files>,
    pub edits: Edits,
    pub merges: Merges,
    pub change_requests: ChangeRequests,
    pub links: Links,
    pub imports: Imports,
    /// The guarded client for server-side fetches (files by URL, imports).
    pub fetcher: Fetcher,
}

impl Engine {
    /// The engine; files named by URL are fetched with `fetcher`, and its
    /// caches take their shares of `budget`.
    pub fn new(db: Db, blobs: BlobStore, fetcher: Fetcher, clock: Arc<dyn Clock>, budget: CacheBudget) -> Engine {
        let revisions = Arc::new(Revisions::new(db.clone(), clock.clone(), budget));
        let files = Arc::new(Files::new(blobs, fetcher.clone()));
        Engine {
            fetcher,
            imports: Imports::new(revisions.clone(), files.clone(), clock.clone()),
            edits: Edits::new(revisions.clone(), files.clone(), clock.clone()),
            merges: Merges::new(revisions.clone(), clock.clone()),
            change_requests: ChangeRequests::new(db, clock),
            links: Links::new(revisions.clone(), budget.share(CacheShare::Links)),
            revisions,
            files,
        }
    }

    /// Each of the engine's caches: its name, entries and bytes.
    pub fn cache_sizes(&self) -> Vec<(&'static str, u64, u64)> {
        let mut sizes = self.revisions.cache.sizes();
        sizes.push(self.links.cache_size());
        sizes
    }
}
