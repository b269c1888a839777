//! Rooms: everyone with a page of a change request open shares one Yjs
//! document (a page room); everyone in a space shares presence (a space
//! room, awareness only). Each node keeps the rooms its own connections
//! use. Between nodes the database carries everything: an edit is stored
//! as the next numbered update of its page and announced on the bus, and
//! every node holding the room reads what it has not seen; awareness
//! travels on the bus itself.
//!
//! One node at a time saves a page room (a lease in `collab_rooms`, held
//! while it has editors of the page): it writes the shared document into
//! the change request as a normal revision, only on top of the revision
//! the document agrees with (its base). When the change request moves on
//! under it (an API edit, a Git import, an update from the space), one of
//! its editors is asked to rebase the shared document onto the new
//! revision (the browser turns both revisions' pages into the editor's
//! form and applies the difference), and saving resumes after. The first
//! editor of a page fills the empty shared document the same way.
//!
//! A connection's rights are asked again while it is open, not only when
//! it was upgraded: every node rechecks its connections (the credential
//! still live, the person still allowed to read and to edit) when the bus
//! says a token was revoked or something changed (sign-out, a role, a
//! member removed), at once when nothing was rechecked in the last
//! half-second and at most twice a second per room otherwise, and every
//! [`RECHECK_EVERY`] anyway (expiry, a revocation by the command line
//! beside a SQLite server). A connection that lost its access is closed; one
//! that may no longer edit becomes read-only. Saves are made as the latest
//! editor, whose rights `write_shared_page` checks again. A person holds at
//! most [`MAX_SOCKETS_PER_PERSON`] sockets on a node, and each connection at
//! most [`MAX_CLIENTS_PER_CONNECTION`] awareness clients.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use base64::Engine as _;
use quire_app::change_requests::CoEditing;
use quire_app::sessions::Credential;
use quire_app::{App, Caller};
use quire_store::bus::Message as BusMessage;
use quire_store::collab;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use yrs::block::ClientID;
use yrs::sync::awareness::AwarenessUpdate;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, ReadTxn, StateVector, Transact, Update};

use crate::presence::{Person, Presence};
use crate::protocol::{self, Incoming};

/// How long the saver waits after the last edit before saving.
const SAVE_AFTER_QUIET: Duration = Duration::from_millis(300);
/// How long edits may go on unsaved while people keep typing.
const SAVE_AT_MOST_EVERY: Duration = Duration::from_secs(2);
/// The saver's lease, and how often it is renewed.
const LEASE: Duration = Duration::from_secs(10);
const RENEW_LEASE_EVERY: Duration = Duration::from_secs(3);
/// How long a room stays open after its last connection left (a reload or
/// a dropped network comes back within it).
const KEEP_IDLE_ROOM: Duration = Duration::from_secs(15);
/// How often a room looks at its saving without being woken.
const TICK: Duration = Duration::from_millis(250);
/// Updates stored before the saver folds them into one.
const FOLD_AFTER: i64 = 200;

/// Frames waiting to go out to one connection. A client that falls this
/// far behind is disconnected (its editor reconnects and syncs what it
/// lacks from the room), so a stalled reader cannot grow the server's
/// memory without bound.
const OUTGOING_FRAMES: usize = 4096;
/// How often every connection's rights are asked again without a reason.
pub const RECHECK_EVERY: Duration = Duration::from_secs(30);
/// How soon after the last recheck a room rechecks on a bus message (a
/// stream of changes costs each room at most this many rounds of queries).
const RECHECK_AT_MOST_EVERY: Duration = Duration::from_millis(500);
/// Sockets one person may hold open on a node (tabs, pages, a presence
/// socket each).
pub const MAX_SOCKETS_PER_PERSON: usize = 32;
/// Awareness clients one connection may publish (a browser publishes one
/// per shared document).
pub const MAX_CLIENTS_PER_CONNECTION: usize = 8;
const TOPIC_UPDATE: &str = "collab.update";
const TOPIC_AWARENESS: &str = "collab.awareness";
const TOPIC_BASE: &str = "collab.base";
const TOPIC_ENDED: &str = "collab.ended";

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum RoomKey {
    Page { change_request: String, page: String },
    Space(String),
}

impl RoomKey {
    fn name(&self) -> String {
        match self {
            RoomKey::Page { change_request, page } => format!("page:{change_request}:{page}"),
            RoomKey::Space(space) => format!("space:{space}"),
        }
    }

    fn parse(name: &str) -> Option<RoomKey> {
        let mut parts = name.split(':');
        match (parts.next()?, parts.next()?, parts.next()) {
            ("page", cr, Some(page)) => Some(RoomKey::Page {
                change_request: cr.to_owned(),
                page: page.to_owned(),
            }),
            ("space", space, None) => Some(RoomKey::Space(space.to_owned())),
            _ => None,
        }
    }
}

/// This node's rooms.
#[derive(Clone)]
pub struct Rooms {
    shared: Arc<Shared>,
}

struct Shared {
    /// This node's name in leases and bus messages.
    node: String,
    rooms: tokio::sync::Mutex<HashMap<RoomKey, Arc<Room>>>,
    listening: std::sync::Once,
    /// Open sockets by person.
    sockets: Mutex<HashMap<String, usize>>,
}

