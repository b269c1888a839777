//! One-time links: to sign in, to reset a password, to accept an
//! invitation by setting one. A link is 43 random characters; only its
//! SHA-256 is kept. Its address is `<public URL>/sign-in/link#<token>`: the
//! token sits in the fragment, which browsers never send, so it reaches no
//! log and no `Referer`. The web application posts it back to use it.
//!
//! Who makes them: the CLI, any kind (`quire sign-in-link` for the first
//! admin on a laptop, `quire password-link`); an organization admin, only
//! where it takes over nobody's account ([`password_link`]): for an email
//! their organization invited that has no account yet (an invitation:
//! using it creates the account, which joins every organization that
//! invited the email), or the first password of an account of theirs that
//! never signed in and has no way in of its own. Nobody makes sign-in links
//! over HTTP: that would let an admin become a member.

use quire_app::error::{AppError, AppResult};
use quire_app::sessions::{self, Client, Method, NewSession};
use quire_app::{App, Caller, accounts, input};
use quire_core::{Role, Timestamp};
use quire_store::sign_in::{self, LinkRow};
use quire_store::users::{self, UserRow};
use quire_store::{Conn, audit, invites, members, sessions as session_store};

use crate::limits::{self, Subjects};
use crate::passwords;

/// What a link lets its holder do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Sign in as the person (made by the CLI only).
    SignIn,
    /// Set a new password (the person has an account).
    Reset,
    /// Create the account by setting a password (an invited email).
    Invitation,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::SignIn => "sign-in",
            Purpose::Reset => "reset",
            Purpose::Invitation => "invitation",
        }
    }

    fn parse(value: &str) -> Option<Purpose> {
        match value {
            "sign-in" => Some(Purpose::SignIn),
            "reset" => Some(Purpose::Reset),
            "invitation" => Some(Purpose::Invitation),
            _ => None,
        }
    }

    /// How long a link of this kind lives.
    fn lifetime_ms(self) -> i64 {
        const HOUR: i64 = 60 * 60 * 1000;
        match self {
            Purpose::SignIn => HOUR / 4,
            Purpose::Reset => 24 * HOUR,
            Purpose::Invitation => 7 * 24 * HOUR,
        }
    }
}

/// A link just made: shown once.
#[derive(Debug, Clone)]
pub struct IssuedLink {
    pub purpose: Purpose,
    pub email: String,
    pub url: String,
    pub expires_at: Timestamp,
}

/// The address of a link.
pub fn url(public_url: &str, token: &str) -> String {
    format!("{}/sign-in/link#{token}", public_url.trim_end_matches('/'))
}

async fn insert(
    conn: &mut Conn,
    public_url: &str,
    purpose: Purpose,
    email: &str,
    created_by: Option<&str>,
    now: Timestamp,
) -> AppResult<IssuedLink> {
    let token = quire_core::id::random_alphanumeric(43);
    let expires_at = Timestamp(now.0 + purpose.lifetime_ms());
    let row = LinkRow {
        purpose: purpose.as_str().to_owned(),
        email: email.to_owned(),
        created_by: created_by.map(str::to_owned),
        expires_at,
    };
    sign_in::insert_link(conn, &accounts::hash_token(&token), &row, now).await?;
    Ok(IssuedLink {
        purpose,
        email: email.to_owned(),
        url: url(public_url, &token),
        expires_at,
    })
}

/// A sign-in link for the CLI; the person is created with `name` when
/// nobody has that email yet.
pub async fn sign_in_link_for_cli(
    app: &App,
    public_url: &str,
    email: &str,
    name: Option<&str>,
) -> AppResult<IssuedLink> {
    let email = input::email(email)?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let fallback = email.split('@').next().unwrap_or_default().to_owned();
    accounts::ensure_user_in(&mut tx, &email, name.unwrap_or(&fallback), now).await?;
    let link = insert(&mut tx, public_url, Purpose::SignIn, &email, None, now).await?;
    tx.commit().await?;
    Ok(link)
}

/// A password link for the CLI: a reset for a person with an account, an
/// invitation for an email some organization invited; otherwise not found.
pub async fn password_link_for_cli(app: &App, public_url: &str, email: &str) -> AppResult<IssuedLink> {
    let email = input::email(email)?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let purpose = if let Some(person) = users::find_by_email(&mut tx, &email).await? {
        audit::subject(&person.id);
        audit::concerning(audit::Target::new("user", &person.id));
        Purpose::Reset
    } else if !invites::pending_orgs_for_email(&mut tx, &email).await?.is_empty() {
        Purpose::Invitation
    } else {
        return Err(AppError::not_found("user or invitation", &email));
    };
    let link = insert(&mut tx, public_url, purpose, &email, None, now).await?;
    tx.commit().await?;
    Ok(link)
}

