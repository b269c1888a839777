//! Accounts: creating users and issuing their API tokens.
//!
//! Used by `quire token create` and by tests; there is no sign-up over HTTP.

use quire_core::Timestamp;
use quire_store::users::{self, UserRow};
use quire_store::{Db, invites, members};

use crate::auth::{hash_token, new_token};
use crate::error::{ApiError, ApiResult};
use crate::validate;

/// Finds the user with `email`, or creates it with `display_name`. A new user
/// joins every organization that invited that email beforehand.
pub async fn ensure_user(db: &Db, email: &str, display_name: &str, now: Timestamp) -> ApiResult<UserRow> {
    let email = validate::email(email)?;
    let display_name = display_name.trim();
    if display_name.is_empty() {
        return Err(ApiError::bad_request("a user needs a non-empty name"));
    }
    let mut tx = db.write().await?;
    if let Some(user) = users::find_by_email(&mut tx, &email).await? {
        return Ok(user);
    }
    let user = UserRow {
        id: quire_core::id::new_id(),
        email: email.clone(),
        display_name: display_name.to_owned(),
        photo_url: None,
        created_at: now,
    };
    users::insert(&mut tx, &user).await?;
    for invite in invites::take_pending_for_email(&mut tx, &email).await? {
        members::insert(&mut tx, &invite.organization_id, &user.id, invite.role, invite.sso, now).await?;
    }
    tx.commit().await?;
    Ok(user)
}

/// Issues a new API token for the user and returns it; only its hash is kept.
pub async fn create_token(db: &Db, user_id: &str, now: Timestamp) -> ApiResult<String> {
    let token = new_token();
    let mut tx = db.write().await?;
    users::insert_token(&mut tx, &hash_token(&token), user_id, now).await?;
    tx.commit().await?;
    Ok(token)
}
