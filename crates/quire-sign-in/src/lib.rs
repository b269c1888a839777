//! Signing in without an identity provider, and with OpenID Connect.
//!
//! - [`passwords`]: email and password (Argon2id hashes), changing one's
//!   password;
//! - [`links`]: one-time links to sign in (printed by the CLI for the first
//!   admin), to reset a password or to accept an invitation by setting one
//!   (made by an organization admin or the CLI);
//! - [`limits`]: failed attempts counted per account and per address in the
//!   database, so every node sees them;
//! - [`oidc`]: the authorization code flow with PKCE against one provider
//!   the operator configures;
//! - [`routes`]: `/auth/...`, the JSON endpoints the web application (or a
//!   script) signs in with, lists and ends sessions with.
//!
//! Every way in ends the same: a session ([`quire_app::sessions`]) in the
//! `quire_session` cookie.

pub mod limits;
pub mod links;
pub mod oidc;
pub mod passwords;
mod routes;
mod views;

pub use routes::router;