/// A password link an organization admin asks for, only where it takes
/// over nobody's account: an invitation for an email an organization they
/// administer invited and that has no account yet, or the first password
/// of an account that never signed in, has no way in of its own and
/// belongs to no organization they do not administer. A person of theirs
/// with a sign-in of their own is refused (403: only that person, or the
/// server's operator with `quire password-link`, sets their password);
/// anyone else is not found (emails cannot be probed). The link is
/// audited against its person, in the organization that asked.
pub async fn password_link(app: &App, caller: &Caller, public_url: &str, email: &str) -> AppResult<IssuedLink> {
    let email = input::email(email)?;
    let now = app.now();
    let mut tx = app.db.write().await?;
    let person = users::find_by_email(&mut tx, &email).await?;
    let invited_by = invites::pending_orgs_for_email(&mut tx, &email).await?;
    let (purpose, member_of) = match &person {
        Some(person) => (Purpose::Reset, members::org_ids_of(&mut tx, &person.id).await?),
        None => (Purpose::Invitation, Vec::new()),
    };
    let known_to: Vec<String> = member_of.iter().chain(&invited_by).cloned().collect();
    let administered = administered(&mut tx, caller, &known_to).await?;
    let Some(asking) = administered.first() else {
        return Err(AppError::not_found("member or invitation", &email));
    };
    if let Some(person) = &person {
        let runs_all = member_of.iter().all(|org| administered.contains(org));
        if !runs_all || users::has_own_sign_in(&mut tx, &person.id).await? {
            return Err(AppError::forbidden(
                "this person signs in on their own: only they, or the server's operator \
                 (`quire password-link`), may set their password",
            ));
        }
        audit::subject(&person.id);
        audit::concerning(audit::Target::new("user", &person.id));
    } else {
        audit::concerning(audit::Target::new("invited-email", &email));
    }
    audit::in_organization(asking);
    let link = insert(&mut tx, public_url, purpose, &email, Some(caller.id()), now).await?;
    tx.commit().await?;
    tracing::info!(by = %caller.id(), purpose = purpose.as_str(), "password link made");
    Ok(link)
}

/// The organizations among `org_ids` the caller administers.
async fn administered(conn: &mut Conn, caller: &Caller, org_ids: &[String]) -> AppResult<Vec<String>> {
    let mut out = Vec::new();
    for org_id in org_ids {
        match quire_app::access::find_org(conn, caller, org_id).await {
            Ok(Some(org)) if org.has_role(Role::Admin) => out.push(org_id.clone()),
            Ok(_) | Err(AppError::Forbidden(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// What a link is for, before it is used.
#[derive(Debug, Clone)]
pub struct LinkInfo {
    pub purpose: Purpose,
    pub email: String,
    /// Whether using it needs a password (resets and invitations).
    pub needs_password: bool,
    /// Whether using it needs a display name (invitations).
    pub needs_name: bool,
    pub expires_at: Timestamp,
}

const GONE: &str = "this link has expired or was already used";

fn info(row: &LinkRow, has_account: bool) -> AppResult<LinkInfo> {
    let purpose = Purpose::parse(&row.purpose)
        .ok_or_else(|| AppError::from(anyhow::anyhow!("unknown link purpose {:?}", row.purpose)))?;
    Ok(LinkInfo {
        purpose,
        email: row.email.clone(),
        needs_password: purpose != Purpose::SignIn,
        needs_name: !has_account,
        expires_at: row.expires_at,
    })
}

/// What a live link is for; a link that is gone, or was never made, fails
/// as a sign-in (counted against the address, and audited).
pub async fn inspect(app: &App, token: &str, client: &Client) -> AppResult<LinkInfo> {
    let subjects = Subjects::new(None, client.address.as_deref());
    let attempt = limits::begin(app, &subjects).await?;
    let now = app.now();
    let mut conn = app.db.read().await?;
    match sign_in::link(&mut conn, &accounts::hash_token(token.trim()), now).await? {
        Some(row) => {
            let person = users::find_by_email(&mut conn, &row.email).await?;
            drop(conn);
            let mut tx = app.db.write().await?;
            attempt.succeeded(&mut tx).await?;
            tx.commit_unaudited().await?;
            info(&row, person.is_some())
        }
        None => {
            drop(conn);
            attempt
                .failed(app, None, "a link that expired, was used or never made")
                .await?;
            Err(AppError::SignInFailed(GONE.into()))
        }
    }
}

/// What using a link sets.
#[derive(Debug, Default)]
pub struct LinkUse {
    pub password: Option<String>,
    pub display_name: Option<String>,
}

/// Uses a link up, all or nothing: sets the password it asks for (ending
/// the person's other sessions), creates the account of an invitation, and
/// signs the holder in.
pub async fn use_link(app: &App, token: &str, given: LinkUse, client: &Client) -> AppResult<(UserRow, NewSession)> {
    let info = inspect(app, token, client).await?;
    let hash = match (&given.password, info.needs_password) {
        (Some(password), _) => Some(passwords::hash(password).await?),
        (None, true) => return Err(AppError::invalid("password is required to use this link")),
        (None, false) => None,
    };
    let now = app.now();
    let mut tx = app.db.write().await?;
    if !sign_in::take_link(&mut tx, &accounts::hash_token(token.trim())).await? {
        return Err(AppError::SignInFailed(GONE.into()));
    }
    let user = match users::find_by_email(&mut tx, &info.email).await? {
        Some(user) => user,
        None => {
            let name = given
                .display_name
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| AppError::invalid("displayName is required to create the account"))?;
            let name = input::title("displayName", name, 1, 100)?;
            accounts::ensure_user_in(&mut tx, &info.email, &name, now).await?
        }
    };
    if let Some(hash) = &hash {
        sign_in::set_password_hash(&mut tx, &user.id, hash, now).await?;
        session_store::delete_others(&mut tx, &user.id, None).await?;
    }
    let session = sessions::start(&mut tx, &user.id, Method::Link, client, now).await?;
    tx.commit().await?;
    tracing::info!(user = %user.id, purpose = info.purpose.as_str(), "signed in with a one-time link");
    Ok((user, session))
}
