//! Reading a revision into a [`Snapshot`] and writing a changed copy back
//! as new objects.

use std::collections::{HashMap, HashSet, VecDeque};

use imbl::HashMap as SharedMap;
use std::sync::Arc;

use quire_content::objects::{self, FileObject, NodeObject, RootObject};
use quire_content::tree::{FlatTree, PageMeta};
use quire_core::Timestamp;
use quire_store::content::{self, RevisionRow};
use quire_store::{Conn, StoreError};

use crate::{Engine, EngineError, EngineResult};

/// A revision, loaded: its pages as a flat tree, the object hash of every
/// page node, page timestamps and files.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub revision: RevisionRow,
    pub tree: FlatTree,
    pub node_hashes: SharedMap<String, String>,
    /// `(createdAt, updatedAt)` in Unix milliseconds, per page.
    pub stamps: SharedMap<String, (i64, i64)>,
    /// Files with their object hashes, in order.
    pub files: Vec<(String, FileObject)>,
}

impl Snapshot {
    /// Slug path of a page (`parent-slug/slug`).
    pub fn path_of(&self, id: &str) -> String {
        let mut parts = Vec::new();
        let mut current = Some(id.to_owned());
        while let Some(page) = current {
            let Some(p) = self.tree.pages.get(&page) else { break };
            parts.push(p.meta.slug.clone());
            current = p.parent.clone();
            if parts.len() > self.tree.pages.len() {
                break;
            }
        }
        parts.reverse();
        parts.join("/")
    }

    /// The page at a slug path.
    pub fn page_by_path(&self, path: &str) -> Option<String> {
        let mut parent: Option<String> = None;
        let mut found = None;
        for slug in path.trim_matches('/').split('/').filter(|s| !s.is_empty()) {
            let id = self
                .tree
                .children_of(parent.as_deref())
                .iter()
                .find(|id| self.tree.pages[*id].meta.slug == slug)?;
            found = Some(id.clone());
            parent = Some(id.clone());
        }
        found
    }

    pub fn file(&self, id: &str) -> Option<&FileObject> {
        self.files.iter().map(|(_, f)| f).find(|f| f.id == id)
    }
}

fn corrupt(what: &str, err: impl std::fmt::Display) -> EngineError {
    EngineError::Store(StoreError::Corrupt(format!("{what}: {err}")))
}

impl Engine {
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
            Err(StoreError::NotFound) => return Err(EngineError::NotFound("revision")),
            Err(err) => return Err(err.into()),
        };
        let snapshot = Arc::new(self.load(&mut conn, revision).await?);
        self.cache.snapshots.put(revision_id.to_owned(), snapshot.clone());
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
        for hash in &root.files {
            let file = self.file_object(conn, hash).await?;
            snapshot.files.push((hash.clone(), (*file).clone()));
        }
        Ok(snapshot)
    }

    /// Node objects for `hashes`, in the same order.
    async fn nodes(&self, conn: &mut Conn, hashes: &[String]) -> EngineResult<Vec<Arc<NodeObject>>> {
        let missing: Vec<String> = hashes
            .iter()
            .filter(|h| self.cache.nodes.get(h).is_none())
            .cloned()
            .collect();
        let mut fetched = HashMap::new();
        if !missing.is_empty() {
            for (hash, body) in content::get_objects(conn, &missing).await? {
                let node: NodeObject = serde_json::from_str(&body).map_err(|e| corrupt("page node", e))?;
                let node = Arc::new(node);
                self.cache.nodes.put(hash.clone(), node.clone());
                fetched.insert(hash, node);
            }
        }
        hashes
            .iter()
            .map(|h| {
                fetched
                    .get(h)
                    .cloned()
                    .or_else(|| self.cache.nodes.get(h))
                    .ok_or_else(|| corrupt("missing page node", h))
            })
            .collect()
    }

    async fn file_object(&self, conn: &mut Conn, hash: &str) -> EngineResult<Arc<FileObject>> {
        if let Some(file) = self.cache.files.get(&hash.to_owned()) {
            return Ok(file);
        }
        let found = content::get_objects(conn, &[hash.to_owned()]).await?;
        let (_, body) = found.first().ok_or_else(|| corrupt("missing file object", hash))?;
        let file: Arc<FileObject> = Arc::new(serde_json::from_str(body).map_err(|e| corrupt("file object", e))?);
        self.cache.files.put(hash.to_owned(), file.clone());
        Ok(file)
    }

    /// The markdown of a document object.
    pub async fn document(&self, hash: &str) -> EngineResult<Arc<str>> {
        if let Some(text) = self.cache.documents.get(&hash.to_owned()) {
            return Ok(text);
        }
        let mut conn = self.db.read().await?;
        let found = content::get_objects(&mut conn, &[hash.to_owned()]).await?;
        let (_, body) = found.first().ok_or_else(|| corrupt("missing document", hash))?;
        let text: Arc<str> = body.as_str().into();
        self.cache.documents.put(hash.to_owned(), text.clone());
        Ok(text)
    }

    pub(crate) fn remember(&self, snapshot: Snapshot) -> Arc<Snapshot> {
        let snapshot = Arc::new(snapshot);
        self.cache.snapshots.put(snapshot.revision.id.clone(), snapshot.clone());
        snapshot
    }
}

