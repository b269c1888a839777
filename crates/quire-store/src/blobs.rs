//! The blob store: file bytes, named by their SHA-256.
//!
//! Blobs are immutable, so a write of bytes that exist already is a no-op
//! and readers never see a partial blob. Two homes, one layout
//! (`<root>/<first two hex digits>/<hash>`):
//! - a local directory (`<data dir>/blobs` by default), where bytes go to a
//!   temporary name first and are renamed into place;
//! - an S3-compatible bucket (`s3://bucket/prefix`, through `object_store`),
//!   where a PUT is atomic already. This is what several `quire serve`
//!   nodes in front of one PostgreSQL share.

use std::path::PathBuf;
use std::sync::Arc;

use object_store::ObjectStoreExt as _;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path as ObjectPath;

#[derive(Debug, Clone)]
pub enum BlobStore {
    /// A directory on the local disk (`<data dir>/blobs`).
    Local(PathBuf),
    /// A bucket of an S3-compatible service, under a key prefix.
    S3(S3Blobs),
}

/// Blobs in an S3-compatible bucket.
#[derive(Debug, Clone)]
pub struct S3Blobs {
    store: Arc<dyn object_store::ObjectStore>,
    /// The key prefix (may be empty).
    prefix: String,
    /// `s3://bucket/prefix`, for messages.
    url: String,
}

#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    #[error("blob {0} not found")]
    NotFound(String),
    #[error("blob storage failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("blob storage {url} failed: {source}")]
    Remote {
        url: String,
        #[source]
        source: object_store::Error,
    },
    #[error("invalid blob storage configuration: {0}")]
    Config(String),
}

/// The name of some bytes.
pub fn blob_hash(bytes: &[u8]) -> String {
    quire_core::digest::sha256_hex(bytes)
}

