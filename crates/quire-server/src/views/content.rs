//! JSON shapes of content: revisions, pages, files and change requests.

use quire_app::change_requests::ChangeRequestInfo;
use quire_content::tree::PageKind;
use quire_core::{ChangeRequestStatus, Timestamp};
use quire_engine::Snapshot;
use serde::Serialize;
use serde_json::{Value, json};

use crate::state::AppState;
use crate::views;

/// Where a snapshot is read from, for the URLs in its shapes.
pub struct ContentContext<'a> {
    pub state: &'a AppState,
    pub space_id: &'a str,
}

#[derive(Debug, Serialize)]
pub struct AppUrl {
    pub app: String,
}

/// Page layout options: Quire has no per-page layout yet, so every page
/// answers the defaults.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Layout {
    width: &'static str,
    cover: bool,
    cover_size: &'static str,
    cover_mask: &'static str,
    title: bool,
    description: bool,
    table_of_contents: bool,
    outline: bool,
    pagination: bool,
    metadata: bool,
    tags: bool,
    actions: bool,
    anchors: bool,
}

const DEFAULT_LAYOUT: Layout = Layout {
    width: "default",
    cover: true,
    cover_size: "hero",
    cover_mask: "none",
    title: true,
    description: true,
    table_of_contents: true,
    outline: true,
    pagination: true,
    metadata: true,
    tags: true,
    actions: true,
    anchors: true,
};

/// A page of a revision, with its subpages and, when asked for, its body.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub id: String,
    pub title: String,
    pub kind: &'static str,
    #[serde(rename = "type")]
    pub page_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub urls: Option<AppUrl>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<Vec<Page>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<Layout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<[(); 0]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
    pub hidden: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emoji: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<Value>,
}

/// `{pages}`: the page tree of a revision.
#[derive(Debug, Serialize)]
pub struct Pages {
    pub pages: Vec<Page>,
}

/// A revision with its page tree and files.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Revision {
    pub object: &'static str,
    pub id: String,
    pub parents: Vec<String>,
    pub pages: Vec<Page>,
    pub files: Vec<Value>,
    pub reusable_contents: Vec<Value>,
    pub tags: [(); 0],
    pub created_at: Timestamp,
    #[serde(rename = "type")]
    pub revision_type: String,
    pub urls: AppUrl,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_from: Option<ChangeRequest>,
    /// The Git commit the revision came from or went to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<Value>,
}

/// A reusable content as the official `RevisionReusableContent`.
pub fn reusable_content(reusable: &quire_content::objects::ReusableObject) -> Value {
    let mut value = json!({ "id": reusable.id, "title": reusable.title, "document": reusable.document });
    if let Some(git) = &reusable.git {
        value["git"] = json!({ "oid": git.oid, "path": git.path });
    }
    value
}

