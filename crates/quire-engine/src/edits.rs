//! Edits: applying a batch of content changes to a change request (or,
//! for templates, to a space directly) as one new revision: all of the
//! changes, or none.

use std::collections::HashMap;
use std::sync::Arc;

use quire_content::markdown;
use quire_content::tree::{PageKind, PageMeta};
use quire_core::{Clock, EditMode};
use quire_store::change_requests::ChangeRequestRow;
use quire_store::spaces::SpaceRow;

use crate::changes::{AppliedChange, Change, DocumentInput, MAX_CHANGES, MAX_PAGE_MARKDOWN_BYTES};

/// How many times a content batch is prepared again when another write
/// moved the change request's head meanwhile.
const EDIT_ATTEMPTS: usize = 5;
use crate::revisions::{Head, Indexing, Revisions};
use crate::snapshot::Draft;
use crate::{EngineError, EngineResult, Files};

const MAX_SLUG: usize = 100;

/// Applies batches of changes.
pub struct Edits {
    revisions: Arc<Revisions>,
    files: Arc<Files>,
    clock: Arc<dyn Clock>,
}

/// Batch-local names (`ref`) of inserted pages and files.
#[derive(Default)]
struct Refs {
    pages: HashMap<String, String>,
    files: HashMap<String, String>,
    /// Documents written by the batch, by page: refs in them are resolved
    /// once the whole batch is applied, so a page may link to a page or file
    /// inserted later in the same batch.
    written: Vec<(String, String)>,
}

impl Refs {
    fn page_id(&self, name: &str) -> String {
        self.pages.get(name).cloned().unwrap_or_else(|| name.to_owned())
    }

    /// Rewrites links to batch refs (`./ref`, `./ref.md`, `ref.md`, each
    /// maybe with a `#heading`) into stable `/pages/<id>` and `/files/<id>`
    /// links.
    fn rewrite_links(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (name, id) in &self.pages {
            for form in [format!("](./{name}.md"), format!("](./{name}"), format!("]({name}.md")] {
                for end in [")", "#"] {
                    out = out.replace(&format!("{form}{end}"), &format!("](/pages/{id}{end}"));
                }
            }
        }
        for (name, id) in &self.files {
            for form in [format!("](./{name})"), format!("]({name})")] {
                out = out.replace(&form, &format!("](/files/{id})"));
            }
        }
        out
    }
}

pub(crate) fn invalid(index: usize, message: impl std::fmt::Display) -> EngineError {
    EngineError::invalid(format!("changes[{index}]: {message}"))
}

impl Edits {
    pub(crate) fn new(revisions: Arc<Revisions>, files: Arc<Files>, clock: Arc<dyn Clock>) -> Edits {
        Edits {
            revisions,
            files,
            clock,
        }
    }

    /// Applies `changes` to the change request's head as one new revision;
    /// returns the change request as it now is and what changed.
    pub async fn apply(
        &self,
        space: &SpaceRow,
        cr: &ChangeRequestRow,
        changes: Vec<Change>,
        user_id: &str,
    ) -> EngineResult<(ChangeRequestRow, Vec<AppliedChange>)> {
        if !cr.is_active() {
            return Err(EngineError::conflict(format!(
                "this change request is {}; its content cannot change",
                cr.status
            )));
        }
        let (draft, applied) = self
            .prepare(space, &cr.revision_id, &cr.revision_initial, changes)
            .await?;
        let revision = self.edits_revision(space, &cr.revision_id, user_id);
        let updated = ChangeRequestRow {
            revision_id: revision.id.clone(),
            updated_at: self.clock.now(),
            ..cr.clone()
        };
        let head = Head::ChangeRequest {
            updated: &updated,
            expected: &cr.revision_id,
        };
        self.revisions.commit(draft, revision, &[head]).await?;
        Ok((updated, applied))
    }

