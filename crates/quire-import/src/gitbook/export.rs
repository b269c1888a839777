//! A space written as GitBook's layout: every page a markdown file at its
//! Git path (new pages get one under their parent's folder), files under
//! `.gitbook/assets`, reusable content under `.gitbook/includes`, and the
//! table of contents.
//!
//! Minimal diffs: a page's markdown is written as stored, so a page that
//! came from Git and did not change is the same bytes. Only what the file
//! would otherwise get wrong is rewritten: links to pages and files by id
//! (`/pages/<id>`, written by the API) become relative paths, front matter
//! follows the page's description, `hidden` and condition, the leading
//! `# heading` follows the title. A summary that still describes the tree
//! is kept as it was.

use std::collections::{HashMap, HashSet};

use quire_content::markdown::{front_matter_value, leading_heading, split_front_matter};

use super::config::Config;
use super::plan::{RepoFile, folder_of, plan};
use super::summary::{self, Entry, Target};

/// A page to write, in tree order (a parent before its children).
#[derive(Debug, Clone)]
pub struct ExportPage<'a> {
    pub id: &'a str,
    pub parent: Option<&'a str>,
    pub title: &'a str,
    pub link_title: Option<&'a str>,
    pub slug: &'a str,
    pub kind: ExportKind<'a>,
    /// Where the page was in the repository, if it was.
    pub git_path: Option<&'a str>,
    pub description: Option<&'a str>,
    pub hidden: bool,
    pub condition: Option<&'a str>,
}

#[derive(Debug, Clone)]
pub enum ExportKind<'a> {
    Document { markdown: &'a str },
    Group,
    Link { url: &'a str },
}

/// A file to write.
#[derive(Debug, Clone)]
pub struct ExportItem<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub git_path: Option<&'a str>,
}

/// Reusable content to write (under `.gitbook/includes`).
#[derive(Debug, Clone)]
pub struct ExportInclude<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub git_path: Option<&'a str>,
    pub markdown: &'a str,
}

/// What a file of the export holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Text(String),
    /// The bytes of the space's file with this id.
    File(String),
}

/// The files of an export, and where each page, file and reusable content
/// went.
#[derive(Debug, Clone, Default)]
pub struct Exported {
    pub files: Vec<(String, Content)>,
    pub paths: HashMap<String, String>,
}

/// Where the summary of the previous sync was, and what it said.
#[derive(Debug, Clone, Copy)]
pub struct PreviousSummary<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

/// `to` relative to the folder `from` (`../b/c.md`).
pub fn relative_path(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
    let common = from.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to_parts[common..]);
    let joined = parts.join("/");
    if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    }
}

fn is_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Rewrites `/pages/<id>` and `/files/<id>` link targets (in `](…)` and
/// `url="…"`) and reusable content named by id (`{% include "<id>" %}`) to
/// paths relative to `folder`.
fn relative_links(markdown: &str, folder: &str, paths: &HashMap<String, String>) -> String {
    let markdown = include_paths(markdown, folder, paths);
    let markdown = markdown.as_str();
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(at) = rest.find(['(', '"']) {
        let (before, after) = rest.split_at(at + 1);
        out.push_str(before);
        rest = after;
        for prefix in ["/pages/", "/files/"] {
            let Some(tail) = rest.strip_prefix(prefix) else {
                continue;
            };
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(tail.len());
            let id = &tail[..end];
            if let Some(path) = paths.get(id).filter(|_| is_id(id)) {
                out.push_str(&relative_path(folder, path));
                rest = &tail[end..];
            }
            break;
        }
    }
    out.push_str(rest);
    out
}

/// `{% include "<id>" %}` lines naming reusable content by id, with its path
/// relative to `folder` instead.
fn include_paths(markdown: &str, folder: &str, paths: &HashMap<String, String>) -> String {
    if !markdown.contains("{% include \"") {
        return markdown.to_owned();
    }
    markdown
        .split_inclusive('\n')
        .map(|line| {
            let id = line
                .trim_end()
                .strip_prefix("{% include \"")
                .and_then(|rest| rest.strip_suffix("\" %}"))
                .filter(|id| is_id(id));
            match id.and_then(|id| paths.get(id)) {
                Some(path) => {
                    let end = if line.ends_with('\n') { "\n" } else { "" };
                    format!("{{% include \"{}\" %}}{end}", relative_path(folder, path))
                }
                None => line.to_owned(),
            }
        })
        .collect()
}

/// A front matter value as YAML: plain when safe, else single-quoted.
fn yaml_value(value: &str) -> String {
    let plain = !value.is_empty()
        && !value.starts_with(|c: char| "'\"!&*[]{}|>%@`#,?:-".contains(c) || c.is_whitespace())
        && !value.ends_with(char::is_whitespace)
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.contains('\n');
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\n', " ").replace('\'', "''"))
    }
}

