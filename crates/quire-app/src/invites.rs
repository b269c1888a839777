//! Inviting people: by email (existing users join at once, others when their
//! account is created) and with shareable invite links.

use quire_core::Role;
use quire_core::serde_util::nullable;
use quire_store::invites::{self, InviteLinkRow};
use quire_store::page::PageRequest;
use quire_store::{Conn, Page, members, orgs, users};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult, NotFoundExt};
use crate::{App, Caller, access, input};

/// An entry of `emails`: a bare address or an address with its own role.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Invitee {
    Email(String),
    WithRole {
        email: String,
        #[serde(deserialize_with = "nullable")]
        role: Option<Option<Role>>,
    },
}

/// The input of an invitation by email.
#[derive(Debug, Deserialize)]
pub struct EmailInvites {
    pub emails: Vec<Invitee>,
    /// The role of entries without their own (`null`: guests); the
    /// organization's default role when absent.
    #[serde(default, deserialize_with = "nullable")]
    pub role: Option<Option<Role>>,
    #[serde(default)]
    pub sso: bool,
}

#[derive(Debug, Serialize)]
pub struct InviteOutcome {
    /// Users who had an account and are now members.
    pub users: Vec<String>,
    /// Number of people invited: those who became members now and those who
    /// will when their account is created.
    pub invited: usize,
}

pub async fn invite_by_email(
    app: &App,
    caller: &Caller,
    org_id: &str,
    invites: EmailInvites,
) -> AppResult<InviteOutcome> {
    if invites.emails.is_empty() {
        return Err(AppError::invalid("emails must list at least one address"));
    }
    let now = app.now();
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    let org = orgs::get(&mut tx, org_id).await.or_not_found("organization", org_id)?;
    let default_role = invites.role.unwrap_or(org.default_role);
    // Where single sign-on is enforced, everyone invited signs in through it.
    let sso = invites.sso || org.sso;

    let mut outcome = InviteOutcome {
        users: Vec::new(),
        invited: 0,
    };
    for invitee in &invites.emails {
        let (email, role) = match invitee {
            Invitee::Email(email) => (email, default_role),
            Invitee::WithRole { email, role } => (email, role.unwrap_or(default_role)),
        };
        let email = input::email(email)?;
        match users::find_by_email(&mut tx, &email).await? {
            Some(user) => {
                // Someone already a member is left as they are and not counted.
                if members::insert(&mut tx, org_id, &user.id, role, sso, now).await? {
                    outcome.users.push(user.id);
                    outcome.invited += 1;
                }
            }
            None => {
                let id = quire_core::id::new_id();
                invites::upsert_pending(&mut tx, &id, org_id, &email, role, sso, now).await?;
                outcome.invited += 1;
            }
        }
    }
    tx.commit().await?;
    Ok(outcome)
}

async fn load_link(conn: &mut Conn, org_id: &str, invite_id: &str) -> AppResult<InviteLinkRow> {
    invites::get_link(conn, org_id, invite_id)
        .await
        .or_not_found("invite link", invite_id)
}

/// The organization's invite links; admins only.
pub async fn links(app: &App, caller: &Caller, org_id: &str, request: &PageRequest) -> AppResult<Page<InviteLinkRow>> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    Ok(invites::list_links(&mut conn, org_id, request).await?)
}

/// The role an invite link gives: required, `null` for guests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRole {
    #[serde(default, deserialize_with = "nullable")]
    pub role: Option<Option<Role>>,
}

impl LinkRole {
    fn required(self) -> AppResult<Option<Role>> {
        self.role
            .ok_or_else(|| AppError::invalid("role is required (a role, or null for guests)"))
    }
}

pub async fn create_link(app: &App, caller: &Caller, org_id: &str, role: LinkRole) -> AppResult<InviteLinkRow> {
    let role = role.required()?;
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    let link = InviteLinkRow {
        id: quire_core::id::new_id(),
        organization_id: org_id.to_owned(),
        role,
        created_at: app.now(),
    };
    invites::insert_link(&mut tx, &link).await?;
    tx.commit().await?;
    Ok(link)
}

pub async fn get_link(app: &App, caller: &Caller, org_id: &str, invite_id: &str) -> AppResult<InviteLinkRow> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    load_link(&mut conn, org_id, invite_id).await
}

pub async fn update_link(
    app: &App,
    caller: &Caller,
    org_id: &str,
    invite_id: &str,
    role: LinkRole,
) -> AppResult<InviteLinkRow> {
    let role = role.required()?;
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    load_link(&mut tx, org_id, invite_id).await?;
    invites::set_link_role(&mut tx, org_id, invite_id, role).await?;
    let link = load_link(&mut tx, org_id, invite_id).await?;
    tx.commit().await?;
    Ok(link)
}

pub async fn delete_link(app: &App, caller: &Caller, org_id: &str, invite_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    invites::delete_link(&mut tx, org_id, invite_id).await?;
    tx.commit().await?;
    Ok(())
}

/// Joins the organization with an invite link. The link id is the secret,
/// so callers need not be members (the organization stays hidden otherwise).
pub async fn join_with_link(app: &App, caller: &Caller, org_id: &str, invite_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    let link = load_link(&mut tx, org_id, invite_id).await?;
    let org = orgs::get(&mut tx, org_id).await.or_not_found("organization", org_id)?;
    if !org.invite_links {
        return Err(AppError::forbidden("this organization has turned invite links off"));
    }
    members::insert(&mut tx, org_id, caller.id(), link.role, org.sso, app.now()).await?;
    tx.commit().await?;
    Ok(())
}
