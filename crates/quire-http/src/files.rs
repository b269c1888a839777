//! How a stored file is answered, wherever it is streamed from (a space's
//! `downloadURL`, a published site's `~files`): never as active content on
//! Quire's origins. An uploader chooses a file's name and content type, so
//! an HTML or SVG file would otherwise run its scripts with the signed-in
//! reader's session on the web application's origin.
//!
//! - raster images, audio, video and PDFs are shown inline (pages and the
//!   editor show them); everything else is an attachment, downloaded under
//!   its name, never rendered;
//! - `X-Content-Type-Options: nosniff`, so no browser guesses a type that
//!   runs;
//! - a content security policy that runs nothing: `sandbox` (an opaque
//!   origin: no cookies, no same-origin requests), no scripts, no plugins.
//!   PDFs alone are left without `sandbox`, which would block Chromium's
//!   PDF viewer; a PDF's own scripts never reach the page's origin there.

use axum::http::{HeaderMap, HeaderValue, header};

/// The policy of a stored file: shown, never run.
pub const FILE_POLICY: &str = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox; \
     frame-ancestors 'self'";

/// The policy of a stored PDF (see the module's documentation).
const PDF_POLICY: &str = "default-src 'none'; frame-ancestors 'self'";

/// Whether a file of this type is shown inline rather than downloaded.
pub fn shown_inline(content_type: &str) -> bool {
    let essence = essence(content_type);
    match essence.split_once('/') {
        Some(("image", subtype)) => matches!(
            subtype,
            "png" | "jpeg" | "jpg" | "gif" | "webp" | "avif" | "bmp" | "x-icon" | "vnd.microsoft.icon"
        ),
        Some(("audio" | "video", _)) => true,
        _ => essence == "application/pdf",
    }
}

/// The media type without parameters, in lower case.
fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Sets the headers of a stored file's answer: its type (or
/// `application/octet-stream` when the stored one is not a header value),
/// how it is shown, `nosniff` and its policy.
pub fn headers(headers: &mut HeaderMap, content_type: &str, file_name: &str) {
    let content_type = HeaderValue::from_str(content_type)
        .ok()
        .filter(|_| essence(content_type).contains('/'))
        .unwrap_or_else(|| HeaderValue::from_static("application/octet-stream"));
    let kind = content_type.to_str().unwrap_or_default().to_owned();
    headers.insert(header::CONTENT_TYPE, content_type);
    let disposition = if shown_inline(&kind) { "inline" } else { "attachment" };
    if let Ok(value) = HeaderValue::from_str(&disposition_value(disposition, file_name)) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    let policy = if essence(&kind) == "application/pdf" {
        PDF_POLICY
    } else {
        FILE_POLICY
    };
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
}

/// `inline; filename="…"` (RFC 6266): the name as it is when it is plain
/// ASCII, else an ASCII stand-in (one `_` for each other character) and the
/// exact name percent-encoded as `filename*`.
pub fn disposition_value(disposition: &str, file_name: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    if file_name.chars().all(plain) {
        return format!("{disposition}; filename=\"{file_name}\"");
    }
    let ascii: String = file_name
        .chars()
        .take(200)
        .map(|c| if plain(c) { c } else { '_' })
        .collect();
    let encoded = quire_core::percent::encode_component(file_name);
    format!("{disposition}; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(content_type: &str, name: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        headers(&mut map, content_type, name);
        map
    }

    #[test]
    fn active_types_are_attachments_in_a_sandbox() {
        for kind in [
            "text/html",
            "TEXT/HTML; charset=utf-8",
            "image/svg+xml",
            "application/xhtml+xml",
            "text/xml",
            "application/javascript",
            "application/octet-stream",
        ] {
            let map = answered(kind, "page.html");
            let disposition = map[header::CONTENT_DISPOSITION].to_str().unwrap();
            assert!(disposition.starts_with("attachment;"), "{kind}: {disposition}");
            assert!(
                map[header::CONTENT_SECURITY_POLICY]
                    .to_str()
                    .unwrap()
                    .contains("sandbox"),
                "{kind}"
            );
            assert_eq!(map[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        }
    }

    #[test]
    fn images_media_and_pdfs_stay_inline() {
        for kind in ["image/png", "image/jpeg", "image/webp", "video/mp4", "audio/mpeg"] {
            let map = answered(kind, "a");
            assert!(
                map[header::CONTENT_DISPOSITION]
                    .to_str()
                    .unwrap()
                    .starts_with("inline;"),
                "{kind}"
            );
            assert!(
                map[header::CONTENT_SECURITY_POLICY]
                    .to_str()
                    .unwrap()
                    .contains("sandbox"),
                "{kind}"
            );
        }
        let pdf = answered("application/pdf", "guide.pdf");
        assert!(
            pdf[header::CONTENT_DISPOSITION]
                .to_str()
                .unwrap()
                .starts_with("inline;")
        );
        assert!(
            !pdf[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap()
                .contains("script")
        );
    }

    #[test]
    fn odd_types_and_names_stay_harmless() {
        let map = answered("nonsense", "x");
        assert_eq!(map[header::CONTENT_TYPE], "application/octet-stream");
        assert!(
            map[header::CONTENT_DISPOSITION]
                .to_str()
                .unwrap()
                .starts_with("attachment;")
        );
        let named = answered("text/html", "a\"b\r\nc é.html");
        let disposition = named[header::CONTENT_DISPOSITION].to_str().unwrap();
        assert!(
            disposition
                .starts_with("attachment; filename=\"a_b__c__.html\"; filename*=UTF-8''a%22b%0D%0Ac%20%C3%A9.html")
        );
        assert!(!disposition.contains('\r'));
    }
}
