//! Accounts: users, their API tokens and what one user may see of another.
//!
//! Tokens are 40 random alphanumerics behind a `quire_` prefix. Only their
//! SHA-256 is stored (a token is high-entropy, so a fast hash is enough); the
//! token itself is shown once, when created, and never logged. There is no
//! sign-up over HTTP: `quire token create` (and the tests) create users, and
//! so do single sign-on logins (`saml`).
//!
//! Emails: a user's email address is shown to the user themself and to
//! admins of an organization the user belongs to; everyone else gets the
//! public profile ([`Visibility`]). `GET /users/{userId}` asks [`user`];
//! every other response naming users (members, commenters, authors, grant
//! holders, change requests) carries a [`Viewer`] or a [`Visibility`]
//! decided here, and views show an email only as those say.

use std::collections::HashSet;
use std::sync::Arc;

use quire_core::{Role, Timestamp};
use quire_store::users::{self, UserRow};
use quire_store::{Conn, invites, members};

use crate::access::OrgAccess;
use crate::error::{AppError, AppResult, NotFoundExt};
use crate::{App, Caller, input};

const TOKEN_PREFIX: &str = "quire_";

/// A fresh API token, as shown to its owner.
fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", quire_core::id::random_alphanumeric(40))
}

/// The form a token is stored and looked up in.
pub fn hash_token(token: &str) -> String {
    quire_core::digest::sha256_hex(token.as_bytes())
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
pub async fn ensure_user_in(conn: &mut Conn, email: &str, display_name: &str, now: Timestamp) -> AppResult<UserRow> {
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
    let mut tx = app.db.write().await?;
    let token = insert_token(&mut tx, user_id, label, app.now()).await?;
    tx.commit().await?;
    Ok(token)
}

/// [`create_token`] in the caller's transaction (an OAuth code exchanged
/// for a token at once).
pub async fn insert_token(conn: &mut Conn, user_id: &str, label: Option<&str>, now: Timestamp) -> AppResult<String> {
    let token = new_token();
    let id = quire_core::id::random_alphanumeric(20);
    users::insert_token(conn, &hash_token(&token), &id, label, user_id, now).await?;
    Ok(token)
}

/// The person with this email and their tokens, newest first (the
/// `token list` command); not found when nobody has that email.
pub async fn tokens_of_email(app: &App, email: &str) -> AppResult<(UserRow, Vec<users::TokenRow>)> {
    let mut conn = app.db.read().await?;
    let user = users::find_by_email(&mut conn, email.trim())
        .await?
        .ok_or_else(|| AppError::not_found("user", email.trim()))?;
    let tokens = users::tokens_of(&mut conn, &user.id).await?;
    Ok((user, tokens))
}

/// Revokes the token `token_id` of the person with this email (the `token
/// revoke` command); not found when they have no such token.
pub async fn revoke_token_of_email(app: &App, email: &str, token_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let user = users::find_by_email(&mut tx, email.trim())
        .await?
        .ok_or_else(|| AppError::not_found("user", email.trim()))?;
    let hash = users::delete_token(&mut tx, &user.id, token_id)
        .await?
        .ok_or_else(|| AppError::not_found("token", token_id))?;
    announce_revoked(&mut tx, app, &hash).await?;
    tx.commit().await?;
    Ok(())
}

/// The bus topic of a revoked token (body: the token's stored hash): every
/// node forgets it at once.
pub const TOKEN_REVOKED: &str = "token.revoked";

/// Tells every node that the token with this hash is revoked, from the
/// revoking transaction (on PostgreSQL the message leaves when it commits).
pub async fn announce_revoked(conn: &mut Conn, app: &App, hash: &str) -> AppResult<()> {
    app.db.bus().announce(conn, TOKEN_REVOKED, hash).await?;
    Ok(())
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
    /// Everyone else who may see the user at all: the public profile, no
    /// email address.
    Public,
}

impl Visibility {
    /// The rule, and its only home: the user themself and admins of an
    /// organization the user belongs to see everything.
    fn decide(themself: bool, admin_of_their_organization: bool) -> Visibility {
        if themself || admin_of_their_organization {
            Visibility::Full
        } else {
            Visibility::Public
        }
    }
}

/// Another user as the caller may see them; not found for users who share
/// no organization with the caller.
pub async fn user(app: &App, caller: &Caller, user_id: &str) -> AppResult<(UserRow, Visibility)> {
    let mut conn = app.db.read().await?;
    if caller.id() == user_id {
        return Ok((caller.user.clone(), Visibility::decide(true, false)));
    }
    let shared = members::shared_with(&mut conn, caller.id(), user_id).await?;
    if shared.is_empty() {
        return Err(AppError::not_found("user", user_id));
    }
    let user = users::get(&mut conn, user_id).await.or_not_found("user", user_id)?;
    let admin = shared.iter().any(|m| m.role == Some(Role::Admin));
    Ok((user, Visibility::decide(false, admin)))
}

/// The [`Visibility`] of every user one response names, decided once for
/// the response: responses about an organization's content or members name
/// many users, and asking [`user`]'s question for each would cost a query
/// per user.
#[derive(Debug, Clone)]
pub struct Viewer {
    caller_id: String,
    /// The users whose organization (the one the response is about) the
    /// caller administers.
    administered: Administered,
}

#[derive(Debug, Clone)]
enum Administered {
    None,
    All,
    Only(Arc<HashSet<String>>),
}

impl Viewer {
    /// For a list of the organization's members (members, a team's members,
    /// commenters, holders of grants on its content): `org` is the caller's
    /// membership in it, and every listed user is a member, so its admins
    /// see every email and anyone else only their own.
    ///
    /// Stricter than [`user`]'s per-user rule: a caller who administers
    /// *another* organization the listed user is also in sees that user's
    /// email through `GET /users/{userId}` but not here (finding out would
    /// cost a query per listed user).
    pub fn of_members(caller: &Caller, org: Option<&OrgAccess>) -> Viewer {
        Viewer {
            caller_id: caller.id().to_owned(),
            administered: if org.is_some_and(OrgAccess::is_admin) {
                Administered::All
            } else {
                Administered::None
            },
        }
    }

    /// For users named by an organization's content (authors of comments
    /// and replies, who reacted, who opened or merged a change request),
    /// who may have left the organization since, or belong to the one the
    /// content was moved from: `org` is the caller's membership in the
    /// content's organization. Its admins see the emails of those of
    /// `user_ids` who are still its members (one query for the whole
    /// response, none for anyone else); others see only their own. As
    /// strict as [`Viewer::of_members`] about other organizations.
    pub async fn of_authors<'a>(
        conn: &mut Conn,
        caller: &Caller,
        org: Option<&OrgAccess>,
        user_ids: impl IntoIterator<Item = &'a str>,
    ) -> AppResult<Viewer> {
        let administered = match org {
            Some(org) if org.is_admin() => {
                let mut ids: Vec<String> = user_ids.into_iter().map(str::to_owned).collect();
                ids.sort_unstable();
                ids.dedup();
                Administered::Only(Arc::new(members::among(conn, &org.org_id, &ids).await?))
            }
            _ => Administered::None,
        };
        Ok(Viewer {
            caller_id: caller.id().to_owned(),
            administered,
        })
    }

    /// How much of `user_id` the caller sees.
    pub fn sees(&self, user_id: &str) -> Visibility {
        let administered = match &self.administered {
            Administered::None => false,
            Administered::All => true,
            Administered::Only(ids) => ids.contains(user_id),
        };
        Visibility::decide(user_id == self.caller_id, administered)
    }
}
