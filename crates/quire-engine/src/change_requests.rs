//! Opening change requests: a numbered proposal whose head starts at the
//! space's current revision.

use std::sync::Arc;

use quire_core::{ChangeRequestStatus, Clock};
use quire_store::Db;
use quire_store::change_requests::{self, ChangeRequestRow};
use quire_store::spaces::SpaceRow;

use crate::EngineResult;

pub struct ChangeRequests {
    db: Db,
    clock: Arc<dyn Clock>,
}

impl ChangeRequests {
    pub(crate) fn new(db: Db, clock: Arc<dyn Clock>) -> ChangeRequests {
        ChangeRequests { db, clock }
    }

    /// Opens a change request on the space's current content. Numbers are
    /// allocated in the same transaction, so concurrent openings never share
    /// one.
    pub async fn open(&self, space: &SpaceRow, subject: &str, user_id: &str) -> EngineResult<ChangeRequestRow> {
        self.open_on(space, subject, user_id, None).await
    }

    /// Opens a change request proposing `head` (a revision of the space)
    /// over `base`, an earlier revision: what a Git push race leaves when
    /// the remote's changes conflict with the space's.
    pub async fn open_with(
        &self,
        space: &SpaceRow,
        subject: &str,
        user_id: &str,
        base: &str,
        head: &str,
    ) -> EngineResult<ChangeRequestRow> {
        self.open_on(space, subject, user_id, Some((base, head))).await
    }

    async fn open_on(
        &self,
        space: &SpaceRow,
        subject: &str,
        user_id: &str,
        revisions: Option<(&str, &str)>,
    ) -> EngineResult<ChangeRequestRow> {
        let now = self.clock.now();
        let mut tx = self.db.write().await?;
        let number = change_requests::allocate_number(&mut tx, &space.id).await?;
        let current: String = quire_store::spaces::get_any(&mut tx, &space.id).await?.revision_id;
        let (base, head) = match revisions {
            Some((base, head)) => (base.to_owned(), head.to_owned()),
            None => (current.clone(), current),
        };
        let cr = ChangeRequestRow {
            id: quire_core::id::new_id(),
            space_id: space.id.clone(),
            number,
            subject: subject.to_owned(),
            status: ChangeRequestStatus::Open,
            created_by: user_id.to_owned(),
            created_at: now,
            updated_at: now,
            revision_id: head,
            revision_initial: base.clone(),
            revision_merged_ancestor: base,
            revision_merged: None,
            merged_by: None,
            merged_at: None,
        };
        change_requests::insert(&mut tx, &cr).await?;
        tx.commit().await?;
        Ok(cr)
    }
}
