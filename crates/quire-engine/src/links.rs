//! Links between pages and files of a revision: what every page points at
//! and whether the target exists. Extracting a document's links is cached by
//! the document's hash; resolving them against a revision's tree is a few
//! map look-ups per link.

use std::sync::Arc;

use quire_content::markdown::{self, Relation};

use crate::EngineResult;
use crate::revisions::Revisions;
use crate::snapshot::{GitTarget, Snapshot};
use moka::sync::Cache;

/// Finds and resolves links; a document's links are cached by its hash.
pub struct Links {
    revisions: Arc<Revisions>,
    cache: Cache<String, Arc<Vec<(String, Relation)>>>,
}

/// What a link points at, resolved against one revision.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    Page(String),
    File(String),
    /// An external URL.
    Url(String),
    /// A URL into this Quire's own application.
    InApp(String),
    /// A page or file that does not exist in the revision (the raw target).
    Missing(String),
}

/// One link found in a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The page the link is in.
    pub source: String,
    pub relation: Relation,
    pub target: Target,
}

impl Links {
    /// The links cache's name, entries and bytes.
    pub(crate) fn cache_size(&self) -> (&'static str, u64, u64) {
        crate::cache::size("links", &self.cache)
    }

    pub(crate) fn new(revisions: Arc<Revisions>, bytes: u64) -> Links {
        Links {
            revisions,
            cache: crate::cache::weighed(bytes, |links| {
                32 + links.iter().map(|(target, _)| target.len() + 64).sum::<usize>()
            }),
        }
    }

    /// The links of a document (cached by its hash).
    async fn document_links(&self, hash: &str) -> EngineResult<Arc<Vec<(String, Relation)>>> {
        if let Some(found) = self.cache.get(hash) {
            return Ok(found);
        }
        let text = self.revisions.document(hash).await?;
        let found = Arc::new(markdown::links(&text));
        self.cache.insert(hash.to_owned(), found.clone());
        Ok(found)
    }

    /// Every link of every page of the snapshot, resolved. `app_url` is the
    /// base URL of this server: links under it count as in-app.
    pub async fn of_revision(&self, snapshot: &Snapshot, app_url: &str) -> EngineResult<Vec<Link>> {
        let mut out = Vec::new();
        for (page, _) in snapshot.tree.walk() {
            let Some(document) = snapshot.tree.pages[&page].meta.document.clone() else {
                continue;
            };
            for (raw, relation) in self.document_links(&document).await?.iter() {
                if let Some(target) = resolve(snapshot, &page, raw, app_url) {
                    out.push(Link {
                        source: page.clone(),
                        relation: *relation,
                        target,
                    });
                }
            }
        }
        Ok(out)
    }
}

/// Resolves a link target written in `page`; `None` for in-page anchors.
pub fn resolve(snapshot: &Snapshot, page: &str, raw: &str, app_url: &str) -> Option<Target> {
    let raw = raw.trim();
    let without_anchor = raw.split('#').next().unwrap_or_default();
    if without_anchor.is_empty() {
        return None;
    }
    if !app_url.is_empty() && raw.starts_with(app_url) {
        return Some(Target::InApp(raw.to_owned()));
    }
    if raw.contains("://") || raw.starts_with("mailto:") || raw.starts_with("tel:") {
        return Some(Target::Url(raw.to_owned()));
    }
    if let Some(id) = without_anchor.strip_prefix("/files/") {
        return Some(if snapshot.file(id).is_some() {
            Target::File(id.to_owned())
        } else {
            Target::Missing(raw.to_owned())
        });
    }
    if let Some(rest) = without_anchor.strip_prefix("/pages/") {
        if snapshot.tree.pages.contains_key(rest) {
            return Some(Target::Page(rest.to_owned()));
        }
        return Some(match page_at(snapshot, &git_path_to_slugs(rest)) {
            Some(id) => Target::Page(id),
            None => Target::Missing(raw.to_owned()),
        });
    }
    // A page that came from Git links relative to its file; a link to a
    // folder (`../install/`) or without `.md` names its page as GitBook's
    // links do.
    if let Some(git) = snapshot.tree.pages.get(page).and_then(|p| p.meta.git.as_ref())
        && !without_anchor.starts_with('/')
        && let Some(path) = relative_git_path(&git.path, without_anchor)
    {
        // `../` up to the project's root names the root's README.
        let folder = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let candidates = [
            path.clone(),
            format!("{folder}README.md"),
            format!("{folder}readme.md"),
            format!("{path}.md"),
        ];
        for candidate in candidates.iter().filter(|c| !c.is_empty() && !c.starts_with('/')) {
            match snapshot.by_git_path(candidate) {
                Some(GitTarget::Page(id)) => return Some(Target::Page(id.clone())),
                Some(GitTarget::File(id)) => return Some(Target::File(id.clone())),
                _ => {}
            }
        }
    }
    // Relative to the page's folder, the way Git Sync lays pages out:
    // a page with subpages is `<path>/README.md`, others `<path>.md`.
    let has_children = !snapshot.tree.children_of(Some(page)).is_empty();
    let own = snapshot.path_of(page);
    let mut folder: Vec<&str> = own.split('/').filter(|s| !s.is_empty()).collect();
    if !has_children {
        folder.pop();
    }
    let absolute = without_anchor.starts_with('/');
    let mut parts: Vec<String> = if absolute {
        Vec::new()
    } else {
        folder.iter().map(|s| s.to_string()).collect()
    };
    for segment in without_anchor.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s.to_owned()),
        }
    }
    let slugs = git_path_to_slugs(&parts.join("/"));
    Some(match page_at(snapshot, &slugs) {
        Some(id) => Target::Page(id),
        None => Target::Missing(raw.to_owned()),
    })
}

/// `target` (as written in the file at `from`, percent-escapes decoded)
/// as a path from the repository's project root.
pub fn relative_git_path(from: &str, target: &str) -> Option<String> {
    let folder = from.rsplit_once('/').map_or("", |(f, _)| f);
    let mut parts: Vec<String> = folder.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect();
    let decoded = quire_core::percent::decode(target);
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s.to_owned()),
        }
    }
    Some(parts.join("/"))
}

/// `a/b.md` and `a/b/README.md` both name the page at slugs `a/b`.
fn git_path_to_slugs(path: &str) -> String {
    let path = path.trim_matches('/');
    let path = path
        .strip_suffix("/README.md")
        .or_else(|| path.strip_suffix("README.md"))
        .unwrap_or(path);
    path.strip_suffix(".md").unwrap_or(path).trim_matches('/').to_owned()
}

fn page_at(snapshot: &Snapshot, slugs: &str) -> Option<String> {
    if slugs.is_empty() {
        return None;
    }
    snapshot.page_by_path(slugs)
}
