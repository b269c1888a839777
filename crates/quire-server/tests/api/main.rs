//! Integration tests: a real server over HTTP, on SQLite and on PostgreSQL.

mod support;

mod collections;
mod errors;
mod lifecycle;
mod orgs;
mod permissions;
mod spaces;
