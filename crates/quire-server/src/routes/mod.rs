//! The `/v1` API, one module per resource; each module owns its router.

use axum::Router;

use crate::state::AppState;

mod invites;
mod members;
mod orgs;
mod teams;
mod users;

pub fn v1() -> Router<AppState> {
    Router::new()
        .merge(users::router())
        .merge(orgs::router())
        .merge(members::router())
        .merge(teams::router())
        .merge(invites::router())
}
