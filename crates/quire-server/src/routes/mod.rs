//! The `/v1` API, one module per resource; each module owns its router.

use axum::Router;

use crate::state::AppState;

mod change_requests;
mod collections;
mod content;
mod grants;
mod invites;
pub(crate) mod members;
mod orgs;
pub(crate) mod spaces;
mod teams;
mod tree;
mod users;

pub fn v1() -> Router<AppState> {
    Router::new()
        .merge(users::router())
        .merge(orgs::router())
        .merge(members::router())
        .merge(teams::router())
        .merge(invites::router())
        .merge(spaces::router())
        .merge(collections::router())
        .merge(grants::router())
        .merge(change_requests::router())
        .merge(content::router())
}