    /// Applies `changes` to the change request's head as it is when they
    /// are committed: when another write (a co-editing save, an upload)
    /// moved the head between reading it and committing, they are prepared
    /// again on the new head, a few times at most. For writes that name no
    /// revision (the API's content batches); a writer that must build on
    /// the revision it saw (co-editing) uses [`Edits::apply`].
    pub async fn apply_to_latest(
        &self,
        space: &SpaceRow,
        cr: &ChangeRequestRow,
        changes: Vec<Change>,
        user_id: &str,
    ) -> EngineResult<(ChangeRequestRow, Vec<AppliedChange>)> {
        let mut cr = cr.clone();
        let mut attempts = 0;
        loop {
            match self.apply(space, &cr, changes.clone(), user_id).await {
                Err(EngineError::Conflict(message)) if attempts < EDIT_ATTEMPTS => {
                    let mut conn = self.revisions.db.read().await?;
                    let now = quire_store::change_requests::get(&mut conn, &space.id, &cr.id).await?;
                    if now.revision_id == cr.revision_id {
                        return Err(EngineError::Conflict(message));
                    }
                    cr = now;
                    attempts += 1;
                }
                done => return done,
            }
        }
    }

    /// Applies `changes` directly to the space's current content (templates);
    /// returns the new revision's id.
    pub async fn apply_to_space(&self, space: &SpaceRow, changes: Vec<Change>, user_id: &str) -> EngineResult<String> {
        let base = self.revisions.snapshot(&space.id, &space.revision_id).await?;
        let (draft, _) = self
            .prepare(space, &space.revision_id, &space.revision_id, changes)
            .await?;
        let revision = self.edits_revision(space, &space.revision_id, user_id);
        let head = Head::Space {
            space_id: &space.id,
            base: &base,
            indexing: Indexing::Now,
        };
        let snapshot = self.revisions.commit(draft, revision, &[head]).await?;
        Ok(snapshot.revision.id.clone())
    }

    fn edits_revision(&self, space: &SpaceRow, parent: &str, user_id: &str) -> quire_store::content::RevisionRow {
        self.revisions
            .new_revision(&space.id, vec![parent.to_owned()], user_id, "edits", None)
    }

    /// Validates and applies the changes to a draft of `head`.
    async fn prepare(
        &self,
        space: &SpaceRow,
        head: &str,
        revert_base: &str,
        changes: Vec<Change>,
    ) -> EngineResult<(Draft, Vec<AppliedChange>)> {
        if space.edit_mode == EditMode::Locked {
            return Err(EngineError::conflict(
                "this space is locked: unlock it (editMode live) to change its content",
            ));
        }
        if changes.is_empty() || changes.len() > MAX_CHANGES {
            return Err(EngineError::invalid(format!(
                "changes must hold 1 to {MAX_CHANGES} changes"
            )));
        }
        let head = self.revisions.snapshot(&space.id, head).await?;
        let mut draft = Draft::new(&head, self.clock.now());
        let mut refs = Refs::default();
        let mut applied = Vec::new();
        for (index, change) in changes.into_iter().enumerate() {
            self.apply_one(&mut draft, &mut refs, &mut applied, index, change, space, revert_base)
                .await?;
        }
        for (page, text) in std::mem::take(&mut refs.written) {
            let resolved = refs.rewrite_links(&text);
            if resolved != text && draft.tree.pages.contains_key(&page) {
                let hash = draft.put_document(&resolved);
                let mut meta = draft.tree.pages[&page].meta.clone();
                meta.document = Some(hash);
                draft.set_meta(&page, meta);
            }
        }
        Ok((draft, applied))
    }

