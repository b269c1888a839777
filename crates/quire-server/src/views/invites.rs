//! An organization's invitations by email waiting for an answer, as its
//! admins see them (Quire's addition).

use quire_app::accounts::Visibility;
use quire_core::{Role, Timestamp};
use serde::Serialize;

use crate::state::AppState;
use crate::views::{User, user_as};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingInvite {
    pub object: &'static str,
    pub id: String,
    pub email: String,
    pub role: Option<Role>,
    pub invited_by: Option<User>,
    pub created_at: Timestamp,
}

pub fn pending_invite(state: &AppState, invite: quire_app::invites::PendingInvite) -> PendingInvite {
    PendingInvite {
        object: "invitation",
        id: invite.row.id,
        email: invite.row.email,
        role: invite.row.role,
        invited_by: invite
            .invited_by
            .as_ref()
            .map(|sender| user_as(state, sender, Visibility::Public)),
        created_at: invite.row.created_at,
    }
}