impl Default for Rooms {
    fn default() -> Self {
        Rooms {
            shared: Arc::new(Shared {
                node: quire_core::id::random_alphanumeric(12),
                rooms: tokio::sync::Mutex::default(),
                listening: std::sync::Once::new(),
                sockets: Mutex::default(),
            }),
        }
    }
}

/// A connection's place in a room.
pub struct Joined {
    pub room: Arc<Room>,
    pub id: u64,
    pub outgoing: mpsc::Receiver<Outgoing>,
}

/// What the room has for one connection.
#[derive(Debug)]
pub enum Outgoing {
    Frame(Vec<u8>),
    /// The connection ends: its access did (or it fell too far behind).
    Close(String),
}

/// One of a person's open sockets on this node, counted until dropped.
pub struct SocketPermit {
    rooms: Rooms,
    person: String,
}

impl Drop for SocketPermit {
    fn drop(&mut self) {
        let mut sockets = self.rooms.shared.sockets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = sockets.get_mut(&self.person) {
            *count -= 1;
            if *count == 0 {
                sockets.remove(&self.person);
            }
        }
    }
}

impl Rooms {
    /// Counts a new socket of `person`; `None` when they hold
    /// [`MAX_SOCKETS_PER_PERSON`] on this node already.
    pub fn admit(&self, person: &str) -> Option<SocketPermit> {
        let mut sockets = self.shared.sockets.lock().unwrap_or_else(|e| e.into_inner());
        let count = sockets.entry(person.to_owned()).or_default();
        if *count >= MAX_SOCKETS_PER_PERSON {
            return None;
        }
        *count += 1;
        Some(SocketPermit {
            rooms: self.clone(),
            person: person.to_owned(),
        })
    }

    /// Joins `key`'s room (opening it from the database if this node has no
    /// connection to it yet) and sends the newcomer the document's state
    /// vector, who is there and whether it may edit yet.
    pub async fn join(
        &self,
        app: &App,
        key: RoomKey,
        space_id: &str,
        caller: Caller,
        credential: Credential,
        may_edit: bool,
    ) -> anyhow::Result<Joined> {
        self.listen(app);
        let room = {
            let mut rooms = self.shared.rooms.lock().await;
            match rooms.get(&key) {
                Some(room) => room.clone(),
                None => {
                    let room = Arc::new(Room::open(app, key.clone(), space_id).await?);
                    rooms.insert(key.clone(), room.clone());
                    tokio::spawn(self.clone().run(app.clone(), room.clone()));
                    room
                }
            }
        };
        let (sender, outgoing) = mpsc::channel(OUTGOING_FRAMES);
        let id = room.connect(caller, credential, may_edit, sender);
        Ok(Joined { room, id, outgoing })
    }

    /// The room's own task: saving, the lease, and closing when idle.
    async fn run(self, app: App, room: Arc<Room>) {
        let mut renewed: Option<Instant> = None;
        // The last recheck: none yet, so the first one asked for runs at once.
        let mut rechecked = Instant::now()
            .checked_sub(RECHECK_AT_MOST_EVERY)
            .unwrap_or_else(Instant::now);
        // What the bus said while the room was being opened (before other
        // tasks could find it) is read from the database now.
        room.settle(&app).await;
        loop {
            tokio::select! {
                _ = room.wake.notified() => {}
                _ = tokio::time::sleep(TICK) => {}
            }
            let due = room.lock().recheck && rechecked.elapsed() >= RECHECK_AT_MOST_EVERY;
            if due || rechecked.elapsed() >= RECHECK_EVERY {
                rechecked = Instant::now();
                room.recheck(&app).await;
            }
            if let RoomKey::Page { .. } = room.key {
                if renewed.is_none_or(|at| at.elapsed() >= RENEW_LEASE_EVERY) {
                    renewed = Some(Instant::now());
                    room.lease(&app, &self.shared.node).await;
                    if room.lock().base.is_none() {
                        room.settle(&app).await;
                    }
                }
                room.tick(&app, &self.shared.node).await;
            }
            let mut rooms = self.shared.rooms.lock().await;
            if room.idle_for() >= Some(KEEP_IDLE_ROOM) && room.may_close() {
                rooms.remove(&room.key);
                drop(rooms);
                room.release(&app, &self.shared.node).await;
                return;
            }
        }
    }

