//! Telling every node that something changed, for the caches that keep
//! answers in memory and drop them when they hear it (sent with
//! `Bus::announce`, so the writing node drops its own copy before the
//! write's answer leaves). The content engine announces a space's new
//! revision itself (`space.revision`); these are the rest:
//!
//! - [`PUBLISHED_CHANGED`]: what published sites show may have changed (a
//!   site's settings, structure, look or audiences, an organization's or a
//!   space's settings, an OpenAPI spec);
//! - [`STATE_CHANGED`]: anything an API read may show changed (any write
//!   through the API or `/auth`, any job that ended).

use crate::App;

/// The bus topic of a change of published output (its body is empty).
pub const PUBLISHED_CHANGED: &str = "published.changed";
/// The bus topic of any change an API read may show (its body is empty).
pub const STATE_CHANGED: &str = "state.changed";

/// Announces `topic` after the change was committed. A message that cannot
/// leave is logged (a node also drops what it kept when its bus
/// reconnects).
pub async fn announce(app: &App, topic: &str) {
    let sent = match app.db.read().await {
        Ok(mut conn) => app.db.bus().announce(&mut conn, topic, "").await,
        Err(e) => Err(e),
    };
    if let Err(e) = sent {
        tracing::warn!(error = %e, %topic, "could not announce a change");
    }
}
