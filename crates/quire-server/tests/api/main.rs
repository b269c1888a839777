//! Integration tests: a real server over HTTP, on SQLite and on PostgreSQL.

mod support;

mod errors;
mod orgs;
