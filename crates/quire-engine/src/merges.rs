//! Merging a change request into its space, and updating a change request
//! from its space: both are three-way merges whose result is a revision with
//! two parents. When both sides changed the same lines of a page, the
//! update can be told how to settle it ([`Resolution`]: keep the change
//! request's text, the space's, or a text the writer wrote), after reading
//! the three versions ([`Merges::conflicts`]).

use std::collections::HashMap;
use std::sync::Arc;

use quire_content::merge::{self, Conflict};
use quire_content::objects::ReusableObject;
use quire_core::{ChangeRequestStatus, Clock};
use quire_store::change_requests::ChangeRequestRow;
use quire_store::spaces::SpaceRow;

use crate::revisions::{Head, Indexing, Revisions};
use crate::snapshot::{Draft, Snapshot};
use crate::{EngineError, EngineResult};

/// How a writer settles a page whose texts do not merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The change request's text.
    Mine,
    /// The space's text.
    Theirs,
    /// A text the writer made (markdown).
    Markdown(String),
}

/// A page that does not merge: why, and (for a text conflict) the text it
/// started from and both sides' texts, as markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageConflict {
    pub page: String,
    pub title: String,
    pub reason: String,
    /// Whether a [`Resolution`] settles it (both sides edited the text);
    /// other conflicts (a page moved or deleted on one side and changed on
    /// the other) are settled by editing the change request.
    pub resolvable: bool,
    pub base: String,
    pub mine: String,
    pub theirs: String,
}

/// Times a merge runs again when the space moved while it merged.
const MERGE_ATTEMPTS: usize = 5;

/// Merges change requests into their space and updates them from it.
pub struct Merges {
    revisions: Arc<Revisions>,
    clock: Arc<dyn Clock>,
}

/// The outcome of a merge or an update.
#[derive(Debug, Clone)]
pub struct MergeResult {
    pub revision: String,
    pub change_request: ChangeRequestRow,
}

impl Merges {
    pub(crate) fn new(revisions: Arc<Revisions>, clock: Arc<dyn Clock>) -> Merges {
        Merges { revisions, clock }
    }

    /// Merges `ours` and `theirs` (descendants of `base`) into a draft that
    /// starts from `ours`, so only what differs from it is rewritten.
    /// `resolutions` settle pages whose texts do not merge (`Mine` is
    /// `ours`).
    async fn merge_snapshots(
        &self,
        base: &Snapshot,
        ours: &Snapshot,
        theirs: &Snapshot,
        resolutions: &HashMap<String, Resolution>,
    ) -> EngineResult<Draft> {
        let mut candidates = base.changed_pages(ours);
        candidates.extend(base.changed_pages(theirs));
        let merged = merge::merge_pages(&base.tree, &ours.tree, &theirs.tree, &candidates).map_err(conflicts)?;
        let mut draft = Draft::new(ours, self.clock.now());
        let mut text_conflicts = Vec::new();
        let mut merged_texts = HashMap::new();
        for text in &merged.text_merges {
            let (base_text, o, t) = self.texts(text).await?;
            let settled = match resolutions.get(&text.page) {
                Some(Resolution::Mine) => Some(o.clone()),
                Some(Resolution::Theirs) => Some(t.clone()),
                Some(Resolution::Markdown(markdown)) => Some(markdown.clone()),
                None => merge::merge_text(&base_text, &o, &t),
            };
            match settled {
                Some(result) => {
                    merged_texts.insert(text.page.clone(), result);
                }
                None => text_conflicts.push(text_conflict(&merged.tree, &text.page)),
            }
        }
        if !text_conflicts.is_empty() {
            return Err(conflicts(text_conflicts));
        }

        // Rewrite the pages whose state or children differ from ours (and,
        // through `mark`, their ancestors in the merged tree).
        let mut changed: Vec<Option<String>> = Vec::new();
        for id in &candidates {
            match merged.tree.pages.get(id) {
                Some(page) => {
                    let same_page = ours.tree.pages.get(id) == Some(page);
                    let same_children = ours.tree.children_of(Some(id)) == merged.tree.children_of(Some(id));
                    if !same_page || !same_children || merged_texts.contains_key(id) {
                        if theirs.tree.pages.get(id) == Some(page)
                            && let Some(stamps) = theirs.stamps.get(id)
                        {
                            draft.stamps.insert(id.clone(), *stamps);
                        }
                        changed.push(Some(id.clone()));
                    }
                }
                None => {
                    if let Some(page) = ours.tree.pages.get(id) {
                        changed.push(page.parent.clone().filter(|p| merged.tree.pages.contains_key(p)));
                    }
                }
            }
        }
        draft.tree = merged.tree;
        for id in changed {
            draft.mark(id.as_deref());
        }
        for (id, text) in merged_texts {
            let hash = draft.put_document(&text);
            let mut meta = draft.tree.pages[&id].meta.clone();
            meta.document = Some(hash);
            draft.set_meta(&id, meta);
        }
        // Files are immutable: the merge holds every file of either side.
        for (hash, file) in &theirs.files {
            if !draft.files.iter().any(|(h, _)| h == hash) {
                draft.files.push((hash.clone(), file.clone()));
            }
        }
        draft.reusable = merge_reusable(base, ours, theirs)?;
        Ok(draft)
    }

