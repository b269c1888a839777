//! The stored forms of content: immutable objects named by the SHA-256 of
//! their kind and bytes. A page node names its document and its children by
//! hash, so a tree is shared between revisions except along the path of a
//! change.

use serde::{Deserialize, Serialize};

use crate::tree::PageMeta;

/// The hash naming an object of `kind` with `body`.
pub fn object_hash(kind: &str, body: &str) -> String {
    let mut hasher = quire_core::digest::Hasher::new();
    hasher.part(kind.as_bytes()).update(body.as_bytes());
    hasher.hex()
}

/// The root of a revision: its top-level pages, its files and its
/// reusable contents (by object hash).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootObject {
    pub pages: Vec<String>,
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reusable: Vec<String>,
}

/// One page of a tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeObject {
    pub id: String,
    pub meta: PageMeta,
    /// Node hashes of the children, in order.
    pub children: Vec<String>,
    #[serde(rename = "createdAt")]
    pub created_at: i64,
    #[serde(rename = "updatedAt")]
    pub updated_at: i64,
}

/// A file's metadata; its bytes live in the blob store under `blob`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileObject {
    pub id: String,
    pub name: String,
    #[serde(rename = "contentType")]
    pub content_type: String,
    pub size: u64,
    /// SHA-256 of the bytes.
    pub blob: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Where the file is in a synced Git repository, when it came from or
    /// went to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitBlob>,
}

/// A blob of a Git repository: its object id and its path from the
/// project's root (`guides/setup.md`, `.gitbook/assets/logo.png`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GitBlob {
    pub oid: String,
    pub path: String,
}

/// Reusable content: a titled document that pages include
/// (`{% include %}`), kept with the revision like its files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReusableObject {
    pub id: String,
    pub title: String,
    /// Hash of its document object.
    pub document: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitBlob>,
}

/// Object kinds, part of every hash so equal bytes of different kinds differ.
pub const ROOT: &str = "root";
pub const NODE: &str = "node";
pub const DOCUMENT: &str = "doc";
pub const FILE: &str = "file";
pub const REUSABLE: &str = "reusable";

/// Serializes a structured object and names it.
pub fn encode<T: Serialize>(kind: &str, object: &T) -> (String, String) {
    let body = serde_json::to_string(object).expect("content objects serialize");
    (object_hash(kind, &body), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_root_has_the_hash_the_migration_uses() {
        let (hash, body) = encode(ROOT, &RootObject::default());
        assert_eq!(body, r#"{"pages":[],"files":[]}"#);
        assert_eq!(hash, "0ea2014bc5b3c7f2185765061d6e5fa932c16e5240f771de5801af449cb1fe9f");
    }

    #[test]
    fn kinds_separate_equal_bodies() {
        assert_ne!(object_hash(NODE, "x"), object_hash(DOCUMENT, "x"));
    }
}
