//! Accounts: users, their API tokens and what one user may see of another.
//!
//! Tokens are 40 random alphanumerics behind a `quire_` prefix. Only their
//! SHA-256 is stored (a token is high-entropy, so a fast hash is enough); the
//! token itself is shown once, when created, and never logged. There is no
//! sign-up over HTTP: `quire token create` (and the tests) create users, and
//! so do single sign-on logins (`saml`).

use quire_core::{Role, Timestamp};
use quire_store::users::{self, UserRow};
use quire_store::{Conn, invites, members};
use sha2::{Digest, Sha256};

use crate::error::{AppError, AppResult, NotFoundExt};
use crate::{App, Caller, input};

const TOKEN_PREFIX: &str = "quire_";

/// A fresh API token, as shown to its owner.
fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", quire_core::id::random_alphanumeric(40))
}

/// The form a token is stored and looked up in.
pub fn hash_token(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Finds the user with `email`, or creates it with `display_name`. A new user
/// joins every organization that invited that email beforehand.
pub async fn ensure_user(app: &App, email: &str, display_name: &str) -> AppResult<UserRow> {
    let email = input::email(email)?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let user = ensure_user_in(&mut tx, &email, display_name, now).await?;
    tx.commit().await?;
    Ok(user)
}

/// [`ensure_user`] inside the caller's transaction, for an email already
/// checked.
pub(crate) async fn ensure_user_in(
    conn: &mut Conn,
    email: &str,
    display_name: &str,
    now: Timestamp,
) -> AppResult<UserRow> {
    if let Some(user) = users::find_by_email(conn, email).await? {
        return Ok(user);
    }
    let display_name = display_name.trim();
    if display_name.is_empty() {
        return Err(AppError::invalid("a user needs a non-empty name"));
    }
    let user = UserRow {
        id: quire_core::id::new_id(),
        email: email.to_owned(),
        display_name: display_name.to_owned(),
        photo_url: None,
        created_at: now,
    };
    users::insert(conn, &user).await?;
    for invite in invites::take_pending_for_email(conn, email).await? {
        members::insert(conn, &invite.organization_id, &user.id, invite.role, invite.sso, now).await?;
    }
    Ok(user)
}

/// Issues a new API token for the user and returns it; only its hash is
/// kept. No policy is checked here: the account page checks single sign-on
/// ([`crate::sessions::create_token`]), the `token create` command asks
/// [`crate::sessions::sso_blockers`].
pub async fn create_token(app: &App, user_id: &str, label: Option<&str>) -> AppResult<String> {
    let token = new_token();
    let id = quire_core::id::random_alphanumeric(20);
    let mut tx = app.db.write().await?;
    users::insert_token(&mut tx, &hash_token(&token), &id, label, user_id, app.now()).await?;
    tx.commit().await?;
    Ok(token)
}

/// The user a token (in its stored, hashed form) belongs to.
pub async fn user_for_token_hash(app: &App, token_hash: &str) -> AppResult<Option<UserRow>> {
    let mut conn = app.db.read().await?;
    Ok(users::by_token_hash(&mut conn, token_hash).await?)
}

/// How much of a user a caller may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// The user themself, or an admin of an organization the user is in:
    /// everything, the email address included.
    Full,
    /// Someone sharing an organization with the user: the public profile.
    Public,
}

/// Another user as the caller may see them; not found for users who share
/// no organization with the caller.
pub async fn user(app: &App, caller: &Caller, user_id: &str) -> AppResult<(UserRow, Visibility)> {
    let mut conn = app.db.read().await?;
    if caller.id() == user_id {
        return Ok((caller.user.clone(), Visibility::Full));
    }
    let shared = members::shared_with(&mut conn, caller.id(), user_id).await?;
    if shared.is_empty() {
        return Err(AppError::not_found("user", user_id));
    }
    let user = users::get(&mut conn, user_id).await.or_not_found("user", user_id)?;
    let visibility = if shared.iter().any(|m| m.role == Some(Role::Admin)) {
        Visibility::Full
    } else {
        Visibility::Public
    };
    Ok((user, visibility))
}
