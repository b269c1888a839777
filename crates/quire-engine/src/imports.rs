//! Whole content states written as one revision: what an import (Git,
//! a website, files) decided the space should hold — every page with its
//! place and document, the files and the reusable contents — committed on
//! top of the space's current revision. Only what differs from that
//! revision is written: an unchanged page keeps its node object (and its
//! timestamps), an unchanged file its object, a re-imported document the
//! same hash.

use std::sync::Arc;

use quire_content::objects::{FileObject, GitBlob, ReusableObject};
use quire_content::tree::{FlatPage, FlatTree, PageMeta};
use quire_core::Clock;
use quire_store::change_requests::ChangeRequestRow;
use quire_store::spaces::SpaceRow;

use crate::files::Files;
use crate::revisions::{Head, Indexing, Revisions};
use crate::snapshot::{Draft, Snapshot};
use crate::{EngineError, EngineResult};

/// A page of an imported state.
#[derive(Debug, Clone)]
pub struct ImportedPage {
    /// The page's id: the one it had (matched by the importer) or a new one.
    pub id: String,
    pub parent: Option<String>,
    /// The page's settings; `document` is kept unless `markdown` is given.
    pub meta: PageMeta,
    /// The document of a document page, when it is new text.
    pub markdown: Option<String>,
}

/// A file of an imported state.
#[derive(Debug, Clone)]
pub enum ImportedFile {
    /// A file the base revision has, kept as it is (or with a new Git blob).
    Kept(FileObject),
    /// New bytes, as a new file with this id.
    New {
        id: String,
        name: String,
        content_type: String,
        bytes: Vec<u8>,
        git: Option<GitBlob>,
    },
}

/// Reusable content of an imported state.
#[derive(Debug, Clone)]
pub struct ImportedReusable {
    pub id: String,
    pub title: String,
    pub markdown: String,
    pub git: Option<GitBlob>,
}

/// Everything a space holds after an import.
#[derive(Debug, Clone, Default)]
pub struct ImportedState {
    /// Pages in tree order (a parent before its children).
    pub pages: Vec<ImportedPage>,
    pub files: Vec<ImportedFile>,
    pub reusable: Vec<ImportedReusable>,
}

/// Where the new revision goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// It becomes the space's current revision (if that is still the base).
    Space,
    /// The same, its search index following later, by
    /// [`crate::search::catch_up`] (a Git import's pages).
    SpaceIndexedLater,
    /// It is only recorded (Git Sync's `standalone` imports).
    Standalone,
    /// It becomes the change request's head (if that is still the base).
    ChangeRequest(Box<ChangeRequestRow>),
}

pub struct Imports {
    revisions: Arc<Revisions>,
    files: Arc<Files>,
    clock: Arc<dyn Clock>,
}

impl Imports {
    pub(crate) fn new(revisions: Arc<Revisions>, files: Arc<Files>, clock: Arc<dyn Clock>) -> Imports {
        Imports {
            revisions,
            files,
            clock,
        }
    }

    /// Commits `state` on top of `base` (the space's current revision);
    /// `git` is the revision's Git commit (JSON), if it has one.
    pub async fn commit(
        &self,
        space: &SpaceRow,
        base: &Snapshot,
        state: ImportedState,
        user_id: &str,
        git: Option<String>,
        target: Target,
    ) -> EngineResult<Arc<Snapshot>> {
        let started = std::time::Instant::now();
        let mut draft = Draft::new(base, self.clock.now());
        let mut tree = FlatTree::default();
        for page in state.pages {
            if tree.pages.contains_key(&page.id) {
                return Err(EngineError::invalid(format!("page {:?} is imported twice", page.id)));
            }
            if let Some(parent) = &page.parent
                && !tree.pages.contains_key(parent)
            {
                return Err(EngineError::invalid(format!(
                    "page {:?} comes before its parent",
                    page.id
                )));
            }
            let mut meta = page.meta;
            if let Some(text) = &page.markdown {
                meta.document = Some(draft.put_document(text));
            }
            tree.push(&page.id, page.parent.as_deref(), meta);
        }
        // Rewrite what differs from the base: a page whose settings,
        // document or place changed is touched (a new `updatedAt`); one
        // whose children changed is only re-encoded.
        let ids: Vec<String> = tree.pages.keys().cloned().collect();
        draft.tree = tree;
        for id in &ids {
            let now = draft.tree.pages.get(id);
            let before: Option<&FlatPage> = base.tree.pages.get(id);
            if before != now {
                draft.touch(id);
            } else if base.tree.children_of(Some(id)) != draft.tree.children_of(Some(id)) {
                draft.mark(Some(id));
            }
        }
        let pages_done = started.elapsed();
        draft.files.clear();
        for file in state.files {
            match file {
                ImportedFile::Kept(object) => draft.put_file(object),
                ImportedFile::New {
                    id,
                    name,
                    content_type,
                    bytes,
                    git,
                } => {
                    let mut object = self.files.store(&name, bytes, content_type).await?;
                    object.id = id;
                    object.git = git;
                    draft.put_file(object);
                }
            }
        }
        let files_done = started.elapsed();
        draft.reusable.clear();
        for reusable in state.reusable {
            let document = draft.put_document(&reusable.markdown);
            draft.put_reusable(ReusableObject {
                id: reusable.id,
                title: reusable.title,
                document,
                git: reusable.git,
            });
        }
        let mut revision =
            self.revisions
                .new_revision(&space.id, vec![base.revision.id.clone()], user_id, "edits", None);
        revision.git = git;
        let updated = match &target {
            Target::ChangeRequest(cr) => Some(ChangeRequestRow {
                revision_id: revision.id.clone(),
                updated_at: self.clock.now(),
                ..(**cr).clone()
            }),
            _ => None,
        };
        let heads = match (&target, &updated) {
            (Target::Space, _) => vec![Head::Space {
                space_id: &space.id,
                base,
                indexing: Indexing::Now,
            }],
            (Target::SpaceIndexedLater, _) => vec![Head::Space {
                space_id: &space.id,
                base,
                indexing: Indexing::Later,
            }],
            (Target::ChangeRequest(cr), Some(updated)) => vec![Head::ChangeRequest {
                updated,
                expected: &cr.revision_id,
            }],
            _ => Vec::new(),
        };
        let committed = self.revisions.commit(draft, revision, &heads).await;
        tracing::debug!(
            pages_ms = pages_done.as_millis() as u64,
            files_ms = (files_done - pages_done).as_millis() as u64,
            commit_ms = (started.elapsed() - files_done).as_millis() as u64,
            "imported state committed"
        );
        committed
    }
}
