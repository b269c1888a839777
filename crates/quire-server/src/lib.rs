//! Quire's HTTP server: the `/v1` management API.
//!
//! Layers only call downward: `routes` (thin handlers: parse, authorize, call
//! the store, shape JSON) use `extract`, `auth`, `authz`, `pagination` and
//! `views`; everything persistent goes through `quire_store`.

pub mod accounts;
pub mod app;
pub mod auth;
pub mod authz;
pub mod content_views;
pub mod error;
pub mod extract;
pub mod jobs;
pub mod pagination;
pub mod permissions;
mod routes;
pub mod state;
pub mod validate;
pub mod views;

pub use app::{router, serve};
pub use quire_engine::fetch::{FetchConfig, Fetcher};
pub use state::AppState;
