//! Applying a batch of content changes to a change request: all of them in
//! one new revision, or none.

use std::collections::HashMap;

use base64::Engine as _;
use quire_content::markdown;
use quire_content::objects::FileObject;
use quire_content::tree::{PageKind, PageMeta};
use quire_core::EditMode;
use quire_core::serde_util::nullable;
use quire_store::change_requests::{self, ChangeRequestRow};
use quire_store::content::RevisionRow;
use quire_store::spaces::SpaceRow;
use serde::Deserialize;

use crate::snapshot::Draft;
use crate::{Engine, EngineError, EngineResult};

/// Largest number of changes in one batch.
pub const MAX_CHANGES: usize = 50;
/// Largest size of one file, decoded from base64 or downloaded from a URL.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
const MAX_SLUG: usize = 100;

/// Page settings shared by inserts and updates.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageFields {
    pub title: Option<String>,
    pub slug: Option<String>,
    pub emoji: Option<String>,
    pub description: Option<String>,
    pub hidden: Option<bool>,
}

/// A page body in any accepted form.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum DocumentInput {
    Markdown { markdown: String },
    Json { document: serde_json::Value },
    Empty {},
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileInput {
    pub name: String,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    #[serde(rename = "contentType")]
    pub content_type: Option<String>,
    pub base64: Option<String>,
    pub url: Option<String>,
}

/// One change of a batch, as the official API names them.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "operation", rename_all = "snake_case")]
pub enum Change {
    InsertPage {
        #[serde(flatten)]
        fields: PageFields,
        into: Option<String>,
        at: Option<usize>,
        #[serde(rename = "ref")]
        reference: Option<String>,
        document: DocumentInput,
    },
    UpdatePage {
        page: String,
        #[serde(flatten)]
        fields: PageFields,
        document: Option<DocumentInput>,
        #[serde(default, deserialize_with = "nullable")]
        into: Option<Option<String>>,
        at: Option<usize>,
    },
    DeletePage {
        page: String,
    },
    RevertPage {
        page: String,
        revision: Option<String>,
    },
    InsertFiles {
        files: Vec<FileInput>,
    },
}