/// `markdown` with the front matter key set to `value` (or removed), left
/// as it is when it already says that.
fn set_front_matter(markdown: &str, key: &str, value: Option<&str>) -> String {
    let (front, body) = split_front_matter(markdown);
    if front.and_then(|f| front_matter_value(f, key)).as_deref() == value {
        return markdown.to_owned();
    }
    let line = value.map(|v| format!("{key}: {}\n", yaml_value(v)));
    let Some(front) = front else {
        return match line {
            Some(line) => format!("---\n{line}---\n\n{markdown}"),
            None => markdown.to_owned(),
        };
    };
    let mut lines: Vec<String> = Vec::new();
    let mut replaced = false;
    let mut skipping = false;
    for l in front.split_inclusive('\n') {
        let is_key = l.split_once(':').is_some_and(|(k, _)| k.trim() == key) && !l.starts_with(char::is_whitespace);
        if is_key {
            skipping = true;
            if let Some(line) = &line {
                lines.push(line.clone());
                replaced = true;
            }
            continue;
        }
        // A folded value's lines belong to the key before them.
        if skipping && l.starts_with(char::is_whitespace) {
            continue;
        }
        skipping = false;
        lines.push(if l.ends_with('\n') {
            l.to_owned()
        } else {
            format!("{l}\n")
        });
    }
    if let (Some(line), false) = (&line, replaced) {
        lines.push(line.clone());
    }
    if lines.is_empty() {
        return body.trim_start_matches('\n').to_owned();
    }
    format!("---\n{}---\n{body}", lines.concat())
}

/// `markdown` with its leading `# heading` saying `title`; `add` puts one
/// in when there is none.
fn set_heading(markdown: &str, title: &str, add: bool) -> String {
    let (front, body) = split_front_matter(markdown);
    let head = &markdown[..markdown.len() - body.len()];
    match leading_heading(body) {
        Some(current) if current == title => markdown.to_owned(),
        Some(_) => {
            let line_start = body.find("# ").unwrap_or(0);
            let line_end = body[line_start..].find('\n').map_or(body.len(), |e| line_start + e);
            format!("{head}{}# {title}{}", &body[..line_start], &body[line_end..])
        }
        None if add => {
            let separator = if front.is_some() { "\n" } else { "" };
            let rest = body.trim_start_matches('\n');
            if rest.is_empty() {
                format!("{head}{separator}# {title}\n")
            } else {
                format!("{head}{separator}# {title}\n\n{rest}")
            }
        }
        None => markdown.to_owned(),
    }
}

/// A free path: `wanted`, or `stem-2.md`… when taken.
fn free_path(taken: &mut HashSet<String>, wanted: String) -> String {
    if taken.insert(wanted.clone()) {
        return wanted;
    }
    let (stem, ext) = match wanted.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') => (stem.to_owned(), format!(".{ext}")),
        _ => (wanted.clone(), String::new()),
    };
    let mut n = 2;
    loop {
        let candidate = format!("{stem}-{n}{ext}");
        if taken.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}

