//! `GET /user` and `GET /users/{userId}`.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use quire_app::accounts::{self, Visibility};

use crate::auth::Auth;
use crate::error::ApiResult;
use crate::extract::Path;
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/user", get(current_user))
        .route("/users/{userId}", get(user_by_id))
}

/// The caller themself: everything, the email included.
async fn current_user(State(state): State<AppState>, Auth(caller): Auth) -> Json<views::User> {
    Json(views::user_as(&state, &caller.user, Visibility::Full))
}

/// Everything for the user themself and admins of an organization they are
/// in; the public profile for other members of their organizations.
async fn user_by_id(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Path(user_id): Path<String>,
) -> ApiResult<Json<views::User>> {
    let (user, visibility) = accounts::user(&state.app, &caller, &user_id).await?;
    Ok(Json(views::user_as(&state, &user, visibility)))
}
