//! Revisions: loading them into [`Snapshot`]s (cached by id, with every
//! object cached by hash: neither ever changes) and committing new ones.
//! [`Revisions::commit`] is the one way a revision is written: new objects,
//! the revision row and the compare-and-set of the heads it moves, in one
//! transaction.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use imbl::HashMap as SharedMap;
use quire_content::objects::{FileObject, NodeObject, RootObject};
use quire_content::tree::FlatTree;
use quire_core::Clock;
use quire_core::events::EventType;
use quire_store::change_requests::{self, ChangeRequestRow};
use quire_store::content::{self, RevisionRow};
use quire_store::{Conn, Db, StoreError, webhooks};

use crate::cache::Caches;
use crate::snapshot::{Draft, Snapshot};
use crate::{EngineError, EngineResult};

/// The revision store of every space.
pub struct Revisions {
    pub(crate) db: Db,
    clock: Arc<dyn Clock>,
    pub(crate) cache: Caches,
}

impl Revisions {
    pub(crate) fn new(db: Db, clock: Arc<dyn Clock>, budget: quire_core::memory::CacheBudget) -> Revisions {
        Revisions {
            db,
            clock,
            cache: Caches::new(budget),
        }
    }
}

fn corrupt(what: &str, err: impl std::fmt::Display) -> EngineError {
    EngineError::Store(StoreError::Corrupt(format!("{what}: {err}")))
}

/// Structured objects for `hashes`, in the same order: from `cache`, the
/// others read in batches of 500 (and cached). What the cache held is
/// taken at once, never looked up again: an entry may be evicted at any
/// moment, so the cache is never asked twice for the same answer.
async fn cached_objects<T: serde::de::DeserializeOwned + Send + Sync + 'static>(
    conn: &mut Conn,
    hashes: &[String],
    cache: &moka::sync::Cache<String, Arc<T>>,
    what: &'static str,
) -> EngineResult<Vec<Arc<T>>> {
    let mut found: Vec<Option<Arc<T>>> = hashes.iter().map(|h| cache.get(h)).collect();
    let missing: Vec<String> = hashes
        .iter()
        .zip(&found)
        .filter(|(_, object)| object.is_none())
        .map(|(h, _)| h.clone())
        .collect();
    let mut fetched = HashMap::new();
    for chunk in missing.chunks(500) {
        for (hash, body) in content::get_objects(conn, chunk).await? {
            let object: Arc<T> = Arc::new(serde_json::from_str(&body).map_err(|e| corrupt(what, e))?);
            cache.insert(hash.clone(), object.clone());
            fetched.insert(hash, object);
        }
    }
    hashes
        .iter()
        .zip(found.iter_mut())
        .map(|(h, object)| {
            object
                .take()
                .or_else(|| fetched.get(h).cloned())
                .ok_or_else(|| corrupt(&format!("missing {what}"), h))
        })
        .collect()
}

impl Revisions {
    /// Loads a revision of a space (cached: revisions never change).
    pub async fn snapshot(&self, space_id: &str, revision_id: &str) -> EngineResult<Arc<Snapshot>> {
        if let Some(snapshot) = self.cache.snapshots.get(&revision_id.to_owned())
            && snapshot.revision.space_id == space_id
        {
            return Ok(snapshot);
        }
        let mut conn = self.db.read().await?;
        let revision = match content::get_revision(&mut conn, space_id, revision_id).await {
            Ok(rev) => rev,
            Err(StoreError::NotFound) => return Err(EngineError::not_found("revision", revision_id)),
            Err(err) => return Err(err.into()),
        };
        let snapshot = Arc::new(self.load(&mut conn, revision).await?);
        self.cache.snapshots.insert(revision_id.to_owned(), snapshot.clone());
        Ok(snapshot)
    }

