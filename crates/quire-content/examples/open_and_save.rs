//! Every markdown page under a folder (a GitBook repository, say) read into
//! the JSON document an editor gets and saved back over itself unchanged,
//! as the server does for an editor's save: prints each page whose
//! markdown changed and a summary. With `--edit`, the last block of each
//! page is also replaced, and the pages whose other blocks did not keep
//! their text are printed.
//!
//!     cargo run --release -p quire-content --example open_and_save -- DIR [--edit]

use std::path::{Path, PathBuf};

use quire_content::document::{document_to_markdown_over, markdown_to_document};
use serde_json::json;

fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            pages(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: open_and_save DIR [--edit]");
        std::process::exit(2);
    };
    let edit = args.next().as_deref() == Some("--edit");
    let mut files = Vec::new();
    pages(Path::new(&dir), &mut files);
    files.sort();
    let (mut changed, mut kept_rest, mut total) = (0, 0, 0);
    let started = std::time::Instant::now();
    for file in &files {
        let Ok(markdown) = std::fs::read_to_string(file) else {
            continue;
        };
        total += 1;
        let mut document = markdown_to_document(&markdown);
        let last = document["nodes"].as_array().map_or(0, Vec::len);
        if edit && last > 0 {
            document["nodes"][last - 1] = json!({
                "object": "block", "type": "paragraph", "data": {},
                "nodes": [{ "object": "text", "leaves": [{ "object": "leaf", "text": "An edit.", "marks": [] }] }]
            });
        }
        let saved = match document_to_markdown_over(&document, &markdown) {
            Ok(saved) => saved,
            Err(error) => {
                println!("REFUSED {}: {error}", file.display());
                changed += 1;
                continue;
            }
        };
        if edit {
            // What is before the edited block is as it was.
            let common = saved.bytes().zip(markdown.bytes()).take_while(|(a, b)| a == b).count();
            let before_last = markdown_to_document(&markdown)["nodes"]
                .as_array()
                .map_or(0, |nodes| nodes.len().saturating_sub(1));
            let prefix = &markdown[..common];
            let kept = markdown_to_document(prefix)["nodes"].as_array().map_or(0, Vec::len) >= before_last;
            if kept {
                kept_rest += 1;
            } else {
                let line = markdown[..common].lines().count();
                println!(
                    "rewritten: {} (line {line}: {:?} -> {:?})",
                    file.display(),
                    markdown.lines().nth(line.saturating_sub(1)).unwrap_or(""),
                    saved.lines().nth(line.saturating_sub(1)).unwrap_or("")
                );
            }
        } else if saved != markdown {
            changed += 1;
            let line = saved
                .lines()
                .zip(markdown.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            println!(
                "changed: {} (line {}: {:?} -> {:?})",
                file.display(),
                line + 1,
                markdown.lines().nth(line).unwrap_or(""),
                saved.lines().nth(line).unwrap_or("")
            );
        }
    }
    if edit {
        println!("{total} pages, last block replaced: {kept_rest} kept every other block as written");
    } else {
        println!(
            "{total} pages opened and saved unchanged: {changed} changed ({:?})",
            started.elapsed()
        );
    }
}