/// What a batch did to one page or file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppliedChange {
    Created { page: String, reference: Option<String> },
    Updated { page: String },
    Deleted { page: String },
    FileInserted { file: String },
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

    /// Rewrites links to batch refs (`./ref`, `./ref.md`, `ref.md`) into
    /// stable `/pages/<id>` and `/files/<id>` links.
    fn rewrite_links(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (name, id) in &self.pages {
            for form in [
                format!("](./{name}.md)"),
                format!("](./{name})"),
                format!("]({name}.md)"),
            ] {
                out = out.replace(&form, &format!("](/pages/{id})"));
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

fn invalid(index: usize, message: impl std::fmt::Display) -> EngineError {
    EngineError::invalid(format!("changes[{index}]: {message}"))
}

impl Engine {
    /// Opens a change request on the space's current content.
    pub async fn create_change_request(
        &self,
        space: &SpaceRow,
        subject: &str,
        user_id: &str,
    ) -> EngineResult<ChangeRequestRow> {
        let now = self.now();
        let mut tx = self.db.write().await?;
        let number = change_requests::allocate_number(&mut tx, &space.id).await?;
        let current: String = quire_store::spaces::get_any(&mut tx, &space.id).await?.revision_id;
        let cr = ChangeRequestRow {
            id: quire_core::id::new_id(),
            space_id: space.id.clone(),
            number,
            subject: subject.to_owned(),
            status: "open".into(),
            created_by: user_id.to_owned(),
            created_at: now,
            updated_at: now,
            revision_id: current.clone(),
            revision_initial: current.clone(),
            revision_merged_ancestor: current,
            revision_merged: None,
            merged_by: None,
            merged_at: None,
        };
        change_requests::insert(&mut tx, &cr).await?;
        tx.commit().await?;
        Ok(cr)
    }

    /// Applies `changes` to the change request's head as one new revision.
    pub async fn apply_changes(
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
        let now = self.now();
        let mut tx = self.db.write().await?;
        let snapshot = draft
            .save(&mut tx, self.edits_revision(space, &cr.revision_id, user_id))
            .await?;
        let updated = ChangeRequestRow {
            revision_id: snapshot.revision.id.clone(),
            updated_at: now,
            ..cr.clone()
        };
        if !change_requests::update_if_head(&mut tx, &updated, &cr.revision_id).await? {
            return Err(EngineError::conflict(
                "the change request changed meanwhile: read it again and retry",
            ));
        }
        tx.commit().await?;
        self.remember(snapshot);
        Ok((updated, applied))
    }

    /// Applies `changes` directly to the space's current content (templates).
    pub async fn apply_to_space(&self, space: &SpaceRow, changes: Vec<Change>, user_id: &str) -> EngineResult<String> {
        let (draft, _) = self
            .prepare(space, &space.revision_id, &space.revision_id, changes)
            .await?;
        let mut tx = self.db.write().await?;
        let snapshot = draft
            .save(&mut tx, self.edits_revision(space, &space.revision_id, user_id))
            .await?;
        if !quire_store::content::advance_space(
            &mut tx,
            &space.id,
            &space.revision_id,
            &snapshot.revision.id,
            self.now(),
        )
        .await?
        {
            return Err(EngineError::conflict("the space's content changed meanwhile: retry"));
        }
        tx.commit().await?;
        let id = snapshot.revision.id.clone();
        self.remember(snapshot);
        Ok(id)
    }

    fn edits_revision(&self, space: &SpaceRow, parent: &str, user_id: &str) -> RevisionRow {
        self.new_revision(space, vec![parent.to_owned()], user_id, "edits", None)
    }

    /// A revision row for `save` to fill in (`save` sets its root).
    pub(crate) fn new_revision(
        &self,
        space: &SpaceRow,
        parents: Vec<String>,
        user_id: &str,
        kind: &str,
        merged_from: Option<String>,
    ) -> RevisionRow {
        RevisionRow {
            id: quire_core::id::new_id(),
            space_id: space.id.clone(),
            parents,
            root: String::new(),
            author_id: Some(user_id.to_owned()),
            kind: kind.to_owned(),
            merged_from,
            created_at: self.now(),
        }
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
        let head = self.snapshot(&space.id, head).await?;
        let mut draft = Draft::new(&head, self.now());
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
                let text = document_markdown(index, &document)?;
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
                if let Some(document) = &document {
                    let text = document_markdown(index, document)?;
                    if !matches!(meta.kind, PageKind::Document) {
                        return Err(invalid(index, "only document pages have a document"));
                    }
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
                let base = match self.snapshot(&space.id, &target).await {
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
                let loaded = futures_util::future::join_all(files.iter().map(|file| self.load_file(index, file))).await;
                for (file, loaded) in files.iter().zip(loaded) {
                    let (name, bytes, content_type) = loaded?;
                    let id = self.insert_file(draft, name, bytes, content_type).await?;
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

    /// A file's name, bytes and content type: decoded from `base64`, or
    /// downloaded from `url` with the guarded fetch client (http and https
    /// only, at most [`MAX_FILE_BYTES`]; the content type is the body's
    /// `contentType`, else the response's `Content-Type`).
    async fn load_file<'a>(&self, index: usize, file: &'a FileInput) -> EngineResult<(&'a str, Vec<u8>, String)> {
        let name = file.name.trim();
        if name.is_empty() || name.chars().count() > 256 || name.contains('/') {
            return Err(invalid(index, "a file name must be 1 to 256 characters, without '/'"));
        }
        let (bytes, content_type) = match (&file.base64, &file.url) {
            (Some(data), None) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| invalid(index, format!("file {name:?}: invalid base64: {e}")))?;
                if bytes.len() > MAX_FILE_BYTES {
                    return Err(invalid(
                        index,
                        format!("file {name:?} is larger than {MAX_FILE_BYTES} bytes"),
                    ));
                }
                let Some(content_type) = file.content_type.clone() else {
                    return Err(invalid(
                        index,
                        format!("file {name:?}: contentType is required with base64"),
                    ));
                };
                (bytes, content_type)
            }
            (None, Some(url)) => {
                let fetched = self
                    .fetcher
                    .get(url, MAX_FILE_BYTES)
                    .await
                    .map_err(|e| invalid(index, format!("file {name:?}: fetching {url}: {e}")))?;
                let content_type = file
                    .content_type
                    .clone()
                    .or(fetched.content_type)
                    .unwrap_or_else(|| "application/octet-stream".into());
                (fetched.bytes, content_type)
            }
            _ => {
                return Err(invalid(
                    index,
                    format!("file {name:?}: give exactly one of base64 or url"),
                ));
            }
        };
        Ok((name, bytes, content_type))
    }

    async fn insert_file(
        &self,
        draft: &mut Draft,
        name: &str,
        bytes: Vec<u8>,
        content_type: String,
    ) -> EngineResult<String> {
        let (width, height) = image_dimensions(&bytes).unzip();
        let blob = self.blobs.put(&bytes).await?;
        let id = quire_core::id::new_id();
        draft.put_file(FileObject {
            id: id.clone(),
            name: name.to_owned(),
            content_type,
            size: bytes.len() as u64,
            blob,
            width,
            height,
        });
        draft.mark(None);
        Ok(id)
    }
}

fn check_title(index: usize, title: &str) -> EngineResult<()> {
    if title.trim().is_empty() || title.chars().count() > 200 {
        return Err(invalid(index, "a page title must be 1 to 200 characters"));
    }
    Ok(())
}

/// The markdown of a document input.
fn document_markdown(index: usize, document: &DocumentInput) -> EngineResult<String> {
    match document {
        DocumentInput::Markdown { markdown } => Ok(markdown.clone()),
        DocumentInput::Json { document } => quire_content::document::document_to_markdown(document)
            .map_err(|e| invalid(index, format!("document: {e}"))),
        DocumentInput::Empty {} => Ok(String::new()),
    }
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

/// Width and height of a PNG, GIF or JPEG, read from its header.
fn image_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() >= 24 {
        let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
        let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
        return Some((w, h));
    }
    if (bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")) && bytes.len() >= 10 {
        let w = u16::from_le_bytes([bytes[6], bytes[7]]);
        let h = u16::from_le_bytes([bytes[8], bytes[9]]);
        return Some((u32::from(w), u32::from(h)));
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        let mut i = 2;
        while i + 9 < bytes.len() {
            if bytes[i] != 0xFF {
                return None;
            }
            let marker = bytes[i + 1];
            let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
            if (0xC0..=0xC3).contains(&marker) {
                let h = u16::from_be_bytes([bytes[i + 5], bytes[i + 6]]);
                let w = u16::from_be_bytes([bytes[i + 7], bytes[i + 8]]);
                return Some((u32::from(w), u32::from(h)));
            }
            i += 2 + len;
        }
    }
    None
}
