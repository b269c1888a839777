//! The blob store: file bytes, named by their SHA-256.
//!
//! Blobs are immutable, so a write of bytes that exist already is a no-op
//! and readers never see a partial file (bytes go to a temporary name first
//! and are renamed into place).

use std::path::PathBuf;

use sha2::{Digest, Sha256};

#[derive(Debug, Clone)]
pub enum BlobStore {
    /// A directory on the local disk (`<data dir>/blobs`).
    Local(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    #[error("blob {0} not found")]
    NotFound(String),
    #[error("blob storage failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The name of some bytes.
pub fn blob_hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl BlobStore {
    fn path(&self, hash: &str) -> Option<PathBuf> {
        // Hashes are hex; anything else never names a blob (and never
        // escapes the directory).
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        match self {
            BlobStore::Local(dir) => Some(dir.join(&hash[..2]).join(hash)),
        }
    }

    /// Stores the bytes and returns their hash.
    pub async fn put(&self, bytes: &[u8]) -> Result<String, BlobError> {
        let hash = blob_hash(bytes);
        let path = self.path(&hash).expect("a fresh hash names a blob");
        if tokio::fs::try_exists(&path).await? {
            return Ok(hash);
        }
        if let Some(dir) = path.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        let temporary = path.with_extension(format!("tmp-{}", quire_core::id::new_id()));
        tokio::fs::write(&temporary, bytes).await?;
        tokio::fs::rename(&temporary, &path).await?;
        Ok(hash)
    }

    pub async fn get(&self, hash: &str) -> Result<Vec<u8>, BlobError> {
        let path = self.path(hash).ok_or_else(|| BlobError::NotFound(hash.to_owned()))?;
        match tokio::fs::read(&path).await {
            Ok(bytes) => Ok(bytes),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(BlobError::NotFound(hash.to_owned())),
            Err(err) => Err(err.into()),
        }
    }
}