impl ContentContext<'_> {
    pub fn file_download_url(&self, snapshot: &Snapshot, file_id: &str) -> String {
        self.state.api_url(&format!(
            "/spaces/{}/revisions/{}/files/{file_id}/download",
            self.space_id, snapshot.revision.id
        ))
    }

    /// A page and its subpages (without bodies); `parent_path` is the slug
    /// path of its parent ("" at the top level).
    fn page_at(&self, snapshot: &Snapshot, id: &str, parent_path: &str) -> Page {
        let page = &snapshot.tree.pages[id];
        let meta = &page.meta;
        let path = if parent_path.is_empty() {
            meta.slug.clone()
        } else {
            format!("{parent_path}/{}", meta.slug)
        };
        let (created, updated) = snapshot.stamps.get(id).copied().unwrap_or_default();
        let mut view = Page {
            id: id.to_owned(),
            title: meta.title.clone(),
            kind: "sheet",
            page_type: "document",
            urls: None,
            slug: Some(meta.slug.clone()),
            path: None,
            pages: None,
            layout: None,
            tags: None,
            target: None,
            hidden: meta.hidden,
            condition: meta.condition.clone(),
            link_title: meta.link_title.clone(),
            git: meta.git.as_ref().map(|g| json!({ "oid": g.oid, "path": g.path })),
            created_at: Some(Timestamp(created)),
            updated_at: Some(Timestamp(updated)),
            description: meta.description.clone(),
            emoji: meta.emoji.clone(),
            document_id: meta.document.clone(),
            markdown: None,
            document: None,
        };
        match &meta.kind {
            PageKind::Document | PageKind::Group => {
                let children = snapshot
                    .tree
                    .children_of(Some(id))
                    .iter()
                    .map(|c| self.page_at(snapshot, c, &path))
                    .collect();
                if meta.kind == PageKind::Group {
                    (view.kind, view.page_type) = ("group", "group");
                } else {
                    view.urls = Some(AppUrl {
                        app: self.state.app_url(&format!("/s/{}/{path}", self.space_id)),
                    });
                    view.layout = Some(DEFAULT_LAYOUT);
                    view.tags = Some([]);
                }
                view.pages = Some(children);
                view.path = Some(path);
            }
            PageKind::Link { target } => {
                (view.kind, view.page_type) = ("link", "link");
                view.slug = None;
                view.target = Some(json!({ "kind": "url", "url": target }));
            }
        }
        view
    }

    /// One page with its subpages (without bodies).
    pub fn page(&self, snapshot: &Snapshot, id: &str) -> Page {
        let parent_path = snapshot.tree.pages[id]
            .parent
            .as_deref()
            .map(|p| snapshot.path_of(p))
            .unwrap_or_default();
        self.page_at(snapshot, id, &parent_path)
    }

    /// The top-level pages of a snapshot, each with its subpages.
    pub fn pages(&self, snapshot: &Snapshot) -> Vec<Page> {
        snapshot
            .tree
            .children_of(None)
            .iter()
            .map(|id| self.page_at(snapshot, id, ""))
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
        if let Some(git) = &file.git {
            value["git"] = json!({ "oid": git.oid, "path": git.path });
        }
        value
    }

    pub fn revision(&self, snapshot: &Snapshot, merged_from: Option<ChangeRequest>) -> Revision {
        Revision {
            object: "revision",
            id: snapshot.revision.id.clone(),
            parents: snapshot.revision.parents.clone(),
            pages: self.pages(snapshot),
            files: self.files(snapshot),
            reusable_contents: snapshot.reusable.iter().map(|(_, r)| reusable_content(r)).collect(),
            tags: [],
            created_at: snapshot.revision.created_at,
            revision_type: snapshot.revision.kind.clone(),
            urls: AppUrl {
                app: self
                    .state
                    .app_url(&format!("/s/{}/revisions/{}", self.space_id, snapshot.revision.id)),
            },
            merged_from,
            git: snapshot
                .revision
                .git
                .as_deref()
                .and_then(|g| serde_json::from_str(g).ok()),
        }
    }
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
    pub status: ChangeRequestStatus,
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

pub fn change_request(state: &AppState, info: ChangeRequestInfo) -> ChangeRequest {
    let ChangeRequestInfo {
        change_request: cr,
        created_by,
        merged_by,
        outdated,
        comments,
        viewer,
    } = info;
    ChangeRequest {
        object: "change-request",
        urls: ChangeRequestUrls {
            app: state.app_url(&format!("/s/{}/change-requests/{}", cr.space_id, cr.number)),
            location: state.api_url(&format!("/spaces/{}/change-requests/{}", cr.space_id, cr.id)),
        },
        outdated,
        id: cr.id,
        number: cr.number,
        status: cr.status,
        subject: cr.subject,
        created_by: views::user(state, &viewer, &created_by),
        created_at: cr.created_at,
        updated_at: cr.updated_at,
        merged_by: merged_by.map(|u| views::user(state, &viewer, &u)),
        merged_at: cr.merged_at,
        space: cr.space_id,
        revision: cr.revision_id,
        revision_initial: cr.revision_initial,
        revision_merged_ancestor: cr.revision_merged_ancestor,
        revision_merged: cr.revision_merged,
        comments,
    }
}

/// One revision of a space's history (`GET /spaces/{spaceId}/revisions`,
/// Quire's addition): authors are shown with their public profile.
pub fn history_entry(state: &AppState, space_id: &str, entry: quire_app::history::HistoryEntry) -> Value {
    let rev = entry.revision;
    json!({
        "object": "revision",
        "id": rev.id,
        "parents": rev.parents,
        "type": rev.kind,
        "createdAt": rev.created_at,
        "author": entry.author.map(|a| views::user_as(state, &a, quire_app::accounts::Visibility::Public)),
        "changeRequest": rev.merged_from,
        "urls": {
            "location": state.api_url(&format!("/spaces/{space_id}/revisions/{}", rev.id)),
            "app": state.app_url(&format!("/s/{space_id}/revisions/{}/", rev.id)),
        },
    })
}
