//! The audit log: who changed what, when and from where, written in the
//! transaction of the change itself (migration 0022).
//!
//! Whoever starts work on someone's behalf (the API layer for a request,
//! the job runner for an attempt, the binary for a command) runs it inside
//! a [`Scope`] describing it. The first write transaction committed inside
//! the scope writes the scope's entry with its own rows
//! ([`crate::WriteTx::commit`]), so an entry exists exactly when a change
//! does; work that commits nothing (a refused request) leaves none, and one
//! that commits several times leaves one (`execution_id` is unique). Writes
//! that are bookkeeping rather than a change (a session's last use, a
//! failed sign-in's counter) commit with `commit_unaudited`.
//!
//! An entry names its actor, action and target by id and keeps an
//! allowlisted payload (route, path parameters, address, what was created):
//! never a body, a header or a secret.
//!
//! Account events (signing in, failing to, passwords, tokens, one-time
//! links) belong to no organization: they name the person they concern
//! (`subject_user_id`, migration 0026; by default the acting person), who
//! reads them ([`list_of_subject`]), and an organization's log shows those
//! of its members besides its own entries. A refused attempt is recorded
//! with [`refused`], which says why.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use quire_core::Timestamp;
use serde_json::{Map, Value};
use sqlx::{AnyConnection, Row};

use crate::error::{StoreError, StoreResult};
use crate::page::{Keyset, Page, PageRequest, SortKey};
use crate::sql::Sql;

tokio::task_local! {
    static SCOPE: Arc<Scope>;
}

/// The kinds of actor of the official `AuditEventActor` Quire records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorType {
    /// A person, through a token, a session or a link.
    User,
    /// Quire itself: a job, the command line, an unauthenticated request.
    System,
}

impl ActorType {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorType::User => "user",
            ActorType::System => "system",
        }
    }

    fn parse(value: &str) -> StoreResult<ActorType> {
        match value {
            "user" => Ok(ActorType::User),
            "system" => Ok(ActorType::System),
            other => Err(StoreError::Corrupt(format!("audit actor type {other:?}"))),
        }
    }
}

/// The entry point of a change (the official `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The web application (a browser session).
    Ui,
    /// The API with a token.
    Api,
    /// Git Sync.
    Integration,
    /// A background job.
    Workflow,
    /// The command line.
    Script,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Ui => "ui",
            Source::Api => "api",
            Source::Integration => "integration",
            Source::Workflow => "workflow",
            Source::Script => "script",
        }
    }

    fn parse(value: &str) -> StoreResult<Source> {
        match value {
            "ui" => Ok(Source::Ui),
            "api" => Ok(Source::Api),
            "integration" => Ok(Source::Integration),
            "workflow" => Ok(Source::Workflow),
            "script" => Ok(Source::Script),
            other => Err(StoreError::Corrupt(format!("audit source {other:?}"))),
        }
    }
}

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub kind: ActorType,
    pub id: String,
    /// The display name when the change was made.
    pub label: Option<String>,
}

impl Actor {
    pub fn user(id: &str, label: Option<&str>) -> Actor {
        Actor {
            kind: ActorType::User,
            id: id.to_owned(),
            label: label.map(str::to_owned),
        }
    }

    /// Quire itself, as `id` (`cli`, `job:git-import`, `anonymous`).
    pub fn system(id: &str) -> Actor {
        Actor {
            kind: ActorType::System,
            id: id.to_owned(),
            label: None,
        }
    }
}

/// What a change concerned: a kind (`space`, `change-request`, ...) and an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: String,
    pub id: String,
}

impl Target {
    pub fn new(kind: &str, id: &str) -> Target {
        Target {
            kind: kind.to_owned(),
            id: id.to_owned(),
        }
    }
}

/// The entry a scope writes with its first committed change.
#[derive(Debug, Clone)]
pub struct Entry {
    pub organization_id: Option<String>,
    pub occurred_at: Timestamp,
    pub action: String,
    pub actor: Actor,
    pub source: Source,
    /// What the work names (for a request, its path's last parameter);
    /// without one, the actor itself.
    pub target: Option<Target>,
    /// The request or job attempt: one entry each.
    pub execution_id: String,
    pub payload: Map<String, Value>,
    /// The person an account event concerns (see the module's
    /// documentation).
    pub subject: Option<String>,
}

