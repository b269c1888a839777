//! Passwords: stored as Argon2id PHC strings with OWASP's parameters
//! (19 MiB of memory, 2 passes, 1 lane), hashed off the async threads. A
//! password is 10 to 256 characters; nothing else is imposed (NIST
//! SP 800-63B: length over composition rules). Signing in with an email
//! that has no password costs the same as a wrong password, so it cannot
//! tell which emails have accounts.

use std::sync::LazyLock;

use argon2::password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash};
use argon2::{Algorithm, Argon2, Params, Version};
use quire_app::error::{AppError, AppResult};
use quire_app::sessions::{self, Client, Method, NewSession, Session};
use quire_app::{App, input};
use quire_store::users::{self, UserRow};
use quire_store::{sessions as session_store, sign_in};

use crate::limits::{self, Subjects};

pub const MIN_LENGTH: usize = 10;
pub const MAX_LENGTH: usize = 256;

fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The length rule.
pub fn check_rules(password: &str) -> AppResult<()> {
    let length = password.chars().count();
    if length < MIN_LENGTH {
        return Err(AppError::invalid(format!(
            "a password needs at least {MIN_LENGTH} characters"
        )));
    }
    if length > MAX_LENGTH {
        return Err(AppError::invalid(format!(
            "a password has at most {MAX_LENGTH} characters"
        )));
    }
    Ok(())
}

/// The PHC string of a new password (checked against the rules).
pub async fn hash(password: &str) -> AppResult<String> {
    check_rules(password)?;
    let password = password.to_owned();
    tokio::task::spawn_blocking(move || {
        argon2()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| AppError::from(anyhow::anyhow!("hashing a password: {e}")))
    })
    .await
    .map_err(|e| AppError::from(anyhow::anyhow!("hashing a password stopped: {e}")))?
}

/// A hash of nothing anyone knows, verified against when an email has no
/// password, so both cases take as long.
static DECOY: LazyLock<String> = LazyLock::new(|| {
    argon2()
        .hash_password(quire_core::id::random_alphanumeric(32).as_bytes())
        .map(|h| h.to_string())
        .unwrap_or_default()
});

/// Whether `password` matches the PHC string `stored`.
async fn verify(stored: Option<String>, password: &str) -> AppResult<bool> {
    let known = stored.is_some();
    let stored = stored.unwrap_or_else(|| DECOY.clone());
    let password = password.to_owned();
    let matches = tokio::task::spawn_blocking(move || {
        PasswordHash::new(&stored).is_ok_and(|hash| argon2().verify_password(password.as_bytes(), &hash).is_ok())
    })
    .await
    .map_err(|e| AppError::from(anyhow::anyhow!("verifying a password stopped: {e}")))?;
    Ok(known && matches)
}

const WRONG: &str = "wrong email or password";

/// Signs in with email and password: the person and a new session.
pub async fn sign_in(app: &App, email: &str, password: &str, client: &Client) -> AppResult<(UserRow, NewSession)> {
    let subjects = Subjects::new(Some(email), client.address.as_deref());
    let attempt = limits::begin(app, &subjects).await?;
    let now = app.now();
    let (user, stored) = {
        let mut conn = app.db.read().await?;
        let user = match input::email(email) {
            Ok(email) => users::find_by_email(&mut conn, &email).await?,
            Err(_) => None,
        };
        let stored = match &user {
            Some(user) => sign_in::password_hash(&mut conn, &user.id).await?,
            None => None,
        };
        (user, stored)
    };
    let matches = verify(stored, password).await?;
    let user = match user {
        Some(user) if matches => user,
        other => {
            attempt
                .failed(app, other.as_ref().map(|u| u.id.as_str()), "wrong email or password")
                .await?;
            return Err(AppError::SignInFailed(WRONG.into()));
        }
    };
    let mut tx = app.db.write().await?;
    attempt.succeeded(&mut tx).await?;
    let session = sessions::start(&mut tx, &user.id, Method::Password, client, now).await?;
    tx.commit().await?;
    tracing::info!(user = %user.id, "signed in with a password");
    Ok((user, session))
}

/// Changes the session's person's password. With a password already set,
/// the current one is required (and counted as a sign-in attempt). Every
/// other session of the person ends.
pub async fn change(app: &App, session: &Session, current: Option<&str>, new: &str, client: &Client) -> AppResult<()> {
    let user = &session.user;
    let now = app.now();
    let stored = {
        let mut conn = app.db.read().await?;
        sign_in::password_hash(&mut conn, &user.id).await?
    };
    let attempt = match stored {
        Some(_) => {
            let Some(current) = current else {
                return Err(AppError::invalid("currentPassword is required to change a password"));
            };
            let subjects = Subjects::new(Some(&user.email), client.address.as_deref());
            let attempt = limits::begin(app, &subjects).await?;
            if !verify(stored, current).await? {
                attempt.failed(app, Some(&user.id), "wrong current password").await?;
                return Err(AppError::forbidden("the current password is wrong"));
            }
            Some(attempt)
        }
        None => None,
    };
    let hash = hash(new).await?;
    let mut tx = app.db.write().await?;
    if let Some(attempt) = attempt {
        attempt.succeeded(&mut tx).await?;
    }
    sign_in::set_password_hash(&mut tx, &user.id, &hash, now).await?;
    session_store::delete_others(&mut tx, &user.id, Some(&session.token_hash)).await?;
    tx.commit().await?;
    Ok(())
}
