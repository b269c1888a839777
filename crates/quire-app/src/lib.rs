//! Quire's platform: what every product feature needs, and what the API,
//! the CLI and background jobs all call. Product features (sites, Git Sync
//! and imports, translations, OpenAPI specs, PDFs, single sign-on,
//! discussions) are crates above this one, composed by the server.
//!
//! - [`access`] answers "what may this caller do with this organization,
//!   collection, space, change request or site", and nothing else does.
//! - One module per area (`orgs`, `members`, `teams`, `invites`, `spaces`,
//!   `collections`, `permissions`, `change_requests`, `content`, `search`,
//!   `accounts`, `sessions`) owns that area's rules and its transactions.
//!   Functions take the [`App`], the [`Caller`] and typed input, and return
//!   rows with everything a view needs; they never see HTTP.
//! - [`jobs`] runs durable background work; each area and feature registers
//!   its own job types.
//! - Every failure is an [`AppError`]; the HTTP layer maps it to a status in
//!   one place.

pub mod access;
pub mod accounts;
pub mod audit;
pub mod change_requests;
pub mod changes;
pub mod collections;
pub mod content;
pub mod error;
pub mod history;
pub mod input;
pub mod invites;
pub mod jobs;
pub mod members;
pub mod orgs;
pub mod permissions;
pub mod search;
pub mod sessions;
pub mod settings;

pub use settings::Settings;
pub mod spaces;
pub mod teams;
pub mod tree;

use std::sync::Arc;

use quire_adapters::{Fetcher, Git, GitConfig};
use quire_core::{Clock, SystemClock, Timestamp};
use quire_engine::Engine;
use quire_store::Db;
use quire_store::blobs::BlobStore;
use quire_store::users::UserRow;

pub use error::{AppError, AppResult};
pub use tree::{MoveInput, Pointer, Position};

/// Everything the application needs: the database, the content engine (with
/// the blob store and the guarded fetch client) and the clock. Cheap to clone.
#[derive(Clone)]
pub struct App {
    pub db: Db,
    pub engine: Arc<Engine>,
    /// Git repositories, under the same network policy as fetches.
    pub git: Arc<Git>,
    pub clock: Arc<dyn Clock>,
    pub settings: Arc<Settings>,
    /// The machine translation provider the operator configured, if any.
    translation: Arc<std::sync::RwLock<Option<quire_adapters::translate::Provider>>>,
    /// The chat model that answers readers' questions, if the operator
    /// configured one.
    assistant: Arc<std::sync::RwLock<Option<quire_adapters::chat::ChatModel>>>,
}

impl App {
    pub fn new(db: Db, blobs: BlobStore, fetcher: Fetcher) -> App {
        App::with_clock(db, blobs, fetcher, Arc::new(SystemClock))
    }

    pub fn with_clock(db: Db, blobs: BlobStore, fetcher: Fetcher, clock: Arc<dyn Clock>) -> App {
        App::with_settings(db, blobs, fetcher, clock, Settings::default())
    }

    /// The application with the operator's settings.
    pub fn with_settings(db: Db, blobs: BlobStore, fetcher: Fetcher, clock: Arc<dyn Clock>, settings: Settings) -> App {
        let git = Arc::new(Git::new(GitConfig {
            cache_dir: settings.git_cache_dir.clone(),
            allow_private_networks: fetcher.config().allow_private_networks,
            timeout: std::time::Duration::from_secs(600),
        }));
        let engine = Arc::new(Engine::new(
            db.clone(),
            blobs,
            fetcher,
            clock.clone(),
            settings.cache_budget,
        ));
        quire_metrics::watch_caches(&engine, Engine::cache_sizes);
        App {
            db,
            engine,
            git,
            clock,
            settings: Arc::new(settings),
            translation: Arc::default(),
            assistant: Arc::default(),
        }
    }

    /// Sets the machine translation provider (`None`: translations can be
    /// managed but not run).
    pub fn set_translation_provider(&self, provider: Option<quire_adapters::translate::Provider>) {
        if let Ok(mut slot) = self.translation.write() {
            *slot = provider;
        }
    }

    pub fn translation_provider(&self) -> Option<quire_adapters::translate::Provider> {
        self.translation.read().ok().and_then(|p| p.clone())
    }

    /// Sets the chat model answering readers' questions (`None`: published
    /// sites offer no answers).
    pub fn set_assistant(&self, model: Option<quire_adapters::chat::ChatModel>) {
        if let Ok(mut slot) = self.assistant.write() {
            *slot = model;
        }
    }

    pub fn assistant(&self) -> Option<quire_adapters::chat::ChatModel> {
        self.assistant.read().ok().and_then(|m| m.clone())
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }
}

/// The authenticated user an operation runs for.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: UserRow,
    pub via: Via,
}

/// How the caller authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// An API token (or a job acting for its person).
    Token,
    /// A browser session, with the organizations whose single sign-on it
    /// went through.
    Session { sso_organizations: Vec<String> },
}

impl Caller {
    /// A caller holding an API token (or a job acting for `user`).
    pub fn with_token(user: UserRow) -> Caller {
        Caller { user, via: Via::Token }
    }

    pub fn id(&self) -> &str {
        &self.user.id
    }

    /// Whether the caller may act in an organization whose single sign-on
    /// the caller's membership requires: tokens were made from a session that
    /// went through it ([`sessions::create_token`]); a session must have.
    pub fn went_through_sso(&self, org_id: &str) -> bool {
        match &self.via {
            Via::Token => true,
            Via::Session { sso_organizations } => sso_organizations.iter().any(|o| o == org_id),
        }
    }
}