/// A unit of work done for someone, whose first committed change is
/// recorded.
#[derive(Debug)]
pub struct Scope {
    entry: Mutex<Entry>,
    recorded: AtomicBool,
    created: AtomicBool,
}

impl Scope {
    pub fn new(entry: Entry) -> Arc<Scope> {
        Arc::new(Scope {
            entry: Mutex::new(entry),
            recorded: AtomicBool::new(false),
            created: AtomicBool::new(false),
        })
    }

    /// Runs `work` inside this scope (tasks it spawns are outside it).
    pub async fn run<F: Future>(self: &Arc<Self>, work: F) -> F::Output {
        SCOPE.scope(self.clone(), work).await
    }

    /// Whether a change made inside the scope was recorded.
    pub fn recorded(&self) -> bool {
        self.recorded.load(Ordering::Acquire)
    }

    fn update(&self, change: impl FnOnce(&mut Entry)) {
        change(&mut self.entry.lock().unwrap_or_else(PoisonError::into_inner));
    }

    fn snapshot(&self) -> Entry {
        self.entry.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// Says who acts in the current scope (authentication learns it after the
/// scope began); nothing outside a scope.
pub fn acting(actor: Actor, source: Source) {
    let _ = SCOPE.try_with(|scope| {
        scope.update(|entry| {
            entry.actor = actor;
            entry.source = source;
        })
    });
}

/// Says what the current scope's change created (the repositories say so
/// when they insert the rows of what is made on request): the first such
/// becomes the entry's target, what the scope named before is kept in the
/// payload as `in`, and a new organization's log shows its creation.
pub fn created(kind: &str, id: &str) {
    let _ = SCOPE.try_with(|scope| {
        if scope.created.swap(true, Ordering::AcqRel) {
            return;
        }
        scope.update(|entry| {
            if kind == "organization" && entry.organization_id.is_none() {
                entry.organization_id = Some(id.to_owned());
            }
            if let Some(parent) = entry.target.replace(Target::new(kind, id)) {
                entry
                    .payload
                    .insert("in".into(), serde_json::json!({ "type": parent.kind, "id": parent.id }));
            }
        })
    });
}

/// Names the current scope's action more precisely than its route did
/// (`mcp merge` for a tool called through `POST /mcp`).
pub fn action(name: &str) {
    let _ = SCOPE.try_with(|scope| scope.update(|entry| entry.action = name.to_owned()));
}

/// Puts the current scope's entry in `organization_id`'s log, when its
/// route named no organization.
pub fn in_organization(organization_id: &str) {
    let _ = SCOPE.try_with(|scope| {
        scope.update(|entry| {
            entry.organization_id.get_or_insert_with(|| organization_id.to_owned());
        })
    });
}

/// Says which person the current scope's account event concerns (a
/// sign-in's account, a link's person).
pub fn subject(user_id: &str) {
    let _ = SCOPE.try_with(|scope| scope.update(|entry| entry.subject = Some(user_id.to_owned())));
}

/// Marks the current scope's entry as an attempt refused for `reason` (a
/// wrong password, a link that is gone), kept in its payload.
pub fn refused(reason: &str) {
    let _ = SCOPE.try_with(|scope| {
        scope.update(|entry| {
            entry.payload.insert("outcome".into(), Value::from("refused"));
            entry.payload.insert("reason".into(), Value::from(reason));
        })
    });
}

/// Says what the current scope's work concerns, when it named nothing yet
/// (a job, once its payload is read).
pub fn concerning(target: Target) {
    let _ = SCOPE.try_with(|scope| {
        scope.update(|entry| {
            entry.target.get_or_insert(target);
        })
    });
}

/// Writes the current scope's entry with the transaction about to commit,
/// unless it was written already; the scope to mark once the commit holds.
pub(crate) async fn write_pending(conn: &mut AnyConnection) -> StoreResult<Option<(Arc<Scope>, AuditRow)>> {
    let Ok(scope) = SCOPE.try_with(Arc::clone) else {
        return Ok(None);
    };
    if scope.recorded() {
        return Ok(None);
    }
    let entry = scope.snapshot();
    let target = entry
        .target
        .unwrap_or_else(|| Target::new(entry.actor.kind.as_str(), &entry.actor.id));
    let subject = entry.subject.or_else(|| {
        (entry.organization_id.is_none() && entry.actor.kind == ActorType::User).then(|| entry.actor.id.clone())
    });
    let row = AuditRow {
        id: quire_core::id::new_uuid(),
        subject,
        organization_id: entry.organization_id,
        occurred_at: entry.occurred_at,
        action: entry.action,
        actor: entry.actor,
        source: entry.source,
        target,
        execution_id: entry.execution_id,
        payload: Value::Object(entry.payload),
    };
    sqlx::query(
        "INSERT INTO audit_events (id, organization_id, occurred_at, action, actor_type, actor_id, \
         actor_label, source, target_type, target_id, execution_id, payload, subject_user_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (execution_id) DO NOTHING",
    )
    .bind(&row.id)
    .bind(row.organization_id.as_deref())
    .bind(row.occurred_at.0)
    .bind(&row.action)
    .bind(row.actor.kind.as_str())
    .bind(&row.actor.id)
    .bind(row.actor.label.as_deref())
    .bind(row.source.as_str())
    .bind(&row.target.kind)
    .bind(&row.target.id)
    .bind(&row.execution_id)
    .bind(row.payload.to_string())
    .bind(row.subject.as_deref())
    .execute(conn)
    .await?;
    Ok(Some((scope, row)))
}

/// Marks the scope's entry written, once its transaction committed.
pub(crate) fn committed(scope: &Scope) {
    scope.recorded.store(true, Ordering::Release);
}

/// What names the organization of a request that names no organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Space,
    Collection,
}

/// The organization of a space or collection (deleted ones too).
pub async fn organization_of(conn: &mut AnyConnection, owner: Owner, id: &str) -> StoreResult<Option<String>> {
    let sql = match owner {
        Owner::Space => "SELECT organization_id FROM spaces WHERE id = $1",
        Owner::Collection => "SELECT organization_id FROM collections WHERE id = $1",
    };
    Ok(sqlx::query_scalar(sql).bind(id).fetch_optional(conn).await?)
}

/// A recorded change.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow {
    pub id: String,
    pub organization_id: Option<String>,
    pub occurred_at: Timestamp,
    pub action: String,
    pub actor: Actor,
    pub source: Source,
    pub target: Target,
    pub execution_id: String,
    pub payload: Value,
    /// The person an account event concerns.
    pub subject: Option<String>,
}