    async fn load(&self, conn: &mut Conn, revision: RevisionRow) -> EngineResult<Snapshot> {
        let root_body = content::get_objects(conn, std::slice::from_ref(&revision.root)).await?;
        let (_, body) = root_body
            .first()
            .ok_or_else(|| corrupt("missing root object", &revision.root))?;
        let root: RootObject = serde_json::from_str(body).map_err(|e| corrupt("root object", e))?;

        let mut snapshot = Snapshot {
            revision,
            tree: FlatTree::default(),
            node_hashes: SharedMap::new(),
            stamps: SharedMap::new(),
            files: Vec::new(),
            reusable: Vec::new(),
            git_paths: Default::default(),
        };
        // Breadth first, one batch of object reads per level.
        let mut level: VecDeque<(Option<String>, String)> = root.pages.iter().map(|h| (None, h.clone())).collect();
        while !level.is_empty() {
            let hashes: Vec<String> = level.iter().map(|(_, h)| h.clone()).collect();
            let nodes = self.nodes(conn, &hashes).await?;
            let mut next = VecDeque::new();
            for ((parent, hash), node) in level.into_iter().zip(nodes) {
                snapshot.tree.push(&node.id, parent.as_deref(), node.meta.clone());
                snapshot.node_hashes.insert(node.id.clone(), hash);
                snapshot
                    .stamps
                    .insert(node.id.clone(), (node.created_at, node.updated_at));
                next.extend(node.children.iter().map(|c| (Some(node.id.clone()), c.clone())));
            }
            level = next;
        }
        for (hash, file) in root.files.iter().zip(self.file_objects(conn, &root.files).await?) {
            snapshot.files.push((hash.clone(), (*file).clone()));
        }
        if !root.reusable.is_empty() {
            for (hash, body) in content::get_objects(conn, &root.reusable).await? {
                let reusable = serde_json::from_str(&body).map_err(|e| corrupt("reusable content", e))?;
                snapshot.reusable.push((hash, reusable));
            }
            let order: HashMap<&String, usize> = root.reusable.iter().enumerate().map(|(i, h)| (h, i)).collect();
            snapshot.reusable.sort_by_key(|(h, _)| order.get(h).copied());
        }
        Ok(snapshot)
    }

    /// Node objects for `hashes`, in the same order.
    async fn nodes(&self, conn: &mut Conn, hashes: &[String]) -> EngineResult<Vec<Arc<NodeObject>>> {
        cached_objects(conn, hashes, &self.cache.nodes, "page node").await
    }

    /// File objects for `hashes`, in the same order.
    async fn file_objects(&self, conn: &mut Conn, hashes: &[String]) -> EngineResult<Vec<Arc<FileObject>>> {
        cached_objects(conn, hashes, &self.cache.files, "file object").await
    }

    /// The markdown of a document object.
    pub async fn document(&self, hash: &str) -> EngineResult<Arc<str>> {
        if let Some(text) = self.cache.documents.get(&hash.to_owned()) {
            return Ok(text);
        }
        let mut conn = self.db.read().await?;
        self.document_on(&mut conn, hash).await
    }

    /// The markdown of many documents, by hash (one read per 500 not cached).
    pub async fn documents(&self, hashes: &[String]) -> EngineResult<HashMap<String, Arc<str>>> {
        let mut out = HashMap::with_capacity(hashes.len());
        let mut missing = Vec::new();
        for hash in hashes {
            match self.cache.documents.get(hash) {
                Some(text) => {
                    out.insert(hash.clone(), text);
                }
                None => missing.push(hash.clone()),
            }
        }
        if !missing.is_empty() {
            let mut conn = self.db.read().await?;
            for chunk in missing.chunks(500) {
                for (hash, body) in content::get_objects(&mut conn, chunk).await? {
                    let text: Arc<str> = body.as_str().into();
                    self.cache.documents.insert(hash.clone(), text.clone());
                    out.insert(hash, text);
                }
            }
        }
        Ok(out)
    }

