//! The product features, composed: each feature crate owns its rules, jobs
//! and routes, and is named here once. A new feature adds its router and
//! its job registrations below and nowhere else.

use axum::Router;
use quire_app::jobs::Registry;
use quire_http::AppState;

/// Every feature's `/v1` routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .merge(quire_discussions::router())
        .merge(quire_git_sync::router())
        .merge(quire_sites::router())
        .merge(quire_specs::router())
        .merge(quire_pdf_export::router())
        .merge(quire_sso::router())
        .merge(quire_translations::router())
        .merge(quire_webhooks::routes::router())
        .merge(quire_collab::router(quire_collab::Rooms::default()))
}

/// Every job type this server runs: the platform's and every feature's.
pub fn job_registry() -> Registry {
    let mut registry = Registry::platform();
    quire_git_sync::register_jobs(&mut registry);
    quire_specs::register_jobs(&mut registry);
    quire_translations::register_jobs(&mut registry);
    quire_webhooks::register_jobs(&mut registry);
    registry
}