impl AuditRow {
    /// The row as one line of the audit stream (`--audit-log-stream`).
    pub fn to_json_line(&self) -> String {
        serde_json::json!({
            "audit": {
                "id": self.id,
                "organizationId": self.organization_id,
                "occurredAt": self.occurred_at.0,
                "action": self.action,
                "actor": { "type": self.actor.kind.as_str(), "id": self.actor.id, "label": self.actor.label },
                "source": self.source.as_str(),
                "target": { "type": self.target.kind, "id": self.target.id },
                "executionId": self.execution_id,
                "subjectUserId": self.subject,
                "payload": self.payload,
            }
        })
        .to_string()
    }
}

const SELECT: &str = "SELECT id, organization_id, occurred_at, action, actor_type, actor_id, actor_label, source, \
                      target_type, target_id, execution_id, payload, subject_user_id FROM audit_events";

fn from_row(row: &sqlx::any::AnyRow) -> StoreResult<AuditRow> {
    let payload: String = row.try_get("payload")?;
    Ok(AuditRow {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        occurred_at: Timestamp(row.try_get("occurred_at")?),
        action: row.try_get("action")?,
        actor: Actor {
            kind: ActorType::parse(&row.try_get::<String, _>("actor_type")?)?,
            id: row.try_get("actor_id")?,
            label: row.try_get("actor_label")?,
        },
        source: Source::parse(&row.try_get::<String, _>("source")?)?,
        target: Target {
            kind: row.try_get("target_type")?,
            id: row.try_get("target_id")?,
        },
        execution_id: row.try_get("execution_id")?,
        payload: serde_json::from_str(&payload).map_err(|e| StoreError::Corrupt(format!("audit payload: {e}")))?,
        subject: row.try_get("subject_user_id")?,
    })
}

/// What a list of an organization's entries keeps (all exact matches).
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub from: Option<Timestamp>,
    pub to: Option<Timestamp>,
    pub action: Option<String>,
    pub actor: Option<String>,
    pub target: Option<String>,
}