    /// Merges the change request into the space's current content.
    pub async fn merge(&self, space: &SpaceRow, cr: &ChangeRequestRow, user_id: &str) -> EngineResult<MergeResult> {
        if !cr.is_active() {
            return Err(EngineError::conflict(format!(
                "this change request is {} and cannot be merged",
                cr.status
            )));
        }
        // Another merge (or edit) of the space that lands between reading
        // its head and committing is merged with too: the three-way merge
        // runs again on the new head, a few times at most.
        let mut space = space.clone();
        let mut attempts = 0;
        loop {
            match self.merge_once(&space, cr, user_id).await {
                Err(EngineError::Conflict(message)) if attempts < MERGE_ATTEMPTS => {
                    let mut conn = self.revisions.db.read().await?;
                    let now = quire_store::spaces::get_any(&mut conn, &space.id).await?;
                    if now.revision_id == space.revision_id {
                        return Err(EngineError::Conflict(message));
                    }
                    space = now;
                    attempts += 1;
                }
                done => return done,
            }
        }
    }

    async fn merge_once(&self, space: &SpaceRow, cr: &ChangeRequestRow, user_id: &str) -> EngineResult<MergeResult> {
        let main_id = space.revision_id.clone();
        let base = self.revisions.snapshot(&space.id, &cr.revision_merged_ancestor).await?;
        let main = self.revisions.snapshot(&space.id, &main_id).await?;
        let head = self.revisions.snapshot(&space.id, &cr.revision_id).await?;
        let draft = self.merge_snapshots(&base, &main, &head, &HashMap::new()).await?;

        let now = self.clock.now();
        let parents = vec![main_id.clone(), cr.revision_id.clone()];
        let revision = self
            .revisions
            .new_revision(&space.id, parents, user_id, "merge", Some(cr.id.clone()));
        let merged = ChangeRequestRow {
            status: ChangeRequestStatus::Merged,
            updated_at: now,
            revision_merged: Some(revision.id.clone()),
            merged_by: Some(user_id.to_owned()),
            merged_at: Some(now),
            ..cr.clone()
        };
        let heads = [
            Head::Space {
                space_id: &space.id,
                base: &main,
                indexing: Indexing::Now,
            },
            Head::ChangeRequest {
                updated: &merged,
                expected: &cr.revision_id,
            },
        ];
        let snapshot = self.revisions.commit(draft, revision, &heads).await?;
        Ok(MergeResult {
            revision: snapshot.revision.id.clone(),
            change_request: merged,
        })
    }

    /// Merges `theirs` (a revision of the space, such as a Git remote's
    /// content) into the space's current content, `base` being what both
    /// started from. A conflict is an error naming the pages.
    pub async fn merge_revision(
        &self,
        space: &SpaceRow,
        base: &str,
        theirs: &str,
        user_id: &str,
    ) -> EngineResult<Arc<Snapshot>> {
        let base = self.revisions.snapshot(&space.id, base).await?;
        let main = self.revisions.snapshot(&space.id, &space.revision_id).await?;
        let theirs = self.revisions.snapshot(&space.id, theirs).await?;
        let draft = self.merge_snapshots(&base, &main, &theirs, &HashMap::new()).await?;
        let parents = vec![main.revision.id.clone(), theirs.revision.id.clone()];
        let mut revision = self.revisions.new_revision(&space.id, parents, user_id, "edits", None);
        revision.git = theirs.revision.git.clone();
        let head = Head::Space {
            space_id: &space.id,
            base: &main,
            indexing: Indexing::Now,
        };
        self.revisions.commit(draft, revision, &[head]).await
    }

    /// The three texts of a page both sides changed: base, ours, theirs.
    async fn texts(&self, text: &merge::TextMerge) -> EngineResult<(String, String, String)> {
        let base = match &text.base {
            Some(hash) => self.revisions.document(hash).await?.to_string(),
            None => String::new(),
        };
        Ok((
            base,
            self.revisions.document(&text.ours).await?.to_string(),
            self.revisions.document(&text.theirs).await?.to_string(),
        ))
    }

