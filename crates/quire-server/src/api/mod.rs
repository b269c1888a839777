//! The `/v1` API, one module per area. Each module owns its router, which
//! names every route by its literal official path (so searching for an
//! operation's path finds its handler), and thin handlers: extract, call the
//! area in `quire_app`, shape JSON with `views`. Modules never import each
//! other.

use axum::Router;

use crate::state::AppState;

mod audit;
mod change_requests;
mod collections;
mod content;
mod invites;
mod members;
mod orgs;
pub mod permissions;
mod search;
mod spaces;
mod teams;
mod users;

pub fn v1() -> Router<AppState> {
    Router::new()
        .merge(users::router())
        .merge(audit::router())
        .merge(orgs::router())
        .merge(members::router())
        .merge(teams::router())
        .merge(invites::router())
        .merge(spaces::router())
        .merge(collections::router())
        .merge(permissions::router())
        .merge(change_requests::router())
        .merge(content::router())
        .merge(search::router())
        .merge(crate::features::routes())
}
