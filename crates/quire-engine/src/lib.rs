//! The content engine: everything that reads or writes a space's pages and
//! files, and the change requests that carry edits to them.
//!
//! A revision is a tree of immutable objects ([`quire_content::objects`]).
//! Reading a revision gives a [`Snapshot`]: the flat tree plus the hash of
//! every page node. An edit clones the snapshot, changes it, and writes back
//! only the objects on the path from each changed page to the root; the new
//! revision then replaces the change request's head with a compare-and-set,
//! so concurrent writers never lose an update. Snapshots and objects are
//! immutable, so they are cached in memory by id and hash.

mod batch;
mod cache;
pub mod fetch;
pub mod links;
mod merging;
mod snapshot;
pub mod templates;

use std::sync::Arc;

use quire_core::{Clock, Timestamp};
use quire_store::Db;
use quire_store::blobs::BlobStore;

pub use batch::{AppliedChange, Change, DocumentInput, FileInput, MAX_FILE_BYTES, PageFields};
pub use fetch::{FetchConfig, FetchError, Fetcher};
pub use merging::MergeResult;
pub use snapshot::Snapshot;

/// Why a content operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The request is invalid (a batch change names a missing page, ...).
    #[error("{0}")]
    Invalid(String),
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The change cannot apply in the current state (a locked space, a
    /// merged change request, a merge conflict).
    #[error("{message}")]
    Conflict {
        message: String,
        pages: Vec<quire_content::merge::Conflict>,
    },
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
        EngineError::Conflict {
            message: message.into(),
            pages: Vec::new(),
        }
    }
}

pub type EngineResult<T> = Result<T, EngineError>;

/// The engine, shared by all requests of a server.
pub struct Engine {
    pub db: Db,
    pub blobs: BlobStore,
    /// The guarded client for every server-side HTTP fetch.
    pub fetcher: Fetcher,
    clock: Arc<dyn Clock>,
    cache: cache::Caches,
}

impl Engine {
    pub fn new(db: Db, blobs: BlobStore, fetcher: Fetcher, clock: Arc<dyn Clock>) -> Engine {
        Engine {
            db,
            blobs,
            fetcher,
            clock,
            cache: cache::Caches::default(),
        }
    }

    fn now(&self) -> Timestamp {
        self.clock.now()
    }
}