    #[allow(clippy::too_many_arguments)]
    async fn apply_one(
        &self,
        draft: &mut Draft,
        refs: &mut Refs,
        applied: &mut Vec<AppliedChange>,
        index: usize,
        change: Change,
        space: &SpaceRow,
        revert_base: &str,
    ) -> EngineResult<()> {
        match change {
            Change::InsertPage {
                fields,
                into,
                at,
                reference,
                document,
            } => {
                let parent = into.map(|p| refs.page_id(&p));
                if let Some(parent) = &parent {
                    let Some(page) = draft.tree.pages.get(parent) else {
                        return Err(invalid(index, format!("into: page {parent:?} not found")));
                    };
                    if matches!(page.meta.kind, PageKind::Link { .. }) {
                        return Err(invalid(index, "into: a link page cannot have subpages"));
                    }
                }
                if let Some(name) = &reference
                    && (refs.pages.contains_key(name) || refs.files.contains_key(name))
                {
                    return Err(invalid(index, format!("ref {name:?} is used twice in this batch")));
                }
                let text = document_markdown(index, document, None)?;
                let front = markdown::split_front_matter(&text).0.unwrap_or_default();
                let title = markdown::front_matter_value(front, "title")
                    .or(fields.title.clone())
                    .or_else(|| markdown::leading_heading(markdown::split_front_matter(&text).1))
                    .unwrap_or_else(|| "Untitled".to_owned());
                check_title(index, &title)?;
                let id = quire_core::id::new_id();
                let slug = unique_slug(draft, index, parent.as_deref(), None, fields.slug.as_deref(), &title)?;
                let document_hash = draft.put_document(&text);
                let meta = PageMeta {
                    title,
                    slug,
                    description: markdown::front_matter_value(front, "description").or(fields.description.clone()),
                    emoji: fields.emoji.clone().filter(|e| !e.is_empty()),
                    hidden: fields.hidden.unwrap_or(false),
                    condition: page_condition(index, fields.condition.as_deref())?,
                    git: None,
                    link_title: None,
                    kind: PageKind::Document,
                    document: Some(document_hash),
                };
                let siblings = draft.tree.children_of(parent.as_deref()).len();
                let position = at.unwrap_or(siblings);
                if position > siblings {
                    return Err(invalid(
                        index,
                        format!("at: {position} is past the end ({siblings} siblings)"),
                    ));
                }
                draft.tree.push(&id, parent.as_deref(), meta);
                draft.tree.place(&id, parent.as_deref(), position);
                draft.touch(&id);
                refs.written.push((id.clone(), text));
                if let Some(name) = &reference {
                    refs.pages.insert(name.clone(), id.clone());
                }
                applied.push(AppliedChange::Created { page: id, reference });
            }
            Change::UpdatePage {
                page,
                fields,
                document,
                into,
                at,
            } => {
                let id = refs.page_id(&page);
                let Some(current) = draft.tree.pages.get(&id).cloned() else {
                    return Err(invalid(index, format!("page {page:?} not found")));
                };
                let mut meta = current.meta.clone();
                if let Some(title) = &fields.title {
                    check_title(index, title)?;
                    meta.title = title.clone();
                }
                if let Some(document) = document {
                    if !matches!(meta.kind, PageKind::Document) {
                        return Err(invalid(index, "only document pages have a document"));
                    }
                    // A JSON document is written over the page's markdown: it
                    // keeps its front matter (a JSON document has none) and
                    // the blocks it did not change as they were written.
                    let old = match (&document, &current.meta.document) {
                        (DocumentInput::Json { .. }, Some(hash)) => Some(self.revisions.document(hash).await?),
                        _ => None,
                    };
                    let over = old.as_deref().map(|old| Over {
                        old,
                        old_title: &current.meta.title,
                        title: &meta.title,
                    });
                    let text = document_markdown(index, document, over)?;
                    meta.document = Some(draft.put_document(&text));
                    refs.written.push((id.clone(), text));
                }
                if let Some(description) = &fields.description {
                    meta.description = Some(description.clone()).filter(|d| !d.is_empty());
                }
                if let Some(emoji) = &fields.emoji {
                    meta.emoji = Some(emoji.clone()).filter(|e| !e.is_empty());
                }
                if let Some(hidden) = fields.hidden {
                    meta.hidden = hidden;
                }
                if let Some(condition) = fields.condition.as_deref() {
                    meta.condition = page_condition(index, Some(condition))?;
                }
                let parent = match &into {
                    None => current.parent.clone(),
                    Some(None) => None,
                    Some(Some(p)) => {
                        let p = refs.page_id(p);
                        if !draft.tree.pages.contains_key(&p) {
                            return Err(invalid(index, format!("into: page {p:?} not found")));
                        }
                        if draft.tree.is_ancestor(&id, &p) {
                            return Err(invalid(index, "into: a page cannot move under itself or its subpages"));
                        }
                        Some(p)
                    }
                };
                if fields.slug.is_some() || fields.title.is_some() || parent != current.parent {
                    let wanted = fields
                        .slug
                        .as_deref()
                        .or((fields.title.is_none()).then_some(current.meta.slug.as_str()));
                    meta.slug = unique_slug(draft, index, parent.as_deref(), Some(&id), wanted, &meta.title)?;
                }
                if parent != current.parent || at.is_some() {
                    let siblings = draft
                        .tree
                        .children_of(parent.as_deref())
                        .iter()
                        .filter(|s| **s != id)
                        .count();
                    let position = at.unwrap_or(siblings);
                    if position > siblings {
                        return Err(invalid(
                            index,
                            format!("at: {position} is past the end ({siblings} siblings)"),
                        ));
                    }
                    draft.mark(current.parent.as_deref());
                    draft.tree.place(&id, parent.as_deref(), position);
                }
                draft.set_meta(&id, meta);
                applied.push(AppliedChange::Updated { page: id });
            }
            Change::DeletePage { page } => {
                let id = refs.page_id(&page);
                let Some(current) = draft.tree.pages.get(&id).cloned() else {
                    return Err(invalid(index, format!("page {page:?} not found")));
                };
                draft.mark(current.parent.as_deref());
                draft.tree.remove(&id);
                applied.push(AppliedChange::Deleted { page: id });
            }
            Change::RevertPage { page, revision } => {
                let id = refs.page_id(&page);
                let target = revision.unwrap_or_else(|| revert_base.to_owned());
                let base = match self.revisions.snapshot(&space.id, &target).await {
                    Ok(s) => s,
                    Err(EngineError::NotFound(_)) => {
                        return Err(invalid(index, format!("revision {target:?} not found")));
                    }
                    Err(err) => return Err(err),
                };
                match (base.tree.pages.get(&id), draft.tree.pages.contains_key(&id)) {
                    (None, false) => return Err(invalid(index, format!("page {page:?} not found"))),
                    (None, true) => {
                        let parent = draft.tree.pages[&id].parent.clone();
                        draft.mark(parent.as_deref());
                        draft.tree.remove(&id);
                        applied.push(AppliedChange::Deleted { page: id });
                    }
                    (Some(old), true) => {
                        draft.set_meta(&id, old.meta.clone());
                        applied.push(AppliedChange::Updated { page: id });
                    }
                    (Some(old), false) => {
                        let parent = old.parent.clone().filter(|p| draft.tree.pages.contains_key(p));
                        draft.tree.push(&id, parent.as_deref(), old.meta.clone());
                        draft.touch(&id);
                        applied.push(AppliedChange::Created {
                            page: id,
                            reference: None,
                        });
                    }
                }
            }
            Change::InsertFiles { files } => {
                if files.is_empty() || files.len() > 20 {
                    return Err(invalid(index, "files must hold 1 to 20 files"));
                }
                // Files given by URL download at the same time; the batch
                // changes nothing unless every one of them arrives.
                let loaded =
                    futures_util::future::join_all(files.iter().map(|file| self.files.load(index, file))).await;
                for (file, loaded) in files.iter().zip(loaded) {
                    let (name, bytes, content_type) = loaded?;
                    let object = self.files.store(name, bytes, content_type).await?;
                    let id = object.id.clone();
                    draft.put_file(object);
                    draft.mark(None);
                    if let Some(name) = &file.reference {
                        if refs.files.contains_key(name) || refs.pages.contains_key(name) {
                            return Err(invalid(index, format!("ref {name:?} is used twice in this batch")));
                        }
                        refs.files.insert(name.clone(), id.clone());
                    }
                    applied.push(AppliedChange::FileInserted { file: id });
                }
            }
        }
        Ok(())
    }
}