    /// The pages that keep the change request from being brought up to
    /// date with the space (and so from merging), with their texts; empty
    /// when it merges cleanly.
    pub async fn conflicts(&self, space: &SpaceRow, cr: &ChangeRequestRow) -> EngineResult<Vec<PageConflict>> {
        if space.revision_id == cr.revision_merged_ancestor {
            return Ok(Vec::new());
        }
        let base = self.revisions.snapshot(&space.id, &cr.revision_merged_ancestor).await?;
        let head = self.revisions.snapshot(&space.id, &cr.revision_id).await?;
        let main = self.revisions.snapshot(&space.id, &space.revision_id).await?;
        let mut candidates = base.changed_pages(&head);
        candidates.extend(base.changed_pages(&main));
        let merged = match merge::merge_pages(&base.tree, &head.tree, &main.tree, &candidates) {
            Ok(merged) => merged,
            Err(tree) => {
                return Ok(tree
                    .into_iter()
                    .map(|c| PageConflict {
                        page: c.page,
                        title: c.title,
                        reason: c.reason,
                        resolvable: false,
                        base: String::new(),
                        mine: String::new(),
                        theirs: String::new(),
                    })
                    .collect());
            }
        };
        let mut out = Vec::new();
        for text in &merged.text_merges {
            let (b, mine, theirs) = self.texts(text).await?;
            if merge::merge_text(&b, &mine, &theirs).is_none() {
                let Conflict { page, title, reason } = text_conflict(&merged.tree, &text.page);
                out.push(PageConflict {
                    page,
                    title,
                    reason,
                    resolvable: true,
                    base: b,
                    mine,
                    theirs,
                });
            }
        }
        Ok(out)
    }

    /// Brings the change request up to date with the space's current content.
    pub async fn update(&self, space: &SpaceRow, cr: &ChangeRequestRow, user_id: &str) -> EngineResult<MergeResult> {
        self.update_resolving(space, cr, user_id, &HashMap::new()).await
    }

    /// [`Merges::update`], settling the pages `resolutions` name.
    pub async fn update_resolving(
        &self,
        space: &SpaceRow,
        cr: &ChangeRequestRow,
        user_id: &str,
        resolutions: &HashMap<String, Resolution>,
    ) -> EngineResult<MergeResult> {
        if !cr.is_active() {
            return Err(EngineError::conflict(format!(
                "this change request is {} and cannot be updated",
                cr.status
            )));
        }
        let main_id = space.revision_id.clone();
        if main_id == cr.revision_merged_ancestor {
            return Ok(MergeResult {
                revision: cr.revision_id.clone(),
                change_request: cr.clone(),
            });
        }
        let base = self.revisions.snapshot(&space.id, &cr.revision_merged_ancestor).await?;
        let head = self.revisions.snapshot(&space.id, &cr.revision_id).await?;
        let main = self.revisions.snapshot(&space.id, &main_id).await?;
        let draft = self.merge_snapshots(&base, &head, &main, resolutions).await?;

        let parents = vec![cr.revision_id.clone(), main_id.clone()];
        let revision = self.revisions.new_revision(&space.id, parents, user_id, "update", None);
        let updated = ChangeRequestRow {
            revision_id: revision.id.clone(),
            revision_merged_ancestor: main_id,
            updated_at: self.clock.now(),
            ..cr.clone()
        };
        let head = Head::ChangeRequest {
            updated: &updated,
            expected: &cr.revision_id,
        };
        let snapshot = self.revisions.commit(draft, revision, &[head]).await?;
        Ok(MergeResult {
            revision: snapshot.revision.id.clone(),
            change_request: updated,
        })
    }
}

/// A page whose texts do not merge, named by its title in the merged tree.
fn text_conflict(tree: &quire_content::tree::FlatTree, page: &str) -> Conflict {
    Conflict {
        page: page.to_owned(),
        title: tree.pages.get(page).map(|p| p.meta.title.clone()).unwrap_or_default(),
        reason: "the same lines of the document changed on both sides".into(),
    }
}

/// The refusal of a merge or update, naming every conflicting page by title
/// and id with the reason.
fn conflicts(pages: Vec<Conflict>) -> EngineError {
    let names: Vec<String> = pages
        .iter()
        .map(|c| format!("\"{}\" (page {}): {}", c.title, c.page, c.reason))
        .collect();
    let noun = if pages.len() == 1 { "page" } else { "pages" };
    EngineError::Conflict(format!(
        "merge conflict in {} {noun}: {}",
        pages.len(),
        names.join("; ")
    ))
}

/// The reusable contents of a merge, by id: a side's change (or removal)
/// wins over the base; the same one changed differently on both sides is a
/// conflict.
fn merge_reusable(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> EngineResult<Vec<(String, ReusableObject)>> {
    let find = |s: &Snapshot, id: &str| s.reusable.iter().find(|(_, r)| r.id == id).cloned();
    let mut ids: Vec<&str> = ours.reusable.iter().map(|(_, r)| r.id.as_str()).collect();
    ids.extend(
        theirs
            .reusable
            .iter()
            .map(|(_, r)| r.id.as_str())
            .filter(|id| !ours.reusable.iter().any(|(_, r)| r.id == *id)),
    );
    let mut out = Vec::new();
    for id in ids {
        let (b, o, t) = (find(base, id), find(ours, id), find(theirs, id));
        let hash = |x: &Option<(String, ReusableObject)>| x.as_ref().map(|(h, _)| h.clone());
        let picked = if hash(&o) == hash(&t) || hash(&t) == hash(&b) {
            o
        } else if hash(&o) == hash(&b) {
            t
        } else {
            let title = o.or(t).map(|(_, r)| r.title).unwrap_or_default();
            return Err(EngineError::Conflict(format!(
                "the reusable content {title:?} ({id}) changed on both sides"
            )));
        };
        out.extend(picked);
    }
    Ok(out)
}
