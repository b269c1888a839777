//! Quire's HTTP server: the `/v1` management API over `quire_app`.
//!
//! - [`http`]: the router, the cross-cutting layers (request ids, tracing,
//!   body limit, panics) and the server loop; `connection` gives errors hyper
//!   answers before routing the official body, `drain` reads the rest of
//!   bodies that answers given early left unread;
//! - [`api`]: one module per API area, each owning its routes;
//! - [`auth`], [`extract`], [`pagination`]: what handlers extract from a
//!   request; [`views`]: the JSON shapes of responses;
//! - [`metrics`]: requests counted and timed by route, and `GET /metrics`
//!   on the operator's own address;
//! - [`error`]: the one error type and its mapping to statuses.

mod api;
mod connection;
mod drain;
pub mod features;
pub mod http;
pub mod metrics;
pub mod views;

pub use http::{router, serve};
pub use quire_http::{AppState, auth, error, extract, limits, pagination, state};