fn check_title(index: usize, title: &str) -> EngineResult<()> {
    if title.trim().is_empty() || title.chars().count() > 200 {
        return Err(invalid(index, "a page title must be 1 to 200 characters"));
    }
    Ok(())
}

/// A page's condition as given: checked, and `None` for an empty one (the
/// official way to remove it).
fn page_condition(index: usize, condition: Option<&str>) -> EngineResult<Option<String>> {
    match condition.map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(None),
        Some(text) => {
            quire_core::expression::check_condition(text).map_err(|e| invalid(index, e))?;
            Ok(Some(text.to_owned()))
        }
    }
}

/// The page a JSON document is written over: its markdown and title
/// before the change, and its title after.
struct Over<'a> {
    old: &'a str,
    old_title: &'a str,
    title: &'a str,
}

/// The markdown of a document input, at most [`MAX_PAGE_MARKDOWN_BYTES`];
/// a JSON document (the page's content without its title heading) is
/// written over the page's markdown when it has one.
fn document_markdown(index: usize, document: DocumentInput, over: Option<Over>) -> EngineResult<String> {
    let markdown = match document {
        DocumentInput::Markdown { markdown } => markdown,
        DocumentInput::Json { document } => match over {
            Some(Over { old, old_title, title }) => {
                quire_content::document::page_markdown_over(&document, old, old_title, title)
            }
            None => quire_content::document::document_to_markdown(&document),
        }
        .map_err(|e| invalid(index, format!("document: {e}")))?,
        DocumentInput::Empty => String::new(),
    };
    if markdown.len() > MAX_PAGE_MARKDOWN_BYTES {
        return Err(EngineError::TooLarge(format!(
            "changes[{index}]: a page's markdown must be at most {} MiB (this one is {} bytes)",
            MAX_PAGE_MARKDOWN_BYTES / (1024 * 1024),
            markdown.len()
        )));
    }
    Ok(markdown)
}

