//! A revision as the engine works on it: the [`Snapshot`] (read model) and
//! the [`Draft`] an edit or a merge changes, which knows which objects it
//! must write. Both are pure; [`crate::revisions`] loads and commits them.

use std::collections::{BTreeSet, HashSet};

use imbl::HashMap as SharedMap;
use quire_content::objects::{self, FileObject, NodeObject, ReusableObject, RootObject};
use quire_content::tree::{FlatTree, PageMeta};
use quire_core::Timestamp;
use quire_store::content::RevisionRow;

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
    /// Reusable contents with their object hashes, in order.
    pub reusable: Vec<(String, ReusableObject)>,
    /// Pages, files and reusable contents by Git path, built when first
    /// asked for.
    pub(crate) git_paths: std::sync::OnceLock<std::collections::HashMap<String, GitTarget>>,
}

/// What a Git path of a revision is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitTarget {
    Page(String),
    File(String),
    Reusable(String),
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

    /// The Git-synced page whose file is at `path` as GitBook gives URLs
    /// (`guide/setup` for `guide/setup.md`, `guide` for `guide/README.md`),
    /// below whatever folder the repository keeps its docs in; `None` when
    /// no page or more than one matches.
    pub fn page_by_git_path(&self, path: &str) -> Option<String> {
        let path = path.trim_matches('/');
        if path.is_empty() {
            return None;
        }
        let wanted = [format!("{path}.md"), format!("{path}/README.md")];
        let mut found = self.tree.pages.iter().filter(|(_, page)| {
            page.meta.git.as_ref().is_some_and(|git| {
                wanted.iter().any(|w| {
                    git.path.eq_ignore_ascii_case(w)
                        || (git.path.len() > w.len()
                            && git.path.is_char_boundary(git.path.len() - w.len() - 1)
                            && git.path[git.path.len() - w.len() - 1..].eq_ignore_ascii_case(&format!("/{w}")))
                })
            })
        });
        let first = found.next()?;
        found.next().is_none().then(|| first.0.clone())
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

    /// The page, file or reusable content at a Git path of the revision.
    pub fn by_git_path(&self, path: &str) -> Option<&GitTarget> {
        self.git_paths
            .get_or_init(|| {
                let mut index = std::collections::HashMap::new();
                for (id, page) in &self.tree.pages {
                    if let Some(git) = &page.meta.git {
                        index.insert(git.path.clone(), GitTarget::Page(id.clone()));
                    }
                }
                for (_, file) in &self.files {
                    if let Some(git) = &file.git {
                        index.insert(git.path.clone(), GitTarget::File(file.id.clone()));
                    }
                }
                for (_, reusable) in &self.reusable {
                    if let Some(git) = &reusable.git {
                        index.insert(git.path.clone(), GitTarget::Reusable(reusable.id.clone()));
                    }
                }
                index
            })
            .get(path)
    }

    pub fn reusable_content(&self, id: &str) -> Option<&ReusableObject> {
        self.reusable.iter().map(|(_, r)| r).find(|r| r.id == id)
    }

    /// The reusable content a page's `{% include path %}` names: by id, or
    /// by its Git path relative to the page's own.
    pub fn included_by(&self, page: &str, path: &str) -> Option<&ReusableObject> {
        if let Some(found) = self.reusable_content(path) {
            return Some(found);
        }
        let from = self.tree.pages.get(page)?.meta.git.as_ref()?;
        let at = crate::links::relative_git_path(&from.path, path)?;
        match self.by_git_path(&at)? {
            GitTarget::Reusable(id) => self.reusable_content(id),
            _ => None,
        }
    }

    /// The pages that differ between this snapshot (the base) and `side`: added, removed, changed,
    /// moved, or with reordered children. A page whose node hash and parent are
    /// the same in both has an identical subtree, which is skipped, so the walk
    /// costs what the change costs, not what the tree holds.
    pub(crate) fn changed_pages(&self, side: &Snapshot) -> BTreeSet<String> {
        let base = self;
        let mut changed = BTreeSet::new();
        let mut parents: Vec<Option<String>> = vec![None];
        while let Some(parent) = parents.pop() {
            let mut seen = BTreeSet::new();
            for id in side
                .tree
                .children_of(parent.as_deref())
                .iter()
                .chain(base.tree.children_of(parent.as_deref()))
            {
                if !seen.insert(id.clone()) {
                    continue;
                }
                let (b, s) = (base.tree.pages.get(id), side.tree.pages.get(id));
                let same_node = b.is_some() && s.is_some() && base.node_hashes.get(id) == side.node_hashes.get(id);
                let same_place = b.map(|p| &p.parent) == s.map(|p| &p.parent);
                if same_node && same_place {
                    continue;
                }
                changed.insert(id.clone());
                if !same_node {
                    parents.push(Some(id.clone()));
                }
            }
        }
        changed
    }
}