    /// Starts following the bus (once per node).
    fn listen(&self, app: &App) {
        self.shared.listening.call_once(|| {
            let mut bus = app.db.bus().subscribe();
            let rooms = self.clone();
            let app = app.clone();
            tokio::spawn(async move {
                loop {
                    match bus.recv().await {
                        Ok(message) => rooms.heard(&app, message).await,
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                            rooms
                                .heard(
                                    &app,
                                    BusMessage {
                                        topic: BusMessage::RECONNECTED.into(),
                                        body: String::new(),
                                    },
                                )
                                .await
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                }
            });
        });
    }

    async fn heard(&self, app: &App, message: BusMessage) {
        let body: Value = serde_json::from_str(&message.body).unwrap_or(Value::Null);
        let room_named = |name: &str| RoomKey::parse(name);
        let rooms: Vec<Arc<Room>> = {
            let rooms = self.shared.rooms.lock().await;
            match message.topic.as_str() {
                TOPIC_UPDATE | TOPIC_AWARENESS | TOPIC_BASE | TOPIC_ENDED => body["room"]
                    .as_str()
                    .and_then(room_named)
                    .and_then(|key| rooms.get(&key).cloned())
                    .into_iter()
                    .collect(),
                quire_app::accounts::TOKEN_REVOKED | quire_app::changes::STATE_CHANGED => {
                    rooms.values().cloned().collect()
                }
                quire_engine::revisions::CHANGE_REQUEST_REVISION => rooms
                    .values()
                    .filter(|r| matches!(&r.key, RoomKey::Page { change_request, .. } if body["changeRequest"] == **change_request))
                    .cloned()
                    .collect(),
                BusMessage::RECONNECTED => rooms.values().cloned().collect(),
                _ => Vec::new(),
            }
        };
        let ours = body["node"].as_str() == Some(self.shared.node.as_str());
        for room in rooms {
            match message.topic.as_str() {
                TOPIC_UPDATE if body["seq"].as_i64().is_none_or(|seq| seq > room.lock().seen_seq) => {
                    room.catch_up(app).await
                }
                TOPIC_AWARENESS if !ours => {
                    if let Some(update) = body["update"].as_str().and_then(decode_awareness) {
                        room.remote_awareness(update);
                    }
                }
                TOPIC_BASE if !ours => room.remote_base(body["base"].as_str().map(str::to_owned), &body["saved"]),
                TOPIC_ENDED if !ours => room.end(body["status"].as_str().unwrap_or("closed")),
                quire_engine::revisions::CHANGE_REQUEST_REVISION => room.head_moved(),
                quire_app::accounts::TOKEN_REVOKED | quire_app::changes::STATE_CHANGED => room.recheck_soon(),
                BusMessage::RECONNECTED => {
                    room.catch_up(app).await;
                    room.head_moved();
                    room.recheck_soon();
                }
                _ => {}
            }
        }
    }

    pub fn node(&self) -> &str {
        &self.shared.node
    }
}

pub struct Room {
    key: RoomKey,
    space_id: String,
    doc: Doc,
    state: Mutex<State>,
    wake: Notify,
}

#[derive(Default)]
struct State {
    presence: Presence,
    connections: HashMap<u64, Connection>,
    next_connection: u64,
    /// The last stored update this node has applied.
    seen_seq: i64,
    /// Updates stored since the last fold.
    unfolded: i64,
    /// The revision whose page the document holds; `None` until seeded.
    base: Option<String>,
    /// Whether this node holds the saver's lease.
    saver: bool,
    rebase: Option<Rebase>,
    /// Whether the change request may have moved under the document.
    check_head: bool,
    dirty: Option<Dirty>,
    /// Who made the latest edit (saves are theirs).
    last_editor: Option<String>,
    callers: HashMap<String, Caller>,
    /// The last document saved (a save of the same document is skipped).
    saved: Option<Value>,
    idle_since: Option<Instant>,
    /// Saving failed: not again before this.
    hold_until: Option<Instant>,
    /// The change request's status once it was merged or closed under the
    /// room: nothing is saved any more.
    ended: Option<String>,
    /// Whether the connections' rights are to be asked again.
    recheck: bool,
}

struct Connection {
    sender: mpsc::Sender<Outgoing>,
    credential: Credential,
    may_edit: bool,
    person: Person,
    /// The awareness clients this connection announced.
    clients: HashSet<ClientID>,
}

impl Connection {
    /// Queues a frame for the client; a client with [`OUTGOING_FRAMES`]
    /// waiting loses its channel (its socket task sends what is queued,
    /// sees the channel closed and leaves the room).
    fn push(&mut self, frame: Vec<u8>) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.sender.try_send(Outgoing::Frame(frame)) {
            tracing::info!(person = %self.person.id, "co-editing: a client fell too far behind and is disconnected");
            self.sender = mpsc::channel(1).0;
        }
    }

    /// Ends the connection: its socket task sends what is queued, then
    /// closes with `reason`.
    fn close(&mut self, reason: &str) {
        let _ = self.sender.try_send(Outgoing::Close(reason.to_owned()));
        self.sender = mpsc::channel(1).0;
    }
}

struct Rebase {
    connection: u64,
    target: String,
}

#[derive(Clone, Copy)]
struct Dirty {
    since: Instant,
    last: Instant,
}

impl Room {
    async fn open(app: &App, key: RoomKey, space_id: &str) -> anyhow::Result<Room> {
        let room = Room {
            key,
            space_id: space_id.to_owned(),
            doc: Doc::new(),
            state: Mutex::default(),
            wake: Notify::new(),
        };
        if let Some((cr, page)) = room.page() {
            let mut conn = app.db.read().await?;
            let row = collab::ensure_room(&mut conn, cr, page, app.clock.now()).await?;
            drop(conn);
            {
                let mut state = room.lock();
                state.base = row.base_revision.clone();
                state.check_head = row.base_revision.is_some();
            }
            room.catch_up(app).await;
            let mut state = room.lock();
            // Updates stored after the last save (a node stopped before it
            // saved them) are saved by the next saver.
            if row.last_seq > row.saved_seq {
                let now = Instant::now();
                state.dirty = Some(Dirty { since: now, last: now });
            }
            state.unfolded = row.last_seq - row.saved_seq;
        }
        Ok(room)
    }