/// The folder a page's children go to: `a/b` for `a/b/README.md` and for
/// `a/b.md`.
fn children_folder(path: &str) -> String {
    let path = path.strip_suffix("/README.md").unwrap_or(path);
    let path = if path == "README.md" { "" } else { path };
    path.strip_suffix(".md").unwrap_or(path).to_owned()
}

/// Writes the space as files. `previous` is the summary of the last sync
/// (kept when it still describes the tree).
pub fn export(
    pages: &[ExportPage<'_>],
    files: &[ExportItem<'_>],
    includes: &[ExportInclude<'_>],
    config: &Config,
    previous: Option<PreviousSummary<'_>>,
) -> Exported {
    let root = config.root.as_str();
    let mut taken: HashSet<String> = pages
        .iter()
        .filter_map(|p| p.git_path.map(str::to_owned))
        .chain(files.iter().filter_map(|f| f.git_path.map(str::to_owned)))
        .chain(includes.iter().filter_map(|i| i.git_path.map(str::to_owned)))
        .collect();
    let mut exported = Exported::default();
    // Paths first: links between pages need every target's path.
    let mut folders: HashMap<&str, String> = HashMap::new();
    for page in pages {
        let folder = match page.parent.and_then(|p| folders.get(p)) {
            Some(folder) => folder.clone(),
            None => root.trim_end_matches('/').to_owned(),
        };
        let join = |name: &str| {
            if folder.is_empty() {
                name.to_owned()
            } else {
                format!("{folder}/{name}")
            }
        };
        let path = match (&page.kind, page.git_path) {
            (ExportKind::Document { .. }, Some(path)) => Some(path.to_owned()),
            (ExportKind::Document { .. }, None) => {
                let first = page.parent.is_none() && exported.paths.is_empty();
                let wanted = if first {
                    join(&config.readme)
                } else {
                    join(&format!("{}.md", page.slug))
                };
                Some(free_path(&mut taken, wanted))
            }
            _ => None,
        };
        let child_folder = match &path {
            Some(path) => children_folder(path),
            None if page.parent.is_some() => join(page.slug),
            None => folder.clone(),
        };
        folders.insert(page.id, child_folder);
        if let Some(path) = path {
            exported.paths.insert(page.id.to_owned(), path);
        }
    }
    for file in files {
        let path = match file.git_path {
            Some(path) => path.to_owned(),
            None => free_path(
                &mut taken,
                format!("{root}.gitbook/assets/{}", file.name.replace('/', "_")),
            ),
        };
        exported.paths.insert(file.id.to_owned(), path);
    }
    for include in includes {
        let path = match include.git_path {
            Some(path) => path.to_owned(),
            None => free_path(
                &mut taken,
                format!(
                    "{root}.gitbook/includes/{}.md",
                    quire_content::markdown::slugify(include.title)
                ),
            ),
        };
        exported.paths.insert(include.id.to_owned(), path);
    }
    for page in pages {
        let (ExportKind::Document { markdown }, Some(path)) = (&page.kind, exported.paths.get(page.id)) else {
            continue;
        };
        let mut text = relative_links(markdown, folder_of(path), &exported.paths);
        text = set_front_matter(&text, "description", page.description.filter(|d| !d.is_empty()));
        text = set_front_matter(&text, "hidden", page.hidden.then_some("true"));
        text = set_front_matter(&text, "if", page.condition);
        // The title lives where the file keeps it: its front matter's
        // `title`, or else its leading heading.
        let titled_in_front = split_front_matter(&text)
            .0
            .is_some_and(|front| front_matter_value(front, "title").is_some());
        text = if titled_in_front {
            set_front_matter(&text, "title", Some(page.title))
        } else {
            set_heading(&text, page.title, page.git_path.is_none())
        };
        exported.files.push((path.clone(), Content::Text(text)));
    }
    for include in includes {
        let path = exported.paths[include.id].clone();
        let text = relative_links(include.markdown, folder_of(&path), &exported.paths);
        exported.files.push((path, Content::Text(text)));
    }
    for file in files {
        exported
            .files
            .push((exported.paths[file.id].clone(), Content::File(file.id.to_owned())));
    }
    // The table of contents, relative to the summary's folder.
    let summary_path = previous.map_or_else(|| format!("{root}{}", config.summary), |p| p.path.to_owned());
    let summary_folder = folder_of(&summary_path).to_owned();
    let entries = summary_entries(pages, None, &exported.paths, &summary_folder);
    let generated = summary::write(&entries);
    let text = match previous {
        Some(p) if summary::parse(p.text) == summary::parse(&generated) => Some(p.text.to_owned()),
        Some(_) => Some(generated),
        None if folders_describe(&exported, pages, config) => None,
        None => Some(generated),
    };
    if let Some(text) = text {
        exported.files.push((summary_path, Content::Text(text)));
    }
    exported
}

fn summary_entries(
    pages: &[ExportPage<'_>],
    parent: Option<&str>,
    paths: &HashMap<String, String>,
    folder: &str,
) -> Vec<Entry> {
    pages
        .iter()
        .filter(|p| p.parent == parent)
        .map(|page| {
            let target = match (&page.kind, paths.get(page.id)) {
                (ExportKind::Document { .. }, Some(path)) => {
                    let relative = relative_path(folder, path);
                    Target::File(relative.strip_prefix("./").unwrap_or(&relative).to_owned())
                }
                (ExportKind::Link { url }, _) => Target::Url((*url).to_owned()),
                _ if parent.is_none() => Target::Group,
                _ => Target::Nothing,
            };
            Entry {
                title: page.title.to_owned(),
                link_title: page.link_title.map(str::to_owned),
                slug: matches!(target, Target::Group).then(|| page.slug.to_owned()),
                target,
                children: summary_entries(pages, Some(page.id), paths, folder),
            }
        })
        .collect()
}

/// Whether reading the exported files without a summary gives the same
/// tree (titles, kinds, places): then no summary is written.
fn folders_describe(exported: &Exported, pages: &[ExportPage<'_>], config: &Config) -> bool {
    let texts: HashMap<String, String> = exported
        .files
        .iter()
        .filter_map(|(path, content)| match content {
            Content::Text(text) => Some((path.clone(), text.clone())),
            Content::File(_) => None,
        })
        .collect();
    let listing: Vec<RepoFile> = exported
        .files
        .iter()
        .map(|(path, content)| RepoFile {
            path: path.clone(),
            oid: String::new(),
            size: match content {
                Content::Text(text) => text.len() as u64,
                Content::File(_) => 0,
            },
        })
        .collect();
    let replanned = plan(&listing, config, &texts);
    if replanned.pages.len() != pages.len() {
        return false;
    }
    let index: HashMap<&str, usize> = pages.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    replanned.pages.iter().zip(pages).all(|(planned, page)| {
        let same_kind = match (&planned.kind, &page.kind) {
            (super::PlannedKind::Document { path }, ExportKind::Document { .. }) => {
                exported.paths.get(page.id) == Some(path)
            }
            (super::PlannedKind::Group, ExportKind::Group) => true,
            _ => false,
        };
        same_kind
            && planned.title == page.title
            && planned.link_title.as_deref() == page.link_title
            && planned.parent == page.parent.and_then(|p| index.get(p).copied())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page<'a>(
        id: &'a str,
        parent: Option<&'a str>,
        title: &'a str,
        markdown: &'a str,
        git: Option<&'a str>,
    ) -> ExportPage<'a> {
        ExportPage {
            id,
            parent,
            title,
            link_title: None,
            slug: id,
            kind: ExportKind::Document { markdown },
            git_path: git,
            description: None,
            hidden: false,
            condition: None,
        }
    }

    #[test]
    fn relative_paths_go_up_and_down() {
        assert_eq!(relative_path("guide", "guide/setup.md"), "./setup.md");
        assert_eq!(relative_path("guide/deep", "api.md"), "../../api.md");
        assert_eq!(relative_path("", "a/b.md"), "./a/b.md");
        assert_eq!(relative_path("a/x", "a/y/z.png"), "../y/z.png");
    }

    #[test]
    fn unchanged_pages_keep_their_bytes_and_new_ones_get_a_place() {
        let intro = "---\ndescription: Hello\n---\n\n# Intro\n\nSee [setup](guide/setup.md \"x\").\n";
        let pages = [
            page("intro", None, "Intro", intro, Some("README.md")),
            page("guide", None, "Guide", "# Guide\n", Some("guide/README.md")),
            page(
                "new",
                Some("guide"),
                "Fresh page",
                "Links to [intro](/pages/intro#top) and ![a](/files/f1).\n",
                None,
            ),
        ];
        let mut with_description = pages.clone();
        with_description[0].description = Some("Hello");
        let files = [ExportItem {
            id: "f1",
            name: "logo.png",
            git_path: None,
        }];
        let out = export(&with_description, &files, &[], &Config::default(), None);
        let text = |path: &str| match out.files.iter().find(|(p, _)| p == path).map(|(_, c)| c) {
            Some(Content::Text(t)) => t.clone(),
            other => panic!("{path}: {other:?}"),
        };
        assert_eq!(text("README.md"), intro);
        assert_eq!(
            text("guide/new.md"),
            "# Fresh page\n\nLinks to [intro](../README.md#top) and ![a](../.gitbook/assets/logo.png).\n"
        );
        assert!(
            out.files
                .contains(&(".gitbook/assets/logo.png".to_owned(), Content::File("f1".into())))
        );
        // The folders say what a summary would: none is written.
        assert!(!out.files.iter().any(|(p, _)| p == "SUMMARY.md"), "{:?}", out.files);

        // Settings changed in Quire reach the file; a kept summary stays.
        let mut changed = with_description.clone();
        changed[0].title = "Welcome";
        changed[0].description = None;
        changed[0].hidden = true;
        changed[0].condition = Some("visitor.claims.plan == \"pro\"");
        let previous =
            "# Summary\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Fresh page](guide/new.md)\n";
        let out = export(
            &changed,
            &files,
            &[],
            &Config::default(),
            Some(PreviousSummary {
                path: "SUMMARY.md",
                text: previous,
            }),
        );
        let readme = match &out.files.iter().find(|(p, _)| p == "README.md").unwrap().1 {
            Content::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            readme,
            "---\nhidden: true\nif: visitor.claims.plan == \"pro\"\n---\n\n# Welcome\n\nSee [setup](guide/setup.md \"x\").\n"
        );
        assert!(
            out.files
                .contains(&("SUMMARY.md".to_owned(), Content::Text(previous.to_owned())))
        );
    }

    #[test]
    fn front_matter_edits_keep_the_rest() {
        let md = "---\ntitle: T\ndescription: >-\n  folded\n  text\nicon: book\n---\n\nBody\n";
        assert_eq!(
            set_front_matter(md, "description", Some("New: one")),
            "---\ntitle: T\ndescription: 'New: one'\nicon: book\n---\n\nBody\n"
        );
        assert_eq!(set_front_matter("Body\n", "hidden", None), "Body\n");
        assert_eq!(
            set_front_matter("---\nhidden: true\n---\n\nBody\n", "hidden", None),
            "Body\n"
        );
        assert_eq!(set_heading("Text\n", "Title", true), "# Title\n\nText\n");
        // A folded description that says the same is left as written.
        let folded = "---\ndescription: >-\n  One and\n  two.\n---\n\n# T\n";
        assert_eq!(set_front_matter(folded, "description", Some("One and two.")), folded);
        assert_eq!(set_heading("# Old\n\nText\n", "New", false), "# New\n\nText\n");
    }
}
