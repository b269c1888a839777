//! Zip archives of markdown (as Docmost, Outline and Notion export them),
//! read into files with paths inside the archive, within bounds.

use std::io::Read;

/// Most entries an archive may have.
pub const MAX_ENTRIES: usize = 10_000;
/// Most bytes its files may hold once uncompressed (256 MiB).
pub const MAX_UNCOMPRESSED: u64 = 256 * 1024 * 1024;

/// The files of a zip archive: `(path, bytes)`, folders and paths that
/// leave the archive (`../`) left out.
pub fn unzip(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| format!("not a zip archive: {e}"))?;
    if archive.len() > MAX_ENTRIES {
        return Err(format!(
            "the archive has {} entries; at most {MAX_ENTRIES} are read",
            archive.len()
        ));
    }
    let mut files = Vec::new();
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| format!("entry {i}: {e}"))?;
        if entry.is_dir() {
            continue;
        }
        let Some(path) = crate::gitbook::clean_path(&entry.name().replace('\\', "/")).filter(|p| !p.is_empty()) else {
            continue;
        };
        if path.split('/').any(|s| s == "__MACOSX" || s.starts_with("._")) {
            continue;
        }
        let size = entry.size();
        total += size;
        if total > MAX_UNCOMPRESSED {
            return Err(format!(
                "the archive holds more than {MAX_UNCOMPRESSED} bytes once uncompressed"
            ));
        }
        let mut content = Vec::with_capacity(size.min(16 * 1024 * 1024) as usize);
        // The declared size may lie: read at most one byte past it.
        (&mut entry)
            .take(size + 1)
            .read_to_end(&mut content)
            .map_err(|e| format!("{path}: {e}"))?;
        if content.len() as u64 > size {
            return Err(format!("{path}: larger than the archive says"));
        }
        files.push((path, content));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn archives_are_read_and_escapes_refused() {
        let mut buffer = std::io::Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut buffer);
            let options = zip::write::SimpleFileOptions::default();
            zip.start_file("notes/a.md", options).unwrap();
            zip.write_all(b"# A\n").unwrap();
            zip.start_file("../evil.md", options).unwrap();
            zip.write_all(b"no").unwrap();
            zip.add_directory("empty/", options).unwrap();
            zip.finish().unwrap();
        }
        let files = unzip(buffer.get_ref()).unwrap();
        assert_eq!(files, [("notes/a.md".to_owned(), b"# A\n".to_vec())]);
        assert!(unzip(b"not a zip").is_err());
    }
}