    fn page(&self) -> Option<(&str, &str)> {
        match &self.key {
            RoomKey::Page { change_request, page } => Some((change_request, page)),
            RoomKey::Space(_) => None,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn connect(&self, caller: Caller, credential: Credential, may_edit: bool, sender: mpsc::Sender<Outgoing>) -> u64 {
        let person = Person {
            id: caller.user.id.clone(),
            name: caller.user.display_name.clone(),
        };
        let mut state = self.lock();
        let id = state.next_connection;
        state.next_connection += 1;
        state.idle_since = None;
        if self.page().is_some() {
            let _ = sender.try_send(Outgoing::Frame(protocol::sync_step1(
                self.doc.transact().state_vector(),
            )));
            let _ = sender.try_send(Outgoing::Frame(protocol::custom(
                protocol::STATE,
                &state.view(may_edit),
            )));
        }
        let present = state.presence.full();
        if !present.clients.is_empty() {
            let _ = sender.try_send(Outgoing::Frame(protocol::awareness(present)));
        }
        state.callers.insert(caller.user.id.clone(), caller);
        state.connections.insert(
            id,
            Connection {
                sender,
                credential,
                may_edit,
                person,
                clients: HashSet::new(),
            },
        );
        drop(state);
        self.wake.notify_one();
        id
    }

    /// A connection closed: its people leave the room's presence.
    pub async fn leave(&self, app: &App, rooms: &Rooms, id: u64) {
        let gone = {
            let mut state = self.lock();
            let Some(connection) = state.connections.remove(&id) else {
                return;
            };
            if state.rebase.as_ref().is_some_and(|r| r.connection == id) {
                state.rebase = None;
            }
            if state.connections.is_empty() {
                state.idle_since = Some(Instant::now());
            }
            let gone = state.presence.remove(connection.clients);
            state.broadcast(None, &protocol::awareness(gone.clone()));
            gone
        };
        self.wake.notify_one();
        self.announce_awareness(app, rooms, gone).await;
    }

    /// Handles one message of connection `id`; an error closes it.
    pub async fn receive(&self, app: &App, rooms: &Rooms, id: u64, incoming: Incoming) -> Result<(), String> {
        match incoming {
            Incoming::SyncStep1(sv) => {
                let diff = self.doc.transact().encode_diff_v1(&sv);
                self.lock().send(id, protocol::sync_step2(diff));
            }
            Incoming::Update(bytes) => {
                let Some((cr, page)) = self.page() else {
                    return Ok(());
                };
                let user = {
                    let state = self.lock();
                    match state.connections.get(&id) {
                        Some(c)
                            if c.may_edit && state.base.is_some() && state.ended.is_none()
                                || state.rebase.as_ref().is_some_and(|r| r.connection == id) =>
                        {
                            c.person.id.clone()
                        }
                        // Readers' edits, and edits before the document is
                        // filled, are not taken (their editors are read-only).
                        _ => return Ok(()),
                    }
                };
                let update = Update::decode_v1(&bytes).map_err(|e| format!("not a Yjs update: {e}"))?;
                let changed = {
                    let mut txn = self.doc.transact_mut();
                    let before = txn.state_vector();
                    txn.apply_update(update)
                        .map_err(|e| format!("the update does not apply: {e}"))?;
                    txn.state_vector() != before
                };
                if !changed {
                    return Ok(());
                }
                {
                    let mut state = self.lock();
                    state.broadcast(Some(id), &protocol::update(bytes.clone()));
                    state.edited(&user);
                }
                self.wake.notify_one();
                let body = base64::engine::general_purpose::STANDARD.encode(&bytes);
                let seq = collab::append_update(&app.db, cr, page, &body, Some(&user), app.clock.now())
                    .await
                    .map_err(|e| format!("the update could not be stored: {e}"))?;
                {
                    let mut state = self.lock();
                    state.unfolded += 1;
                    // Applied already: the node need not read it back.
                    if seq == state.seen_seq + 1 {
                        state.seen_seq = seq;
                    }
                }
                let note = json!({ "room": self.key.name(), "seq": seq, "node": rooms.node() }).to_string();
                publish(app, TOPIC_UPDATE, &note).await;
            }
            Incoming::Awareness(update) => {
                let changed = {
                    let mut state = self.lock();
                    let State {
                        connections, presence, ..
                    } = &mut *state;
                    let Some(connection) = connections.get_mut(&id) else {
                        return Ok(());
                    };
                    let new = update
                        .clients
                        .keys()
                        .filter(|c| !connection.clients.contains(*c))
                        .count();
                    if connection.clients.len() + new > MAX_CLIENTS_PER_CONNECTION {
                        return Err(format!(
                            "a connection publishes at most {MAX_CLIENTS_PER_CONNECTION} awareness states"
                        ));
                    }
                    let person = connection.person.clone();
                    let changed = presence.apply(update, Some(&person));
                    for (client, entry) in &changed.clients {
                        if &*entry.json == "null" {
                            connection.clients.remove(client);
                        } else {
                            connection.clients.insert(*client);
                        }
                    }
                    if changed.clients.is_empty() {
                        return Ok(());
                    }
                    state.broadcast(None, &protocol::awareness(changed.clone()));
                    changed
                };
                self.announce_awareness(app, rooms, changed).await;
            }
            Incoming::AwarenessQuery => {
                let mut state = self.lock();
                let full = state.presence.full();
                state.send(id, protocol::awareness(full));
            }
            Incoming::Rebased(target) => {
                let done = {
                    let mut state = self.lock();
                    match &state.rebase {
                        Some(r) if r.connection == id && r.target == target => {
                            state.rebase = None;
                            if state.base.is_none() {
                                // Just filled (nobody could edit before): it
                                // is the revision's page, nothing to save
                                // until someone edits.
                                state.dirty = None;
                                let filled = clocks(&self.doc.transact().state_vector());
                                state.saved_clocks(&filled);
                            } else {
                                // Rebased onto what others wrote: the result
                                // holds edits not saved yet.
                                let now = Instant::now();
                                state.dirty = Some(Dirty { since: now, last: now });
                            }
                            state.base = Some(target.clone());
                            state.ready_changed();
                            true
                        }
                        _ => false,
                    }
                };
                tracing::debug!(%target, done, "co-editing: an editor rebased");
                if done {
                    self.base_moved(app, rooms.node(), &target, None).await;
                    self.wake.notify_one();
                }
            }
            Incoming::Other => {}
        }
        Ok(())
    }

    /// Asks for the connections' rights to be checked again soon.
    fn recheck_soon(&self) {
        self.lock().recheck = true;
        self.wake.notify_one();
    }

    /// Asks every connection's credential and rights again: closes those
    /// that lost access, makes read-only those that may no longer edit
    /// (and editors of those that may again).
    async fn recheck(&self, app: &App) {
        let connections: Vec<(u64, Credential, bool)> = {
            let mut state = self.lock();
            state.recheck = false;
            state
                .connections
                .iter()
                .map(|(id, c)| (*id, c.credential.clone(), c.may_edit))
                .collect()
        };
        // A person's tabs share a credential: asked once.
        let mut verdicts: HashMap<Credential, Option<(Caller, CoEditing)>> = HashMap::new();
        for (id, credential, may_edit) in connections {
            let verdict = match verdicts.get(&credential) {
                Some(verdict) => verdict.clone(),
                None => {
                    let verdict = match quire_app::sessions::caller_of(app, &credential).await {
                        Ok(Some(caller)) => match self.rights(app, &caller).await {
                            Ok(rights) => Some((caller, rights)),
                            Err(e) => {
                                tracing::warn!(error = %e, "co-editing: a connection's rights could not be read");
                                continue;
                            }
                        },
                        Ok(None) => None,
                        Err(e) => {
                            tracing::warn!(error = %e, "co-editing: a connection's credential could not be read");
                            continue;
                        }
                    };
                    verdicts.insert(credential, verdict.clone());
                    verdict
                }
            };
            if let Some((_, CoEditing::Ended(status))) = &verdict {
                self.end(&status.to_string());
                continue;
            }
            let mut state = self.lock();
            let reason = match verdict {
                None => "your sign-in ended",
                Some((_, CoEditing::Nothing)) => "you no longer have access to this",
                Some((caller, rights)) => {
                    let edit = rights == CoEditing::Edit;
                    state.callers.insert(caller.user.id.clone(), caller);
                    if edit != may_edit {
                        let view = state.view(edit);
                        if let Some(connection) = state.connections.get_mut(&id) {
                            connection.may_edit = edit;
                            connection.push(protocol::custom(protocol::STATE, &view));
                        }
                    }
                    continue;
                }
            };
            if let Some(connection) = state.connections.get_mut(&id) {
                tracing::info!(person = %connection.person.id, reason, "co-editing: a connection is closed");
                connection.close(reason);
            }
        }
    }

    /// What `caller` may do in this room now (in a space's room, at most
    /// read: it holds presence only).
    async fn rights(&self, app: &App, caller: &Caller) -> quire_app::AppResult<CoEditing> {
        match &self.key {
            RoomKey::Page { change_request, .. } => {
                quire_app::change_requests::co_editing_rights(app, caller, &self.space_id, change_request).await
            }
            RoomKey::Space(space) => match quire_app::spaces::get(app, caller, space, None).await {
                Ok(info) if info.permissions.access => Ok(CoEditing::Read),
                Ok(_) | Err(quire_app::AppError::NotFound(_) | quire_app::AppError::Forbidden(_)) => {
                    Ok(CoEditing::Nothing)
                }
                Err(e) => Err(e),
            },
        }
    }

    async fn announce_awareness(&self, app: &App, rooms: &Rooms, update: AwarenessUpdate) {
        if update.clients.is_empty() {
            return;
        }
        let encoded = base64::engine::general_purpose::STANDARD.encode(update.encode_v1());
        let note = json!({ "room": self.key.name(), "node": rooms.node(), "update": encoded }).to_string();
        if note.len() <= quire_store::bus::MAX_BODY {
            publish(app, TOPIC_AWARENESS, &note).await;
        }
    }

    fn remote_awareness(&self, update: AwarenessUpdate) {
        let mut state = self.lock();
        let changed = state.presence.apply(update, None);
        if !changed.clients.is_empty() {
            state.broadcast(None, &protocol::awareness(changed));
        }
    }

    fn remote_base(&self, base: Option<String>, saved: &Value) {
        let mut state = self.lock();
        if base.is_some() && state.base != base {
            state.base = base;
            state.ready_changed();
        }
        if saved.is_object() {
            state.saved_clocks(saved);
        }
    }

    /// Reads the document's base and the stored updates again when this
    /// node may have missed their announcement: a room opened while another
    /// node filled the document would otherwise wait for a base it was
    /// never told about (its editors never editable).
    async fn settle(&self, app: &App) {
        let Some((cr, page)) = self.page() else {
            return;
        };
        let unfilled = {
            let state = self.lock();
            state.base.is_none() && state.rebase.is_none()
        };
        if unfilled {
            let row = match app.db.read().await {
                Ok(mut conn) => collab::room(&mut conn, cr, page).await,
                Err(e) => Err(e),
            };
            match row {
                Ok(row) => {
                    if row.base_revision.is_some() {
                        self.remote_base(row.base_revision, &Value::Null);
                    }
                }
                Err(e) => tracing::warn!(error = %e, "co-editing: the document's base could not be read"),
            }
        }
        self.catch_up(app).await;
    }

    fn head_moved(&self) {
        self.lock().check_head = true;
        self.wake.notify_one();
    }

    /// Applies the stored updates this node has not seen, passing what is
    /// new to this node's connections.
    async fn catch_up(&self, app: &App) {
        let Some((cr, page)) = self.page() else {
            return;
        };
        let after = self.lock().seen_seq;
        let rows = match app.db.read().await {
            Ok(mut conn) => collab::updates_after(&mut conn, cr, page, after).await,
            Err(e) => Err(e),
        };
        let rows = match rows {
            Ok(rows) => rows,
            Err(e) => {
                tracing::warn!(error = %e, "co-editing: stored updates could not be read");
                return;
            }
        };
        if rows.is_empty() {
            return;
        }
        let mut state = self.lock();
        let before = self.doc.transact().state_vector();
        let mut editor = None;
        for row in rows {
            if row.seq <= state.seen_seq {
                continue;
            }
            state.seen_seq = row.seq;
            let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(&row.body) else {
                continue;
            };
            let Ok(update) = Update::decode_v1(&bytes) else {
                continue;
            };
            let mut txn = self.doc.transact_mut();
            if txn.apply_update(update).is_ok() {
                editor = row.user_id.or(editor);
            }
        }
        let txn = self.doc.transact();
        if txn.state_vector() != before {
            let diff = txn.encode_diff_v1(&before);
            drop(txn);
            state.broadcast(None, &protocol::update(diff));
            if let Some(editor) = editor {
                state.edited(&editor);
            }
            drop(state);
            self.wake.notify_one();
        }
    }

    /// Takes, renews or gives up the saver's lease.
    async fn lease(&self, app: &App, node: &str) {
        let Some((cr, page)) = self.page() else {
            return;
        };
        let editors = self.lock().connections.values().any(|c| c.may_edit);
        let now = app.clock.now();
        let result = match app.db.read().await {
            Ok(mut conn) if editors => {
                let until = quire_core::Timestamp(now.0 + LEASE.as_millis() as i64);
                collab::take_lease(&mut conn, cr, page, node, now, until).await
            }
            Ok(mut conn) => collab::release_lease(&mut conn, cr, page, node).await.map(|_| false),
            Err(e) => Err(e),
        };
        match result {
            Ok(saver) => {
                let mut state = self.lock();
                if saver && !state.saver {
                    state.check_head = true;
                }
                state.saver = saver;
            }
            Err(e) => tracing::warn!(error = %e, "co-editing: the saver's lease could not be renewed"),
        }
    }

    async fn release(&self, app: &App, node: &str) {
        if let Some((cr, page)) = self.page()
            && let Ok(mut conn) = app.db.read().await
        {
            let _ = collab::release_lease(&mut conn, cr, page, node).await;
        }
    }

    /// The saver's work: fill an empty document, follow the change request,
    /// save.
    async fn tick(&self, app: &App, node: &str) {
        let Some((cr, page)) = self.page() else {
            return;
        };
        let (base, check_head, due) = {
            let state = self.lock();
            if !state.saver || state.rebase.is_some() || state.ended.is_some() {
                if state.dirty.is_some() {
                    tracing::trace!(
                        saver = state.saver,
                        rebasing = state.rebase.is_some(),
                        "co-editing: edits wait"
                    );
                }
                return;
            }
            let due = state
                .dirty
                .is_some_and(|d| d.last.elapsed() >= SAVE_AFTER_QUIET || d.since.elapsed() >= SAVE_AT_MOST_EVERY)
                && state.hold_until.is_none_or(|t| Instant::now() >= t);
            (state.base.clone(), state.check_head, due)
        };
        if base.is_none() || check_head {
            self.lock().check_head = false;
            if let Err(e) = self.follow_head(app, node, cr, page, base.as_deref()).await {
                tracing::warn!(error = %e, "co-editing: the change request could not be read");
            }
        } else if due {
            self.save(app, node, cr, page).await;
        }
    }

    /// Compares the document's base with the change request's head: the
    /// same page (or the saver's own save) moves the base; another page
    /// asks an editor to rebase (or, with no base yet, to fill it).
    async fn follow_head(&self, app: &App, node: &str, cr: &str, page: &str, base: Option<&str>) -> anyhow::Result<()> {
        let mut conn = app.db.read().await?;
        let space = quire_store::spaces::get_any(&mut conn, &self.space_id).await?;
        let head = quire_store::change_requests::get(&mut conn, &self.space_id, cr)
            .await?
            .revision_id;
        drop(conn);
        if base == Some(head.as_str()) {
            return Ok(());
        }
        if let Some(base) = base {
            let before = quire_app::change_requests::page_document_hash(app, &space, base, page).await?;
            let after = quire_app::change_requests::page_document_hash(app, &space, &head, page).await?;
            if before == after {
                self.lock().base = Some(head.clone());
                self.base_moved(app, node, &head, None).await;
                return Ok(());
            }
        }
        let mut state = self.lock();
        let Some((&connection, _)) = state
            .connections
            .iter()
            .filter(|(_, c)| c.may_edit)
            .min_by_key(|(id, _)| **id)
        else {
            // Nobody here can rebase; the next editor will.
            state.check_head = true;
            return Ok(());
        };
        state.rebase = Some(Rebase {
            connection,
            target: head.clone(),
        });
        tracing::debug!(change_request = %cr, page = %page, ?base, target = %head, "co-editing: an editor is asked to rebase");
        state.send(
            connection,
            protocol::custom(protocol::REBASE, &json!({ "base": base, "target": head })),
        );
        Ok(())
    }

    async fn save(&self, app: &App, node: &str, cr: &str, page: &str) {
        let started = Instant::now();
        let (document, base, seq, editor, clocks) = {
            let state = self.lock();
            let Some(base) = state.base.clone() else {
                return;
            };
            let txn = self.doc.transact();
            let fragment = match txn.get_xml_fragment(crate::prosemirror::FRAGMENT) {
                Some(f) => f,
                None => return,
            };
            let doc = crate::prosemirror::doc(&txn, &fragment);
            let clocks = clocks(&txn.state_vector());
            (
                crate::document::from_editor(&doc),
                base,
                state.seen_seq,
                state.last_editor.clone(),
                clocks,
            )
        };
        if self.lock().saved.as_ref() == Some(&document) {
            let mut state = self.lock();
            state.saved_clean(started);
            state.saved_clocks(&clocks);
            return;
        }
        let Some(caller) = self.caller(app, editor.as_deref()).await else {
            self.lock().saved_clean(started);
            return;
        };
        let written = quire_app::change_requests::write_shared_page(
            app,
            &caller,
            &self.space_id,
            cr,
            page,
            &base,
            document.clone(),
        )
        .await;
        match written {
            Ok(Some(revision)) => {
                tracing::debug!(change_request = %cr, page = %page, %revision, "co-editing: saved");
                {
                    let mut state = self.lock();
                    state.base = Some(revision.clone());
                    state.saved = Some(document);
                    state.saved_clean(started);
                    state.saved_clocks(&clocks);
                }
                self.base_moved_saving(app, node, &revision, Some(seq), Some(&clocks))
                    .await;
                self.fold(app, cr, page, seq).await;
            }
            Ok(None) => {
                tracing::debug!(change_request = %cr, page = %page, %base, "co-editing: the change request moved on; following it first");
                self.lock().check_head = true
            }
            Err(e) => {
                if let Some(status) = self.ended(app, cr).await {
                    // Merged or closed while people were in it: nothing
                    // more can be saved; the editors (on every node) are
                    // told and made read-only.
                    self.end(&status);
                    let note = json!({ "room": self.key.name(), "status": status, "node": node }).to_string();
                    publish(app, TOPIC_ENDED, &note).await;
                    return;
                }
                tracing::warn!(error = %e, change_request = %cr, page = %page, "co-editing: the page could not be saved");
                self.lock().hold_until = Some(Instant::now() + Duration::from_secs(5));
            }
        }
    }

    /// Stops the room for good: the change request is `status`.
    fn end(&self, status: &str) {
        let mut state = self.lock();
        if state.ended.is_some() {
            return;
        }
        state.ended = Some(status.to_owned());
        state.dirty = None;
        state.broadcast(
            None,
            &protocol::custom(
                protocol::STATE,
                &json!({ "readOnly": true, "reason": format!("this change request is {status}") }),
            ),
        );
    }

    /// The change request's status when it is no longer open (merged,
    /// closed, archived).
    async fn ended(&self, app: &App, cr: &str) -> Option<String> {
        let mut conn = app.db.read().await.ok()?;
        let row = quire_store::change_requests::get(&mut conn, &self.space_id, cr)
            .await
            .ok()?;
        (!row.is_active()).then(|| row.status.to_string())
    }

    /// The caller a save is made as: the latest editor.
    async fn caller(&self, app: &App, user_id: Option<&str>) -> Option<Caller> {
        let user_id = user_id?;
        if let Some(caller) = self.lock().callers.get(user_id) {
            return Some(caller.clone());
        }
        let mut conn = app.db.read().await.ok()?;
        let user = quire_store::users::get(&mut conn, user_id).await.ok()?;
        let caller = Caller::with_token(user);
        self.lock().callers.insert(user_id.to_owned(), caller.clone());
        Some(caller)
    }

    /// Records and announces the document's new base.
    async fn base_moved(&self, app: &App, node: &str, revision: &str, saved_seq: Option<i64>) {
        self.base_moved_saving(app, node, revision, saved_seq, None).await;
    }

    /// Records and announces the document's new base, and what of each
    /// editor's edits it holds when it was saved (`{client: clock}`).
    async fn base_moved_saving(
        &self,
        app: &App,
        node: &str,
        revision: &str,
        saved_seq: Option<i64>,
        clocks: Option<&Value>,
    ) {
        let Some((cr, page)) = self.page() else {
            return;
        };
        let stored = match app.db.read().await {
            Ok(mut conn) => collab::set_base(&mut conn, cr, page, revision, saved_seq).await,
            Err(e) => Err(e),
        };
        if let Err(e) = stored {
            tracing::warn!(error = %e, "co-editing: the document's base could not be stored");
        }
        let note = json!({ "room": self.key.name(), "base": revision, "node": node, "saved": clocks }).to_string();
        if note.len() <= quire_store::bus::MAX_BODY {
            publish(app, TOPIC_BASE, &note).await;
        } else {
            let note = json!({ "room": self.key.name(), "base": revision, "node": node }).to_string();
            publish(app, TOPIC_BASE, &note).await;
        }
    }

    /// Folds the stored updates into one once there are many.
    async fn fold(&self, app: &App, cr: &str, page: &str, seq: i64) {
        if seq == 0 || self.lock().unfolded < FOLD_AFTER {
            return;
        }
        let state = self.doc.transact().encode_state_as_update_v1(&StateVector::default());
        let body = base64::engine::general_purpose::STANDARD.encode(state);
        let folded = match app.db.write().await {
            Ok(mut tx) => match collab::fold_updates(&mut tx, cr, page, seq, &body).await {
                Ok(()) => tx.commit().await,
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        match folded {
            Ok(()) => self.lock().unfolded = 0,
            Err(e) => tracing::warn!(error = %e, "co-editing: stored updates could not be folded"),
        }
    }

    fn idle_for(&self) -> Option<Duration> {
        self.lock().idle_since.map(|t| t.elapsed())
    }

    /// Whether closing loses nothing: every edit this node saves is saved
    /// (edits it cannot save stay stored for the next saver).
    fn may_close(&self) -> bool {
        let state = self.lock();
        state.connections.is_empty() && (!state.saver || state.dirty.is_none() || state.base.is_none())
    }
}

impl State {
    fn view(&self, may_edit: bool) -> Value {
        json!({ "ready": self.base.is_some(), "readOnly": !may_edit || self.ended.is_some() })
    }

    fn send(&mut self, id: u64, frame: Vec<u8>) {
        if let Some(c) = self.connections.get_mut(&id) {
            c.push(frame);
        }
    }

    fn broadcast(&mut self, except: Option<u64>, frame: &[u8]) {
        for (id, c) in &mut self.connections {
            if Some(*id) != except {
                c.push(frame.to_vec());
            }
        }
    }

    fn edited(&mut self, user: &str) {
        let now = Instant::now();
        self.dirty = Some(match self.dirty {
            Some(d) => Dirty {
                since: d.since,
                last: now,
            },
            None => Dirty { since: now, last: now },
        });
        self.last_editor = Some(user.to_owned());
    }

    /// A save that began at `started` holds every edit made before it.
    fn saved_clean(&mut self, started: Instant) {
        if self.dirty.is_some_and(|d| d.last <= started) {
            self.dirty = None;
        }
        self.hold_until = None;
    }

    /// Tells every connection what the last save holds: an editor whose own
    /// edits are all in it shows them saved.
    fn saved_clocks(&mut self, clocks: &Value) {
        self.broadcast(None, &protocol::custom(protocol::STATE, &json!({ "saved": clocks })));
    }

    fn ready_changed(&mut self) {
        let frames: Vec<(u64, Vec<u8>)> = self
            .connections
            .iter()
            .map(|(id, c)| (*id, protocol::custom(protocol::STATE, &self.view(c.may_edit))))
            .collect();
        for (id, frame) in frames {
            self.send(id, frame);
        }
    }
}

/// A state vector as `{client: clock}` (what a browser compares its own
/// clock with).
fn clocks(sv: &StateVector) -> Value {
    Value::Object(
        sv.iter()
            .map(|(client, clock)| (client.get().to_string(), json!(clock)))
            .collect(),
    )
}

fn decode_awareness(encoded: &str) -> Option<AwarenessUpdate> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
    AwarenessUpdate::decode_v1(&bytes).ok()
}

async fn publish(app: &App, topic: &str, body: &str) {
    let sent = match app.db.read().await {
        Ok(mut conn) => app.db.bus().publish(&mut conn, topic, body).await,
        Err(e) => Err(e),
    };
    if let Err(e) = sent {
        tracing::warn!(error = %e, topic, "co-editing: a bus message could not be sent");
    }
}