    pub(crate) async fn document_on(&self, conn: &mut Conn, hash: &str) -> EngineResult<Arc<str>> {
        if let Some(text) = self.cache.documents.get(&hash.to_owned()) {
            return Ok(text);
        }
        let found = content::get_objects(conn, &[hash.to_owned()]).await?;
        let (_, body) = found.first().ok_or_else(|| corrupt("missing document", hash))?;
        let text: Arc<str> = body.as_str().into();
        self.cache.documents.insert(hash.to_owned(), text.clone());
        Ok(text)
    }

    fn remember(&self, snapshot: Snapshot) -> Arc<Snapshot> {
        let snapshot = Arc::new(snapshot);
        self.cache
            .snapshots
            .insert(snapshot.revision.id.clone(), snapshot.clone());
        snapshot
    }

    /// A new revision row of the space for [`Revisions::commit`] to fill in
    /// (its root comes from the draft).
    pub(crate) fn new_revision(
        &self,
        space_id: &str,
        parents: Vec<String>,
        user_id: &str,
        kind: &str,
        merged_from: Option<String>,
    ) -> RevisionRow {
        RevisionRow {
            id: quire_core::id::new_id(),
            space_id: space_id.to_owned(),
            parents,
            root: String::new(),
            author_id: Some(user_id.to_owned()),
            kind: kind.to_owned(),
            merged_from,
            created_at: self.clock.now(),
            git: None,
        }
    }

