//! Quire's persistence layer.
//!
//! One SQL dialect, the common subset of SQLite and PostgreSQL (`$N` parameters,
//! `BIGINT` Unix-millisecond times and 0/1 flags, `RETURNING`, `ON CONFLICT`,
//! recursive CTEs), runs through sqlx's `Any` driver, so every query is
//! written once and exercised on both backends by the same tests. The schema
//! is in that dialect too: both backends run the migrations in `migrations/`.
//! Repositories are free functions over a connection, grouped by what they
//! own; they return plain rows and turn "no row" into [`StoreError::NotFound`].

pub mod audit;
pub mod blobs;
pub mod bus;
pub mod change_requests;
pub mod collab;
pub mod collections;
pub mod comments;
pub mod content;
pub mod db;
pub mod error;
pub mod git_syncs;
pub mod grants;
pub mod invites;
pub mod jobs;
pub mod members;
pub mod oauth;
pub mod openapi;
pub mod orgs;
pub mod page;
pub mod pdfs;
pub mod rate_counts;
pub mod reviews;
pub mod saml;
pub mod search;
pub mod sessions;
pub mod sign_in;
pub mod site_redirects;
pub mod sites;
pub mod spaces;
pub mod sql;
pub mod teams;
pub mod translations;
pub mod tree;
pub mod users;
pub mod webhooks;

pub use db::{Backend, Db, WriteTx};
pub use error::{StoreError, StoreResult};
pub use page::{Keyset, Page, SortKey};
pub use sqlx::AnyConnection as Conn;
