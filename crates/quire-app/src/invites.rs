//! Inviting people: by email and with shareable invite links.
//!
//! Nobody is made a member of an organization without saying so: an
//! invitation by email waits for its person, who accepts it (the official
//! `joinOrganizationWithInvite`, with the invitation's id) or declines it
//! (`DELETE /v1/user/invites/{inviteId}`, Quire's addition) after seeing
//! which organization asks and who invited them (`GET /v1/user/invites`).
//! An email without an account yet joins when its account is created from
//! the invitation (a password link the inviting admin hands over, single
//! sign-on), which is its answer. An invite link is a secret its holder
//! uses themself.

use quire_core::Role;
use quire_core::serde_util::nullable;
use quire_store::invites::{self, InviteLinkRow};
use quire_store::page::PageRequest;
use quire_store::users::UserRow;
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
    /// Users who are members now (none: everyone invited answers first).
    pub users: Vec<String>,
    /// Number of people invited: those with an account, who join when they
    /// accept, and those who will when their account is created.
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
        if let Some(user) = users::find_by_email(&mut tx, &email).await? {
            // Someone already a member is left as they are and not counted.
            if members::membership(&mut tx, org_id, &user.id).await?.is_some() {
                continue;
            }
        }
        let id = quire_core::id::new_id();
        invites::upsert_pending(&mut tx, &id, org_id, &email, role, sso, caller.id(), now).await?;
        outcome.invited += 1;
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

/// An invitation by email waiting for its answer, as the organization's
/// admins see it, with who sent it.
#[derive(Debug, Clone)]
pub struct PendingInvite {
    pub row: invites::PendingRow,
    pub invited_by: Option<UserRow>,
}

/// The organization's invitations by email waiting for an answer, oldest
/// first; admins only (Quire's addition).
pub async fn pending(
    app: &App,
    caller: &Caller,
    org_id: &str,
    request: &PageRequest,
) -> AppResult<Page<PendingInvite>> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    let page = invites::list_pending(&mut conn, org_id, request).await?;
    let senders: Vec<String> = page.items.iter().filter_map(|r| r.invited_by.clone()).collect();
    let senders = users::get_many(&mut conn, &senders).await?;
    Ok(page.map(|row| PendingInvite {
        invited_by: row.invited_by.as_ref().and_then(|id| senders.get(id).cloned()),
        row,
    }))
}

/// Revokes one of the organization's invitations by email: it can no
/// longer be accepted; admins only (Quire's addition). The route's audit
/// entry names the invitation.
pub async fn revoke(app: &App, caller: &Caller, org_id: &str, invite_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    access::org(&mut tx, caller, org_id).await?.require_admin()?;
    if !invites::revoke(&mut tx, org_id, invite_id).await? {
        return Err(AppError::not_found("invitation", invite_id));
    }
    quire_store::audit::concerning(quire_store::audit::Target::new("invitation", invite_id));
    tx.commit().await?;
    Ok(())
}

/// An invitation waiting for the caller's answer, with who sent it.
#[derive(Debug, Clone)]
pub struct Invitation {
    pub row: invites::InvitationRow,
    pub invited_by: Option<UserRow>,
}

/// The invitations waiting for the caller's answer, oldest first.
pub async fn invitations(app: &App, caller: &Caller) -> AppResult<Vec<Invitation>> {
    let mut conn = app.db.read().await?;
    let rows = invites::invitations_for_email(&mut conn, &caller.user.email).await?;
    let senders: Vec<String> = rows.iter().filter_map(|r| r.invited_by.clone()).collect();
    let senders = users::get_many(&mut conn, &senders).await?;
    Ok(rows
        .into_iter()
        .map(|row| Invitation {
            invited_by: row.invited_by.as_ref().and_then(|id| senders.get(id).cloned()),
            row,
        })
        .collect())
}

/// Declines an invitation addressed to the caller.
pub async fn decline(app: &App, caller: &Caller, invite_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    if !invites::delete_invitation(&mut tx, invite_id, &caller.user.email).await? {
        return Err(AppError::not_found("invitation", invite_id));
    }
    tx.commit().await?;
    Ok(())
}

/// Joins the organization: with an invitation addressed to the caller
/// (accepting it), or with an invite link. The id is the secret, so callers
/// need not be members (the organization stays hidden otherwise).
pub async fn join_with_link(app: &App, caller: &Caller, org_id: &str, invite_id: &str) -> AppResult<()> {
    let mut tx = app.db.write().await?;
    if let Some(invitation) = invites::invitation(&mut tx, org_id, invite_id, &caller.user.email).await? {
        invites::delete_invitation(&mut tx, invite_id, &caller.user.email).await?;
        members::insert(&mut tx, org_id, caller.id(), invitation.role, invitation.sso, app.now()).await?;
        tx.commit().await?;
        return Ok(());
    }
    let link = load_link(&mut tx, org_id, invite_id).await?;
    let org = orgs::get(&mut tx, org_id).await.or_not_found("organization", org_id)?;
    if !org.invite_links {
        return Err(AppError::forbidden("this organization has turned invite links off"));
    }
    members::insert(&mut tx, org_id, caller.id(), link.role, org.sso, app.now()).await?;
    tx.commit().await?;
    Ok(())
}