/// Whether `hash` can name a blob: 64 hex digits (anything else never
/// names a blob, and never escapes the store's directory or prefix).
fn valid_hash(hash: &str) -> bool {
    hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

impl BlobStore {
    /// The store a `--blob-url` names: `s3://bucket[/prefix]` (credentials,
    /// region and endpoint from the `AWS_*` settings in `env`, which the
    /// binary takes from its environment as the AWS tools do), `file:///dir`
    /// or a plain directory path.
    pub fn from_url_and_env(
        url: &str,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<BlobStore, BlobError> {
        let url = url.trim();
        if let Some(rest) = url.strip_prefix("s3://") {
            return S3Blobs::open(rest, env).map(BlobStore::S3);
        }
        if let Some(path) = url.strip_prefix("file://") {
            if path.is_empty() {
                return Err(BlobError::Config(format!("{url:?} names no directory")));
            }
            return Ok(BlobStore::Local(PathBuf::from(path)));
        }
        if url.is_empty() || url.contains("://") {
            return Err(BlobError::Config(format!(
                "{url:?}: expected s3://bucket/prefix, file:///directory or a directory path"
            )));
        }
        Ok(BlobStore::Local(PathBuf::from(url)))
    }

    /// Stores the bytes and returns their hash.
    pub async fn put(&self, bytes: &[u8]) -> Result<String, BlobError> {
        let hash = blob_hash(bytes);
        match self {
            BlobStore::Local(dir) => {
                let path = local_path(dir, &hash);
                if tokio::fs::try_exists(&path).await? {
                    return Ok(hash);
                }
                if let Some(dir) = path.parent() {
                    tokio::fs::create_dir_all(dir).await?;
                }
                let temporary = path.with_extension(format!("tmp-{}", quire_core::id::new_id()));
                tokio::fs::write(&temporary, bytes).await?;
                tokio::fs::rename(&temporary, &path).await?;
            }
            BlobStore::S3(s3) => s3.put(&hash, bytes).await?,
        }
        Ok(hash)
    }

    pub async fn get(&self, hash: &str) -> Result<Vec<u8>, BlobError> {
        if !valid_hash(hash) {
            return Err(BlobError::NotFound(hash.to_owned()));
        }
        match self {
            BlobStore::Local(dir) => match tokio::fs::read(local_path(dir, hash)).await {
                Ok(bytes) => Ok(bytes),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(BlobError::NotFound(hash.to_owned())),
                Err(err) => Err(err.into()),
            },
            BlobStore::S3(s3) => s3.get(hash).await,
        }
    }
}

fn local_path(dir: &std::path::Path, hash: &str) -> PathBuf {
    dir.join(&hash[..2]).join(hash)
}

impl S3Blobs {
    /// Opens `bucket[/prefix]` with the `AWS_*` settings in `env`
    /// (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_REGION`, ...). An `http://` endpoint (MinIO, moto, a local
    /// gateway) is allowed as such.
    fn open(location: &str, env: impl IntoIterator<Item = (String, String)>) -> Result<S3Blobs, BlobError> {
        let (bucket, prefix) = location.split_once('/').unwrap_or((location, ""));
        let prefix = prefix.trim_matches('/');
        if bucket.is_empty() {
            return Err(BlobError::Config(format!("s3://{location}: the bucket is missing")));
        }
        let mut builder = AmazonS3Builder::new().with_bucket_name(bucket);
        for (key, value) in env {
            if !key.starts_with("AWS_") {
                continue;
            }
            if let Ok(config) = key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
                if matches!(config, AmazonS3ConfigKey::Endpoint) && value.starts_with("http://") {
                    builder = builder.with_allow_http(true);
                }
                builder = builder.with_config(config, value);
            }
        }
        let url = if prefix.is_empty() {
            format!("s3://{bucket}")
        } else {
            format!("s3://{bucket}/{prefix}")
        };
        let store = builder.build().map_err(|e| BlobError::Config(format!("{url}: {e}")))?;
        Ok(S3Blobs {
            store: Arc::new(store),
            prefix: prefix.to_owned(),
            url,
        })
    }

    fn key(&self, hash: &str) -> ObjectPath {
        let key = format!("{}/{hash}", &hash[..2]);
        if self.prefix.is_empty() {
            ObjectPath::from(key)
        } else {
            ObjectPath::from(format!("{}/{key}", self.prefix))
        }
    }

    fn failed(&self, source: object_store::Error) -> BlobError {
        BlobError::Remote {
            url: self.url.clone(),
            source,
        }
    }

    async fn put(&self, hash: &str, bytes: &[u8]) -> Result<(), BlobError> {
        let key = self.key(hash);
        match self.store.head(&key).await {
            Ok(_) => return Ok(()),
            Err(object_store::Error::NotFound { .. }) => {}
            Err(err) => return Err(self.failed(err)),
        }
        self.store
            .put(&key, bytes.to_vec().into())
            .await
            .map_err(|e| self.failed(e))?;
        Ok(())
    }

    async fn get(&self, hash: &str) -> Result<Vec<u8>, BlobError> {
        let result = match self.store.get(&self.key(hash)).await {
            Ok(result) => result,
            Err(object_store::Error::NotFound { .. }) => return Err(BlobError::NotFound(hash.to_owned())),
            Err(err) => return Err(self.failed(err)),
        };
        let bytes = result.bytes().await.map_err(|e| self.failed(e))?;
        Ok(bytes.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_urls() {
        let none = std::iter::empty::<(String, String)>;
        assert!(
            matches!(BlobStore::from_url_and_env("/tmp/b", none()), Ok(BlobStore::Local(p)) if p == std::path::Path::new("/tmp/b"))
        );
        assert!(
            matches!(BlobStore::from_url_and_env("file:///tmp/b", none()), Ok(BlobStore::Local(p)) if p == std::path::Path::new("/tmp/b"))
        );
        assert!(matches!(
            BlobStore::from_url_and_env("gs://x", none()),
            Err(BlobError::Config(_))
        ));
        assert!(matches!(
            BlobStore::from_url_and_env("s3://", none()),
            Err(BlobError::Config(_))
        ));
        let env = [
            ("AWS_ENDPOINT_URL".to_owned(), "http://127.0.0.1:9".to_owned()),
            ("AWS_REGION".to_owned(), "us-east-1".to_owned()),
            ("HOME".to_owned(), "/root".to_owned()),
        ];
        let Ok(BlobStore::S3(s3)) = BlobStore::from_url_and_env("s3://bucket/some/prefix/", env) else {
            panic!("an s3 URL opens an S3 store");
        };
        assert_eq!(s3.url, "s3://bucket/some/prefix");
        let hash = blob_hash(b"x");
        assert_eq!(s3.key(&hash).as_ref(), format!("some/prefix/{}/{hash}", &hash[..2]));
    }
}
