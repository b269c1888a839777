//! The platform areas' own JSON shapes; the shapes every area shares are
//! in `quire_http::views` and re-exported here.

pub mod audit;
pub mod content;
pub mod invites;
pub mod search;

pub use quire_http::views::*;