    /// Records a new revision: writes the draft's new objects and the
    /// revision row, then moves every head in `heads` to it with a
    /// compare-and-set, all in one transaction. When another writer moved a
    /// head first, nothing is written and the caller gets a conflict to
    /// retry. This is the only place revisions are written.
    pub(crate) async fn commit(
        &self,
        draft: Draft,
        revision: RevisionRow,
        heads: &[Head<'_>],
    ) -> EngineResult<Arc<Snapshot>> {
        let started = std::time::Instant::now();
        let crate::snapshot::Finished {
            objects,
            documents,
            snapshot,
        } = draft.finish(revision);
        // The documents just written are what indexing reads next.
        for i in documents {
            let (hash, body) = &objects[i];
            self.cache.documents.insert(hash.clone(), body.as_str().into());
        }
        let encoded = started.elapsed();
        let new_id = snapshot.revision.id.clone();
        let mut tx = self.db.write().await?;
        content::put_objects(&mut tx, &objects).await?;
        let written = started.elapsed();
        content::insert_revision(&mut tx, &snapshot.revision).await?;
        for head in heads {
            let moved = match head {
                Head::Space { space_id, base, .. } => {
                    content::advance_space(&mut tx, space_id, &base.revision.id, &new_id, self.clock.now()).await?
                }
                Head::ChangeRequest { updated, expected } => {
                    change_requests::update_if_head(&mut tx, updated, expected).await?
                }
            };
            if !moved {
                return Err(EngineError::Conflict(head.moved_meanwhile().to_owned()));
            }
            head.emit(&mut tx, &snapshot.revision, self.clock.now()).await?;
            if let Head::Space {
                space_id,
                base,
                indexing,
            } = head
            {
                // The space's row is locked by the move: whether its index
                // lags is settled here and in `catch_up` alone.
                if quire_store::search::lagging(&mut tx, space_id).await?.is_some() {
                    // The catch-up to come indexes this revision too.
                } else if *indexing == Indexing::Later {
                    quire_store::search::set_lagging(&mut tx, space_id, &base.revision.id).await?;
                } else {
                    crate::search::follow(self, &mut tx, base, &snapshot).await?;
                }
            }
        }
        tx.commit().await?;
        self.announce(heads, &new_id).await;
        tracing::debug!(
            objects = objects.len(),
            encode_ms = encoded.as_millis() as u64,
            write_ms = (written - encoded).as_millis() as u64,
            index_ms = (started.elapsed() - written).as_millis() as u64,
            "revision committed"
        );
        Ok(self.remember(snapshot))
    }
}

/// The bus topic of a change request's content moving to a new revision
/// (body: `{"changeRequest": id, "revision": id}`); co-editing follows it.
pub const CHANGE_REQUEST_REVISION: &str = "change-request.revision";
/// The bus topic of a space's current revision moving (a merge, an edit of
/// the space itself, an import; body: `{"space": id, "revision": id}`);
/// published sites follow it.
pub const SPACE_REVISION: &str = "space.revision";

impl Revisions {
    /// Tells every node which spaces and change requests now stand at
    /// `revision`. A message that cannot leave is logged: it is a hint, and
    /// whoever follows one also reads again when the bus reconnects.
    async fn announce(&self, heads: &[Head<'_>], revision: &str) {
        for head in heads {
            let (topic, body) = match head {
                Head::ChangeRequest { updated, .. } => (
                    CHANGE_REQUEST_REVISION,
                    serde_json::json!({ "changeRequest": updated.id, "revision": revision }),
                ),
                Head::Space { space_id, .. } => (
                    SPACE_REVISION,
                    serde_json::json!({ "space": space_id, "revision": revision }),
                ),
            };
            // Published answers of this node must not outlive the write
            // that changed them: a space's revision is heard here at once.
            let sent = match self.db.read().await {
                Ok(mut conn) if topic == SPACE_REVISION => {
                    self.db.bus().announce(&mut conn, topic, &body.to_string()).await
                }
                Ok(mut conn) => self.db.bus().publish(&mut conn, topic, &body.to_string()).await,
                Err(e) => Err(e),
            };
            if let Err(e) = sent {
                tracing::warn!(error = %e, %topic, "could not announce a new revision");
            }
        }
    }
}

impl Head<'_> {
    /// The event of this head's move to `revision`, for webhooks, in the
    /// revision's transaction: a space's content updated, or a change
    /// request updated (merged, when the move is its merge).
    async fn emit(&self, conn: &mut Conn, revision: &RevisionRow, now: quire_core::Timestamp) -> EngineResult<()> {
        let updated_by: Vec<serde_json::Value> = revision
            .author_id
            .iter()
            .map(|id| serde_json::json!({ "object": "user", "id": id }))
            .collect();
        let (space_id, kind, data) = match self {
            Head::Space { space_id, .. } => (
                *space_id,
                EventType::SpaceContentUpdated,
                serde_json::json!({ "spaceId": space_id, "revisionId": revision.id, "updatedBy": updated_by }),
            ),
            Head::ChangeRequest { updated, .. } => (
                updated.space_id.as_str(),
                if updated.status == quire_core::ChangeRequestStatus::Merged {
                    EventType::ChangeRequestMerged
                } else {
                    EventType::ChangeRequestUpdated
                },
                quire_store::change_requests::event_data(updated, &updated_by),
            ),
        };
        webhooks::emit(conn, webhooks::Origin::Space(space_id), kind, data, now).await?;
        Ok(())
    }
}

/// When a space's search index follows a new revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indexing {
    /// In the revision's own transaction.
    Now,
    /// By [`crate::search::catch_up`], called after the commit (a Git
    /// import's thousands of pages leave its path; see migration 0020).
    Later,
}

/// A pointer that a new revision moves, with the value it must still have.
pub(crate) enum Head<'a> {
    /// The space's current revision, `base`, becomes the new one (and the
    /// search index follows from `base` to it, now or later).
    Space {
        space_id: &'a str,
        base: &'a Snapshot,
        indexing: Indexing,
    },
    /// The change request is rewritten as `updated` (which names the new
    /// revision where it should) if its head is still `expected`.
    ChangeRequest {
        updated: &'a ChangeRequestRow,
        expected: &'a str,
    },
}

impl Head<'_> {
    fn moved_meanwhile(&self) -> &'static str {
        match self {
            Head::Space { .. } => "the space's content changed meanwhile: read it again and retry",
            Head::ChangeRequest { .. } => "the change request changed meanwhile: read it again and retry",
        }
    }
}
