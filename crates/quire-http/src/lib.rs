//! What every HTTP area of Quire is written with, platform and features
//! alike:
//!
//! - [`state`]: the [`AppState`] every handler reaches (the application and
//!   the public URL);
//! - [`auth`], [`extract`], [`pagination`]: what handlers extract from a
//!   request (the caller, bodies and paths with the official errors, pages
//!   of lists);
//! - [`session`]: the browser session's cookie, CSRF header and client;
//! - [`files`]: the headers every stored file is answered with (never
//!   active content on Quire's origins);
//! - [`reads`]: the layer that keeps the hottest API reads in memory and
//!   announces every write;
//! - [`audit`]: the layer that opens the audit scope of every request that
//!   may change something;
//! - [`limits`]: the layer that counts requests against the rate limits;
//! - [`error`]: the one error type and its mapping to statuses;
//! - [`views`]: the JSON shapes every area shows (users, organizations,
//!   members, teams, spaces, collections).
//!
//! An area's router, handlers and own views live with the area: the
//! platform's in `quire-server`, each feature's in its crate.

pub mod audit;
pub mod auth;
pub mod error;
pub mod extract;
pub mod files;
pub mod limits;
pub mod mcp;
pub mod pages;
pub mod pagination;
pub mod reads;
pub mod session;
pub mod state;
pub mod views;

pub use state::AppState;
