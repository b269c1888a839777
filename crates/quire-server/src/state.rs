//! What every handler can reach: the database, the content engine (with
//! the blob store and the guarded fetch client), the clock and the public URL.

use std::sync::Arc;

use quire_core::{Clock, SystemClock, Timestamp};
use quire_engine::{Engine, Fetcher};
use quire_store::Db;
use quire_store::blobs::BlobStore;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub engine: Arc<Engine>,
    /// Recently authenticated tokens (see `auth`).
    pub tokens: Arc<crate::auth::TokenCache>,
    pub clock: Arc<dyn Clock>,
    /// Absolute base URL this server is reached at, without a trailing slash;
    /// `urls` fields in responses are built from it.
    pub public_url: Arc<str>,
}

impl AppState {
    pub fn new(db: Db, blobs: BlobStore, fetcher: Fetcher, public_url: &str) -> AppState {
        AppState::with_clock(db, blobs, fetcher, public_url, Arc::new(SystemClock))
    }

    pub fn with_clock(db: Db, blobs: BlobStore, fetcher: Fetcher, public_url: &str, clock: Arc<dyn Clock>) -> AppState {
        let engine = Arc::new(Engine::new(db.clone(), blobs, fetcher, clock.clone()));
        AppState {
            db,
            engine,
            tokens: Arc::default(),
            clock,
            public_url: public_url.trim_end_matches('/').into(),
        }
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// `<public url>/v1<path>`: the API location of a resource.
    pub fn api_url(&self, path: &str) -> String {
        format!("{}/v1{}", self.public_url, path)
    }

    /// `<public url><path>`: a location in the web application.
    pub fn app_url(&self, path: &str) -> String {
        format!("{}{}", self.public_url, path)
    }
}