/// The rows an organization's log shows: its own, and the account events
/// of its members.
fn push_organization(sql: &mut Sql, organization_id: &str) {
    sql.push(" WHERE (organization_id = ")
        .bind(organization_id.to_owned())
        .push(
            " OR (organization_id IS NULL AND subject_user_id IN (SELECT user_id FROM members WHERE organization_id = ",
        )
        .bind(organization_id.to_owned())
        .push(")))");
}

fn push_filter(sql: &mut Sql, organization_id: &str, filter: &AuditFilter) {
    push_organization(sql, organization_id);
    push_conditions(sql, filter);
}

fn push_conditions(sql: &mut Sql, filter: &AuditFilter) {
    if let Some(from) = filter.from {
        sql.push(" AND occurred_at >= ").bind(from.0);
    }
    if let Some(to) = filter.to {
        sql.push(" AND occurred_at <= ").bind(to.0);
    }
    if let Some(action) = &filter.action {
        sql.push(" AND action = ").bind(action.clone());
    }
    if let Some(actor) = &filter.actor {
        sql.push(" AND actor_id = ").bind(actor.clone());
    }
    if let Some(target) = &filter.target {
        sql.push(" AND target_id = ").bind(target.clone());
    }
}

/// A page of an organization's entries, newest first. The page carries no
/// total: the log only grows, and counting it on every read made each read
/// cost what the whole log costs (`count` is optional in the official list).
pub async fn list(
    conn: &mut AnyConnection,
    organization_id: &str,
    filter: &AuditFilter,
    page: &PageRequest,
) -> StoreResult<Page<AuditRow>> {
    let mut sql = Sql::new(SELECT);
    push_filter(&mut sql, organization_id, filter);
    newest_first(conn, sql, page).await
}

/// A page of the account events concerning a person, newest first.
pub async fn list_of_subject(
    conn: &mut AnyConnection,
    user_id: &str,
    filter: &AuditFilter,
    page: &PageRequest,
) -> StoreResult<Page<AuditRow>> {
    let mut sql = Sql::new(SELECT);
    sql.push(" WHERE subject_user_id = ").bind(user_id.to_owned());
    push_conditions(&mut sql, filter);
    newest_first(conn, sql, page).await
}

/// The page `page` asks for of the entries `sql` selects, newest first.
async fn newest_first(conn: &mut AnyConnection, mut sql: Sql, page: &PageRequest) -> StoreResult<Page<AuditRow>> {
    page.push_after(&mut sql, "occurred_at", "id");
    page.push_order_and_limit(&mut sql, "occurred_at", "id");
    let rows = sql.fetch_all(conn).await?;
    let rows = rows.iter().map(from_row).collect::<StoreResult<Vec<_>>>()?;
    Ok(page.finish(rows, None, |row| Keyset {
        key: SortKey::Int(row.occurred_at.0),
        id: row.id.clone(),
    }))
}

/// One of the account events concerning a person.
pub async fn get_of_subject(conn: &mut AnyConnection, user_id: &str, id: &str) -> StoreResult<AuditRow> {
    let mut sql = Sql::new(SELECT);
    sql.push(" WHERE subject_user_id = ")
        .bind(user_id.to_owned())
        .push(" AND id = ")
        .bind(id.to_owned());
    let rows = sql.fetch_all(conn).await?;
    rows.first().map(from_row).ok_or(StoreError::NotFound)?
}

/// One of an organization's entries (its members' account events too).
pub async fn get(conn: &mut AnyConnection, organization_id: &str, id: &str) -> StoreResult<AuditRow> {
    let mut sql = Sql::new(SELECT);
    push_organization(&mut sql, organization_id);
    sql.push(" AND id = ").bind(id.to_owned());
    let rows = sql.fetch_all(conn).await?;
    rows.first().map(from_row).ok_or(StoreError::NotFound)?
}

/// The actions recorded in an organization's log, in order.
pub async fn actions(conn: &mut AnyConnection, organization_id: &str) -> StoreResult<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT DISTINCT action FROM audit_events WHERE organization_id = $1 ORDER BY action")
            .bind(organization_id)
            .fetch_all(conn)
            .await?,
    )
}
