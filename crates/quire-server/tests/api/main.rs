//! Integration tests: a real server over HTTP, on SQLite and on PostgreSQL.

mod support;

mod browser;
mod change_requests;
mod co_editing;
mod collections;
mod conflicts;
mod content;
mod discussions;
mod errors;
mod files;
mod git_sync;
mod gitbook_fidelity;
mod history;
mod hostile;
mod imports;
mod invites;
mod jobs;
mod lifecycle;
mod members;
mod official_client;
mod oidc;
mod openapi;
mod orgs;
mod pdf;
mod permissions;
mod published_sites;
mod reviews;
mod saml;
mod search;
mod sign_in;
mod sites;
mod spaces;
mod teams;
mod translations;
mod web_app;
