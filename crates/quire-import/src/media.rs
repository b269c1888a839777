//! Media types of files by their extension, for files that arrive without
//! one (from Git, archives, websites).

/// The media type of a file named `name`; `application/octet-stream` when
/// the extension says nothing.
pub fn content_type_of(name: &str) -> &'static str {
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "bmp" => "image/bmp",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "zip" => "application/zip",
        "txt" => "text/plain",
        "csv" => "text/csv",
        "md" => "text/markdown",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "js" => "text/javascript",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn extensions_name_their_types() {
        assert_eq!(super::content_type_of("logo.PNG"), "image/png");
        assert_eq!(super::content_type_of("a/b/diagram.svg"), "image/svg+xml");
        assert_eq!(super::content_type_of("README"), "application/octet-stream");
    }
}
