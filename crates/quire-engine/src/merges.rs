//! Merging a change request into its space, and updating a change request
//! from its space: both are three-way merges whose result is a revision with
//! two parents.

use std::collections::HashMap;
use std::sync::Arc;

use quire_content::merge::{self, Conflict};
use quire_content::objects::ReusableObject;
use quire_core::{ChangeRequestStatus, Clock};
use quire_store::change_requests::ChangeRequestRow;
use quire_store::spaces::SpaceRow;

use crate::revisions::{Head, Revisions};
use crate::snapshot::{Draft, Snapshot};
use crate::{EngineError, EngineResult};

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
    async fn merge_snapshots(&self, base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> EngineResult<Draft> {
        let mut candidates = base.changed_pages(ours);
        candidates.extend(base.changed_pages(theirs));
        let merged = merge::merge_pages(&base.tree, &ours.tree, &theirs.tree, &candidates).map_err(conflicts)?;
        let mut draft = Draft::new(ours, self.clock.now());
        let mut text_conflicts = Vec::new();
        let mut merged_texts = HashMap::new();
        for text in &merged.text_merges {
            let base_text = match &text.base {
                Some(hash) => self.revisions.document(hash).await?.to_string(),
                None => String::new(),
            };
            let (o, t) = (
                self.revisions.document(&text.ours).await?,
                self.revisions.document(&text.theirs).await?,
            );
            match merge::merge_text(&base_text, &o, &t) {
                Some(result) => {
                    merged_texts.insert(text.page.clone(), result);
                }
                None => text_conflicts.push(Conflict {
                    page: text.page.clone(),
                    title: merged
                        .tree
                        .pages
                        .get(&text.page)
                        .map(|p| p.meta.title.clone())
                        .unwrap_or_default(),
                    reason: "the same lines of the document changed on both sides".into(),
                }),
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
        let main_id = space.revision_id.clone();
        let base = self.revisions.snapshot(&space.id, &cr.revision_merged_ancestor).await?;
        let main = self.revisions.snapshot(&space.id, &main_id).await?;
        let head = self.revisions.snapshot(&space.id, &cr.revision_id).await?;
        let draft = self.merge_snapshots(&base, &main, &head).await?;

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
        let draft = self.merge_snapshots(&base, &main, &theirs).await?;
        let parents = vec![main.revision.id.clone(), theirs.revision.id.clone()];
        let mut revision = self.revisions.new_revision(&space.id, parents, user_id, "edits", None);
        revision.git = theirs.revision.git.clone();
        let head = Head::Space {
            space_id: &space.id,
            base: &main,
        };
        self.revisions.commit(draft, revision, &[head]).await
    }

    /// Brings the change request up to date with the space's current content.
    pub async fn update(&self, space: &SpaceRow, cr: &ChangeRequestRow, user_id: &str) -> EngineResult<MergeResult> {
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
        let draft = self.merge_snapshots(&base, &head, &main).await?;

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
