//! Files: their bytes live in the blob store (keyed by content), their
//! descriptions in revisions. A file comes from base64 in a batch or is
//! downloaded from a URL with the guarded fetch client.

use base64::Engine as _;
use quire_content::objects::FileObject;
use quire_store::blobs::BlobStore;

use crate::changes::{FileInput, MAX_FILE_BYTES};
use crate::edits::invalid;
use quire_adapters::Fetcher;

use crate::EngineResult;

pub struct Files {
    blobs: BlobStore,
    /// The guarded client for every server-side HTTP fetch.
    pub fetcher: Fetcher,
}

impl Files {
    pub(crate) fn new(blobs: BlobStore, fetcher: Fetcher) -> Files {
        Files { blobs, fetcher }
    }

    /// A file's name, bytes and content type: decoded from `base64`, or
    /// downloaded from `url` with the guarded fetch client (http and https
    /// only, at most [`MAX_FILE_BYTES`]; the content type is the body's
    /// `contentType`, else the response's `Content-Type`).
    pub(crate) async fn load<'a>(&self, index: usize, file: &'a FileInput) -> EngineResult<(&'a str, Vec<u8>, String)> {
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

    /// Stores the bytes in the blob store and describes them as a new file.
    pub(crate) async fn store(&self, name: &str, bytes: Vec<u8>, content_type: String) -> EngineResult<FileObject> {
        let (width, height) = image_dimensions(&bytes).unzip();
        let blob = self.blobs.put(&bytes).await?;
        Ok(FileObject {
            id: quire_core::id::new_id(),
            name: name.to_owned(),
            content_type,
            size: bytes.len() as u64,
            blob,
            width,
            height,
            git: None,
        })
    }

    /// The bytes of a file.
    pub async fn bytes(&self, file: &FileObject) -> EngineResult<Vec<u8>> {
        Ok(self.blobs.get(&file.blob).await?)
    }

    /// Stores bytes that are not a file of a space (a generated PDF); their
    /// blob's name.
    pub async fn put_blob(&self, bytes: &[u8]) -> EngineResult<String> {
        Ok(self.blobs.put(bytes).await?)
    }

    /// The bytes of a blob by name.
    pub async fn blob(&self, hash: &str) -> EngineResult<Vec<u8>> {
        Ok(self.blobs.get(hash).await?)
    }
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