/// A slug for a page under `parent`: the wanted one (refused when a sibling
/// has it) or one derived from the title (made unique with a number).
fn unique_slug(
    draft: &Draft,
    index: usize,
    parent: Option<&str>,
    page: Option<&str>,
    wanted: Option<&str>,
    title: &str,
) -> EngineResult<String> {
    let taken = |slug: &str| {
        draft
            .tree
            .children_of(parent)
            .iter()
            .any(|s| Some(s.as_str()) != page && draft.tree.pages[s].meta.slug == slug)
    };
    if let Some(slug) = wanted {
        let valid = !slug.is_empty()
            && slug.len() <= MAX_SLUG
            && slug
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.');
        if !valid {
            return Err(invalid(
                index,
                format!("slug {slug:?} must be 1 to {MAX_SLUG} letters, digits, '-', '_' or '.'"),
            ));
        }
        if taken(slug) {
            return Err(invalid(
                index,
                format!("slug {slug:?} is already used by a sibling page"),
            ));
        }
        return Ok(slug.to_owned());
    }
    let base: String = markdown::slugify(title).chars().take(MAX_SLUG - 4).collect();
    let mut slug = base.clone();
    let mut n = 2;
    while taken(&slug) {
        slug = format!("{base}-{n}");
        n += 1;
    }
    Ok(slug)
}
