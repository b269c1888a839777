//! JSON shapes of content: revisions, pages, files and change requests.

use quire_content::tree::PageKind;
use quire_core::Timestamp;
use quire_engine::Snapshot;
use quire_store::change_requests::ChangeRequestRow;
use quire_store::users::UserRow;
use serde::Serialize;
use serde_json::{Value, json};

use crate::state::AppState;
use crate::views;

/// Which body a page carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageBody {
    None,
    Markdown,
    Document,
}

/// Where a snapshot is read from, for the URLs in its shapes.
pub struct ContentContext<'a> {
    pub state: &'a AppState,
    pub space_id: &'a str,
}

impl ContentContext<'_> {
    fn page_app_url(&self, snapshot: &Snapshot, id: &str) -> String {
        self.state
            .app_url(&format!("/s/{}/{}", self.space_id, snapshot.path_of(id)))
    }

    pub fn file_download_url(&self, snapshot: &Snapshot, file_id: &str) -> String {
        self.state.api_url(&format!(
            "/spaces/{}/revisions/{}/files/{file_id}/download",
            self.space_id, snapshot.revision.id
        ))
    }

    /// A page without its body; `children` controls whether subpages nest.
    pub fn page(&self, snapshot: &Snapshot, id: &str) -> Value {
        let page = &snapshot.tree.pages[id];
        let meta = &page.meta;
        let pages: Vec<Value> = snapshot
            .tree
            .children_of(Some(id))
            .iter()
            .map(|c| self.page(snapshot, c))
            .collect();
        let (created, updated) = snapshot.stamps.get(id).copied().unwrap_or_default();
        let mut value = match &meta.kind {
            PageKind::Document => json!({
                "id": id,
                "title": meta.title,
                "kind": "sheet",
                "type": "document",
                "urls": { "app": self.page_app_url(snapshot, id) },
                "slug": meta.slug,
                "path": snapshot.path_of(id),
                "pages": pages,
                "layout": default_layout(),
                "tags": [],
                "hidden": meta.hidden,
                "createdAt": Timestamp(created),
                "updatedAt": Timestamp(updated),
            }),
            PageKind::Group => json!({
                "id": id,
                "title": meta.title,
                "kind": "group",
                "type": "group",
                "slug": meta.slug,
                "path": snapshot.path_of(id),
                "pages": pages,
                "hidden": meta.hidden,
                "createdAt": Timestamp(created),
                "updatedAt": Timestamp(updated),
            }),
            PageKind::Link { target } => json!({
                "id": id,
                "title": meta.title,
                "kind": "link",
                "type": "link",
                "target": { "kind": "url", "url": target },
                "hidden": meta.hidden,
            }),
        };
        if let Some(description) = &meta.description {
            value["description"] = description.clone().into();
        }
        if let Some(emoji) = &meta.emoji {
            value["emoji"] = emoji.clone().into();
        }
        if let Some(document) = &meta.document {
            value["documentId"] = document.clone().into();
        }
        value
    }

    /// The top-level pages of a snapshot, each with its subpages.
    pub fn pages(&self, snapshot: &Snapshot) -> Vec<Value> {
        snapshot
            .tree
            .children_of(None)
            .iter()
            .map(|id| self.page(snapshot, id))
            .collect()
    }

    pub fn files(&self, snapshot: &Snapshot) -> Vec<Value> {
        snapshot.files.iter().map(|(_, f)| self.file(snapshot, f)).collect()
    }

    pub fn file(&self, snapshot: &Snapshot, file: &quire_content::objects::FileObject) -> Value {
        let mut value = json!({
            "id": file.id,
            "name": file.name,
            "contentType": file.content_type,
            "downloadURL": self.file_download_url(snapshot, &file.id),
            "size": file.size,
        });
        if let (Some(width), Some(height)) = (file.width, file.height) {
            value["dimensions"] = json!({ "width": width, "height": height });
        }
        value
    }

    /// A revision with its page tree and files.
    pub fn revision(&self, snapshot: &Snapshot, merged_from: Option<Value>) -> Value {
        let mut value = json!({
            "object": "revision",
            "id": snapshot.revision.id,
            "parents": snapshot.revision.parents,
            "pages": self.pages(snapshot),
            "files": self.files(snapshot),
            "reusableContents": [],
            "tags": [],
            "createdAt": snapshot.revision.created_at,
            "type": snapshot.revision.kind,
            "urls": { "app": self.state.app_url(&format!("/s/{}/revisions/{}", self.space_id, snapshot.revision.id)) },
        });
        if let Some(cr) = merged_from {
            value["mergedFrom"] = cr;
        }
        value
    }
}

fn default_layout() -> Value {
    json!({
        "width": "default",
        "cover": true,
        "coverSize": "hero",
        "coverMask": "none",
        "title": true,
        "description": true,
        "tableOfContents": true,
        "outline": true,
        "pagination": true,
        "metadata": true,
        "tags": true,
        "actions": true,
        "anchors": true,
    })
}

#[derive(Debug, Serialize)]
pub struct ChangeRequestUrls {
    pub app: String,
    pub location: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeRequest {
    pub object: &'static str,
    pub id: String,
    pub number: i64,
    pub status: String,
    pub subject: String,
    pub created_by: views::User,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_by: Option<views::User>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_at: Option<Timestamp>,
    pub space: String,
    pub revision: String,
    pub revision_initial: String,
    pub revision_merged_ancestor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision_merged: Option<String>,
    pub comments: i64,
    pub outdated: bool,
    pub urls: ChangeRequestUrls,
}

/// `space_revision` is the space's current revision: a change request is
/// outdated when the space moved since it was last updated.
pub fn change_request(
    state: &AppState,
    cr: ChangeRequestRow,
    created_by: &UserRow,
    merged_by: Option<&UserRow>,
    space_revision: &str,
) -> ChangeRequest {
    let open = matches!(cr.status.as_str(), "open" | "draft");
    ChangeRequest {
        object: "change-request",
        urls: ChangeRequestUrls {
            app: state.app_url(&format!("/s/{}/change-requests/{}", cr.space_id, cr.number)),
            location: state.api_url(&format!("/spaces/{}/change-requests/{}", cr.space_id, cr.id)),
        },
        outdated: open && cr.revision_merged_ancestor != space_revision,
        id: cr.id,
        number: cr.number,
        status: cr.status,
        subject: cr.subject,
        created_by: views::user(state, created_by),
        created_at: cr.created_at,
        updated_at: cr.updated_at,
        merged_by: merged_by.map(|u| views::user(state, u)),
        merged_at: cr.merged_at,
        space: cr.space_id,
        revision: cr.revision_id,
        revision_initial: cr.revision_initial,
        revision_merged_ancestor: cr.revision_merged_ancestor,
        revision_merged: cr.revision_merged,
        comments: 0,
    }
}