/// A snapshot being changed. Tracks which pages changed so that saving
/// writes only their nodes and their ancestors'.
pub(crate) struct Draft {
    pub(crate) tree: FlatTree,
    node_hashes: SharedMap<String, String>,
    pub(crate) stamps: SharedMap<String, (i64, i64)>,
    pub(crate) files: Vec<(String, FileObject)>,
    dirty: HashSet<String>,
    objects: Vec<(String, String)>,
    now: Timestamp,
}

impl Draft {
    pub(crate) fn new(base: &Snapshot, now: Timestamp) -> Draft {
        Draft {
            tree: base.tree.clone(),
            node_hashes: base.node_hashes.clone(),
            stamps: base.stamps.clone(),
            files: base.files.clone(),
            dirty: HashSet::new(),
            objects: Vec::new(),
            now,
        }
    }

    /// Marks `id` and its ancestors for rewriting (`None`: only the root).
    pub(crate) fn mark(&mut self, id: Option<&str>) {
        let mut current = id.map(str::to_owned);
        while let Some(page) = current {
            if !self.dirty.insert(page.clone()) {
                break;
            }
            current = self.tree.pages.get(&page).and_then(|p| p.parent.clone());
        }
    }

    /// Records a page's content or settings change.
    pub(crate) fn touch(&mut self, id: &str) {
        let now = self.now.0;
        self.stamps
            .entry(id.to_owned())
            .and_modify(|s| s.1 = now)
            .or_insert((now, now));
        self.mark(Some(id));
    }

    /// Stores a document and returns its hash.
    pub(crate) fn put_document(&mut self, markdown: &str) -> String {
        let hash = objects::object_hash(objects::DOCUMENT, markdown);
        self.objects.push((hash.clone(), markdown.to_owned()));
        hash
    }

    pub(crate) fn put_file(&mut self, file: FileObject) {
        let (hash, body) = objects::encode(objects::FILE, &file);
        self.objects.push((hash.clone(), body));
        self.files.push((hash, file));
    }

    pub(crate) fn set_meta(&mut self, id: &str, meta: PageMeta) {
        if let Some(page) = self.tree.pages.get_mut(id) {
            page.meta = meta;
        }
        self.touch(id);
    }

    fn encode_node(&mut self, id: &str) -> String {
        if !self.dirty.contains(id)
            && let Some(hash) = self.node_hashes.get(id)
        {
            return hash.clone();
        }
        let children: Vec<String> = self
            .tree
            .children_of(Some(id))
            .to_vec()
            .iter()
            .map(|c| self.encode_node(c))
            .collect();
        let (created_at, updated_at) = self.stamps.get(id).copied().unwrap_or((self.now.0, self.now.0));
        let node = NodeObject {
            id: id.to_owned(),
            meta: self.tree.pages[id].meta.clone(),
            children,
            created_at,
            updated_at,
        };
        let (hash, body) = objects::encode(objects::NODE, &node);
        self.objects.push((hash.clone(), body));
        self.node_hashes.insert(id.to_owned(), hash.clone());
        hash
    }

    /// Writes the new objects and the revision in `conn`'s transaction and
    /// returns the new snapshot.
    pub(crate) async fn save(mut self, conn: &mut Conn, revision: RevisionRow) -> EngineResult<Snapshot> {
        let top: Vec<String> = self.tree.children_of(None).to_vec();
        let pages = top.iter().map(|id| self.encode_node(id)).collect();
        let root = RootObject {
            pages,
            files: self.files.iter().map(|(h, _)| h.clone()).collect(),
        };
        let (root_hash, root_body) = objects::encode(objects::ROOT, &root);
        self.objects.push((root_hash.clone(), root_body));
        content::put_objects(conn, &self.objects).await?;
        let revision = RevisionRow {
            root: root_hash,
            ..revision
        };
        content::insert_revision(conn, &revision).await?;
        Ok(Snapshot {
            revision,
            tree: self.tree,
            node_hashes: self.node_hashes,
            stamps: self.stamps,
            files: self.files,
        })
    }
}
