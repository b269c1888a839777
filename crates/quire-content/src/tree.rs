//! Page trees in flat form: every page keyed by its stable id, with its
//! parent and its rank among its siblings.
//!
//! The maps are persistent (`imbl`): cloning a tree is O(1) and a change
//! copies only the path to what changed, so an edit of one page in a space
//! of ten thousand does not copy the other pages.

use imbl::OrdMap;

use serde::{Deserialize, Serialize};

/// What a page is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PageKind {
    /// A page with a markdown document.
    Document,
    /// A heading that only groups other pages.
    Group,
    /// An entry that points elsewhere.
    Link { target: String },
}

/// Everything about a page except its place in the tree and its children.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PageMeta {
    pub title: String,
    pub slug: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emoji: Option<String>,
    #[serde(default)]
    pub hidden: bool,
    /// Adaptive content: the expression deciding whether a published
    /// site's visitor sees the page (`visitor.claims.plan == "pro"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The page's file in a synced Git repository (`guides/setup.md`,
    /// `guides/README.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<crate::objects::GitBlob>,
    /// The title shown in navigation instead of the title (`linkTitle`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_title: Option<String>,
    pub kind: PageKind,
    /// Hash of the page's document object (document pages only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
}

/// A page in a flat tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatPage {
    pub meta: PageMeta,
    /// `None` for top-level pages.
    pub parent: Option<String>,
}

/// All pages of a revision, with the order of every parent's children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlatTree {
    pub pages: OrdMap<String, FlatPage>,
    /// Children of each parent in order; the key `None` holds the top level.
    pub children: OrdMap<Option<String>, Vec<String>>,
}

impl FlatTree {
    /// Adds `id` as the last child of `parent`.
    pub fn push(&mut self, id: &str, parent: Option<&str>, meta: PageMeta) {
        self.pages.insert(
            id.to_owned(),
            FlatPage {
                meta,
                parent: parent.map(str::to_owned),
            },
        );
        self.children
            .entry(parent.map(str::to_owned))
            .or_default()
            .push(id.to_owned());
    }

    pub fn children_of(&self, parent: Option<&str>) -> &[String] {
        self.children
            .get(&parent.map(str::to_owned))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// True when `ancestor` is `id` or above it.
    pub fn is_ancestor(&self, ancestor: &str, id: &str) -> bool {
        let mut current = Some(id.to_owned());
        let mut steps = 0;
        while let Some(page) = current {
            if page == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.pages.len() {
                return false;
            }
            current = self.pages.get(&page).and_then(|p| p.parent.clone());
        }
        false
    }

    /// Ids of `id` and every page below it.
    pub fn subtree(&self, id: &str) -> Vec<String> {
        let mut out = vec![id.to_owned()];
        let mut i = 0;
        while i < out.len() {
            let kids = self.children_of(Some(&out[i])).to_vec();
            out.extend(kids);
            i += 1;
        }
        out
    }

    /// Removes `id` and its subtree.
    pub fn remove(&mut self, id: &str) {
        let Some(page) = self.pages.get(id) else { return };
        let parent = page.parent.clone();
        if let Some(siblings) = self.children.get_mut(&parent) {
            siblings.retain(|s| s != id);
        }
        for gone in self.subtree(id) {
            self.pages.remove(&gone);
            self.children.remove(&Some(gone));
        }
    }

    /// Moves `id` under `parent` at `index` (clamped); the caller makes sure
    /// `parent` is not inside `id`'s subtree.
    pub fn place(&mut self, id: &str, parent: Option<&str>, index: usize) {
        let Some(page) = self.pages.get_mut(id) else { return };
        let old = page.parent.clone();
        page.parent = parent.map(str::to_owned);
        if let Some(siblings) = self.children.get_mut(&old) {
            siblings.retain(|s| s != id);
        }
        let siblings = self.children.entry(parent.map(str::to_owned)).or_default();
        let index = index.min(siblings.len());
        siblings.insert(index, id.to_owned());
    }

    /// Pages in depth-first order with their depth.
    pub fn walk(&self) -> Vec<(String, usize)> {
        fn visit(tree: &FlatTree, parent: Option<&str>, depth: usize, out: &mut Vec<(String, usize)>) {
            for id in tree.children_of(parent) {
                out.push((id.clone(), depth));
                visit(tree, Some(id), depth + 1, out);
            }
        }
        let mut out = Vec::with_capacity(self.pages.len());
        visit(self, None, 0, &mut out);
        out
    }
}
