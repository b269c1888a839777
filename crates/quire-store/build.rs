//! Rebuilds the crate when a migration is added or changed: `sqlx::migrate!`
//! embeds the migration directories at compile time.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=migrations-postgres");
    println!("cargo:rerun-if-changed=migrations-sqlite");
}
