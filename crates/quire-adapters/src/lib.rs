//! Quire's outbound adapters: everything that reaches outside the server on
//! a user's behalf, each under the operator's network policy.
//!
//! - [`fetch`]: the guarded HTTP client for server-side fetches (no private
//!   addresses unless allowed, size and time limits, redirects re-checked);
//! - [`git`]: Git repositories through the `git` command, under the same
//!   policy;
//! - [`translate`]: machine-translation providers (OpenAI-compatible and
//!   DeepL);
//! - [`chat`]: a chat model behind an OpenAI-compatible API (answers to
//!   readers' questions).
//!
//! A feature that needs another outside service adds its adapter here, not
//! in the content engine or the application layer.

pub mod chat;
pub mod fetch;
pub mod git;
pub mod translate;

pub use fetch::{FetchConfig, FetchError, Fetcher};
pub use git::{Git, GitConfig, GitError};
