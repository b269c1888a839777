//! `GET /user` and `GET /users/{userId}`.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use quire_store::users;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::state::AppState;
use crate::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/user", get(current_user))
        .route("/users/{user_id}", get(user_by_id))
}

async fn current_user(State(state): State<AppState>, caller: Caller) -> Json<views::User> {
    Json(views::user(&state, &caller.user))
}

async fn user_by_id(
    State(state): State<AppState>,
    _caller: Caller,
    Path(user_id): Path<String>,
) -> ApiResult<Json<views::User>> {
    let mut conn = state.db.read().await?;
    let user = users::get(&mut conn, &user_id)
        .await
        .map_err(|_| ApiError::not_found("user"))?;
    Ok(Json(views::user(&state, &user)))
}
