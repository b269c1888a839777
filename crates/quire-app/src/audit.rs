//! The audit log as organization administrators read it (the entries are
//! written by `quire_store::audit`, with each change): newest first,
//! filtered by time, action, actor and target. Only an organization's
//! administrators read its log (its own entries, and its members' account
//! events); anyone else is refused, members with 403 and others as if the
//! organization did not exist. Each person reads the account events that
//! concern them ([`own`]).

use quire_store::Page;
use quire_store::audit::{self, AuditFilter, AuditRow};
use quire_store::page::PageRequest;

use crate::error::{AppError, AppResult};
use crate::{App, Caller, access};

/// A page of the organization's log.
pub async fn list(
    app: &App,
    caller: &Caller,
    org_id: &str,
    filter: &AuditFilter,
    request: &PageRequest,
) -> AppResult<Page<AuditRow>> {
    if let (Some(from), Some(to)) = (filter.from, filter.to)
        && from > to
    {
        return Err(AppError::invalid("from must not be after to"));
    }
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    Ok(audit::list(&mut conn, org_id, filter, request).await?)
}

/// The account events concerning the caller, newest first.
pub async fn own(app: &App, caller: &Caller, filter: &AuditFilter, request: &PageRequest) -> AppResult<Page<AuditRow>> {
    if let (Some(from), Some(to)) = (filter.from, filter.to)
        && from > to
    {
        return Err(AppError::invalid("from must not be after to"));
    }
    let mut conn = app.db.read().await?;
    Ok(audit::list_of_subject(&mut conn, caller.id(), filter, request).await?)
}

/// One of the account events concerning the caller.
pub async fn own_one(app: &App, caller: &Caller, event_id: &str) -> AppResult<AuditRow> {
    let mut conn = app.db.read().await?;
    match audit::get_of_subject(&mut conn, caller.id(), event_id).await {
        Err(quire_store::StoreError::NotFound) => Err(AppError::not_found("audit event", event_id)),
        found => Ok(found?),
    }
}

/// One entry of the organization's log.
pub async fn get(app: &App, caller: &Caller, org_id: &str, event_id: &str) -> AppResult<AuditRow> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    match audit::get(&mut conn, org_id, event_id).await {
        Err(quire_store::StoreError::NotFound) => Err(AppError::not_found("audit event", event_id)),
        found => Ok(found?),
    }
}

/// The actions the organization's log holds.
pub async fn actions(app: &App, caller: &Caller, org_id: &str) -> AppResult<Vec<String>> {
    let mut conn = app.db.read().await?;
    access::org(&mut conn, caller, org_id).await?.require_admin()?;
    Ok(audit::actions(&mut conn, org_id).await?)
}