/// A snapshot being changed. Tracks which pages changed so that saving
/// writes only their nodes and their ancestors'.
pub(crate) struct Draft {
    pub(crate) tree: FlatTree,
    node_hashes: SharedMap<String, String>,
    pub(crate) stamps: SharedMap<String, (i64, i64)>,
    pub(crate) files: Vec<(String, FileObject)>,
    pub(crate) reusable: Vec<(String, ReusableObject)>,
    dirty: HashSet<String>,
    objects: Vec<(String, String)>,
    /// Positions in `objects` of the documents written.
    documents: Vec<usize>,
    now: Timestamp,
}

/// What a finished draft writes: the new objects (hash, body), which of
/// them are documents (positions), and the revision's snapshot.
pub(crate) struct Finished {
    pub objects: Vec<(String, String)>,
    pub documents: Vec<usize>,
    pub snapshot: Snapshot,
}

impl Draft {
    pub(crate) fn new(base: &Snapshot, now: Timestamp) -> Draft {
        Draft {
            tree: base.tree.clone(),
            node_hashes: base.node_hashes.clone(),
            stamps: base.stamps.clone(),
            files: base.files.clone(),
            reusable: base.reusable.clone(),
            dirty: HashSet::new(),
            objects: Vec::new(),
            documents: Vec::new(),
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
        self.documents.push(self.objects.len());
        self.objects.push((hash.clone(), markdown.to_owned()));
        hash
    }

    pub(crate) fn put_file(&mut self, file: FileObject) {
        let (hash, body) = objects::encode(objects::FILE, &file);
        self.objects.push((hash.clone(), body));
        self.files.push((hash, file));
    }

    /// Adds a reusable content (its document must be stored with
    /// [`Draft::put_document`]).
    pub(crate) fn put_reusable(&mut self, reusable: ReusableObject) {
        let (hash, body) = objects::encode(objects::REUSABLE, &reusable);
        self.objects.push((hash.clone(), body));
        self.reusable.push((hash, reusable));
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

    /// Encodes what changed into new objects and returns them (hash, body)
    /// with the snapshot of the finished revision (its root filled in).
    pub(crate) fn finish(mut self, revision: RevisionRow) -> Finished {
        let top: Vec<String> = self.tree.children_of(None).to_vec();
        let pages = top.iter().map(|id| self.encode_node(id)).collect();
        let root = RootObject {
            pages,
            files: self.files.iter().map(|(h, _)| h.clone()).collect(),
            reusable: self.reusable.iter().map(|(h, _)| h.clone()).collect(),
        };
        let (root_hash, root_body) = objects::encode(objects::ROOT, &root);
        self.objects.push((root_hash.clone(), root_body));
        let snapshot = Snapshot {
            revision: RevisionRow {
                root: root_hash,
                ..revision
            },
            tree: self.tree,
            node_hashes: self.node_hashes,
            stamps: self.stamps,
            files: self.files,
            reusable: self.reusable,
            git_paths: Default::default(),
        };
        Finished {
            objects: self.objects,
            documents: self.documents,
            snapshot,
        }
    }
}
