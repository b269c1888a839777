//! Integration tests: a real server over HTTP, on SQLite and on PostgreSQL.

mod support;

mod errors;
mod invites;
mod members;
mod official_client;
mod orgs;
mod teams;
