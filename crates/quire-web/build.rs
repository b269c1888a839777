//! Embeds the web application's built files (`web/dist`, made by `npm run
//! build` and committed) into the binary: one table entry per file with its
//! gzip and brotli copies when the build wrote them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if !matches!(path.extension().and_then(|e| e.to_str()), Some("gz" | "br")) {
            out.push(path);
        }
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dist = manifest.join("../../web/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut found = Vec::new();
    files(&dist, &mut found);
    let mut table = String::from("&[\n");
    for path in &found {
        let name = path
            .strip_prefix(&dist)
            .expect("a file of dist")
            .to_string_lossy()
            .replace('\\', "/");
        println!("cargo:rerun-if-changed={}", path.display());
        let copy = |suffix: &str| {
            let mut p = path.clone().into_os_string();
            p.push(suffix);
            let p = PathBuf::from(p);
            if p.exists() {
                format!("Some(include_bytes!({:?}))", p.display().to_string())
            } else {
                "None".to_owned()
            }
        };
        let _ = writeln!(
            table,
            "    Asset {{ path: {name:?}, content_type: {:?}, bytes: include_bytes!({:?}), gzip: {}, brotli: {} }},",
            content_type(path),
            path.display().to_string(),
            copy(".gz"),
            copy(".br"),
        );
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("assets.rs");
    std::fs::write(out, table).expect("write the asset table");
}
