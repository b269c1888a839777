//! A repository's files read as a space: which markdown files are pages and
//! where they sit, which files are assets and which are reusable content
//! (includes), and what was skipped and why.
//!
//! With a `SUMMARY.md`, the tree is the summary's: files it does not list
//! are not pages. Without one, the tree is the folders': the root
//! `README.md` first, then files and folders in natural order, a folder
//! being its `README.md` (or a group when it has none). A page's title is
//! the summary's link text, else front matter `title`, else its leading
//! `# heading`, else its file name. Front matter gives `description`,
//! `hidden` and the `if` condition. Assets are the files under
//! `.gitbook/assets`, the space's variables (`.gitbook/vars.yaml`) and any
//! file a page or include links to.

use std::collections::{BTreeSet, HashMap, HashSet};

use quire_content::markdown::{self, front_matter_value, split_front_matter};

use super::config::{Config, clean_path};
use super::summary::{self, Entry, Target};

/// Files larger than this are skipped (100 MB).
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// Markdown files larger than this are skipped (a page holds at most 2 MiB).
pub const MAX_PAGE_BYTES: u64 = 2 * 1024 * 1024;

/// A file of the repository, its path from the project directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    pub path: String,
    pub oid: String,
    pub size: u64,
}

/// What an import makes of a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportPlan {
    /// Pages in tree order; a page's parent comes before it.
    pub pages: Vec<PlannedPage>,
    /// Paths of the files to import as files.
    pub files: Vec<String>,
    /// Reusable content (includes).
    pub includes: Vec<PlannedInclude>,
    /// What was left out, and why.
    pub skipped: Vec<Skipped>,
    /// The summary file the tree came from, if any.
    pub summary: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedPage {
    /// Index of the parent page in [`ImportPlan::pages`].
    pub parent: Option<usize>,
    pub title: String,
    pub link_title: Option<String>,
    pub slug: String,
    pub kind: PlannedKind,
    pub description: Option<String>,
    pub hidden: bool,
    pub condition: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlannedKind {
    /// A page whose document is the markdown file at `path`.
    Document {
        path: String,
    },
    Group,
    Link {
        url: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedInclude {
    pub path: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// The folder part of a path (`a/b` for `a/b/c.md`, `` for `c.md`).
/// Whether `s` can be a page slug as written in a summary's group anchor.
fn is_slug(s: &str) -> bool {
    !s.is_empty() && !s.contains(['/', '?', '#', ' ', '%']) && s.len() <= 100
}

pub fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// `target` (relative, as written in a link) from a file in `folder`;
/// `None` when it leaves the repository or is not a path.
pub fn resolve_relative(folder: &str, target: &str) -> Option<String> {
    let target = target.split(['#', '?']).next()?.trim();
    if target.is_empty() || target.contains("://") || target.starts_with("mailto:") || target.starts_with('/') {
        return None;
    }
    let decoded = quire_core::percent::decode(target);
    clean_path(&if folder.is_empty() {
        decoded
    } else {
        format!("{folder}/{decoded}")
    })
}

/// Orders names as people do: `page-2` before `page-10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let take = |it: &mut std::iter::Peekable<std::str::Chars>| {
                    let mut n = String::new();
                    while let Some(c) = it.peek().copied().filter(char::is_ascii_digit) {
                        n.push(c);
                        it.next();
                    }
                    n
                };
                let (n, m) = (take(&mut x), take(&mut y));
                let (n, m) = (n.trim_start_matches('0'), m.trim_start_matches('0'));
                let order = n.len().cmp(&m.len()).then_with(|| n.cmp(m));
                if order.is_ne() {
                    return order;
                }
            }
            (Some(c), Some(d)) => {
                let order = c.to_lowercase().cmp(d.to_lowercase());
                if order.is_ne() {
                    return order;
                }
                x.next();
                y.next();
            }
        }
    }
}

/// A title from a file or folder name: `getting-started.md` → "Getting started".
fn title_from_name(name: &str) -> String {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    let words = stem.replace(['-', '_'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Untitled".into(),
    }
}

/// A page's settings from its markdown.
struct FrontMatter {
    title: Option<String>,
    description: Option<String>,
    hidden: bool,
    condition: Option<String>,
}

fn front_matter(text: &str) -> FrontMatter {
    let (front, body) = split_front_matter(text);
    let value = |key| front.and_then(|f| front_matter_value(f, key));
    FrontMatter {
        title: value("title").or_else(|| markdown::leading_heading(body)),
        description: value("description"),
        hidden: value("hidden").is_some_and(|v| v == "true"),
        condition: value("if"),
    }
}

struct Planner<'a> {
    config: &'a Config,
    sizes: HashMap<&'a str, u64>,
    texts: &'a HashMap<String, String>,
    plan: ImportPlan,
    used: HashSet<String>,
    /// Slugs taken under each parent.
    slugs: HashMap<Option<usize>, HashSet<String>>,
}

impl Planner<'_> {
    /// A markdown file that can be a page: present, small enough, read.
    fn page_file(&mut self, path: &str, listed_by: &str) -> bool {
        match self.sizes.get(path) {
            None => {
                self.plan.skipped.push(Skipped {
                    path: path.to_owned(),
                    reason: format!("{listed_by} lists it, but there is no such file"),
                });
                false
            }
            Some(size) if *size > MAX_PAGE_BYTES => {
                self.plan.skipped.push(Skipped {
                    path: path.to_owned(),
                    reason: format!("{size} bytes: a page holds at most {MAX_PAGE_BYTES} bytes of markdown"),
                });
                false
            }
            Some(_) if !self.texts.contains_key(path) => {
                self.plan.skipped.push(Skipped {
                    path: path.to_owned(),
                    reason: "not valid UTF-8 text".into(),
                });
                false
            }
            Some(_) if self.used.contains(path) => {
                self.plan.skipped.push(Skipped {
                    path: path.to_owned(),
                    reason: "listed twice; the first entry is kept".into(),
                });
                false
            }
            Some(_) => true,
        }
    }

    /// A free slug under `parent` for a page titled `wanted`.
    fn slug(&mut self, parent: Option<usize>, wanted: &str) -> String {
        self.free_slug(parent, markdown::slugify(wanted))
    }

    /// `base`, or `base-2`… when a sibling has it.
    fn free_slug(&mut self, parent: Option<usize>, base: String) -> String {
        let taken = self.slugs.entry(parent).or_default();
        let mut slug = base.clone();
        let mut n = 2;
        while !taken.insert(slug.clone()) {
            slug = format!("{base}-{n}");
            n += 1;
        }
        slug
    }

    fn push_document(
        &mut self,
        parent: Option<usize>,
        path: &str,
        title: Option<&str>,
        link_title: Option<String>,
    ) -> usize {
        self.used.insert(path.to_owned());
        let matter = front_matter(&self.texts[path]);
        let file_name = path.rsplit('/').next().unwrap_or(path);
        // GitBook's URL of a file is its name (a README's, its folder's);
        // the root README's is its title.
        let (name_for_slug, named_by_file) = if file_name.eq_ignore_ascii_case("README.md") {
            let folder = folder_of(path);
            if folder.is_empty() || folder.len() + 1 == self.config.root.len() {
                let name = title
                    .map(str::to_owned)
                    .or(matter.title.clone())
                    .unwrap_or_else(|| "introduction".into());
                (name, false)
            } else {
                (folder.rsplit('/').next().unwrap_or(folder).to_owned(), true)
            }
        } else {
            (file_name.strip_suffix(".md").unwrap_or(file_name).to_owned(), true)
        };
        let title = title
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .or(matter.title)
            .unwrap_or_else(|| title_from_name(&name_for_slug));
        let slug = if named_by_file {
            self.free_slug(parent, markdown::file_slug(&name_for_slug))
        } else {
            self.slug(parent, &name_for_slug)
        };
        self.plan.pages.push(PlannedPage {
            parent,
            title,
            link_title,
            slug,
            kind: PlannedKind::Document { path: path.to_owned() },
            description: matter.description,
            hidden: matter.hidden,
            condition: matter.condition,
        });
        self.plan.pages.len() - 1
    }

    /// Gives page `index` the slug its source names, freeing the one it had.
    fn set_slug(&mut self, parent: Option<usize>, index: usize, wanted: &str) {
        let old = std::mem::take(&mut self.plan.pages[index].slug);
        if let Some(taken) = self.slugs.get_mut(&parent) {
            taken.remove(&old);
        }
        self.plan.pages[index].slug = self.free_slug(parent, wanted.to_owned());
    }

    fn push_other(&mut self, parent: Option<usize>, title: &str, kind: PlannedKind) -> usize {
        let slug = self.slug(parent, title);
        self.plan.pages.push(PlannedPage {
            parent,
            title: if title.is_empty() {
                "Untitled".into()
            } else {
                title.to_owned()
            },
            link_title: None,
            slug,
            kind,
            description: None,
            hidden: false,
            condition: None,
        });
        self.plan.pages.len() - 1
    }

    /// The summary's entries under `parent`; `folder` is the summary's.
    fn entries(&mut self, entries: &[Entry], parent: Option<usize>, folder: &str, summary_path: &str) {
        for entry in entries {
            let here = match &entry.target {
                Target::File(target) => match resolve_relative(folder, target) {
                    Some(path) if self.page_file(&path, summary_path) => {
                        Some(self.push_document(parent, &path, Some(&entry.title), entry.link_title.clone()))
                    }
                    Some(_) => None,
                    None => {
                        self.plan.skipped.push(Skipped {
                            path: target.clone(),
                            reason: format!("{summary_path} links outside the repository"),
                        });
                        None
                    }
                },
                Target::Url(url) => Some(self.push_other(parent, &entry.title, PlannedKind::Link { url: url.clone() })),
                Target::Group => {
                    let group = self.push_other(parent, &entry.title, PlannedKind::Group);
                    if let Some(slug) = entry.slug.as_deref().filter(|s| is_slug(s)) {
                        self.set_slug(parent, group, slug);
                    }
                    Some(group)
                }
                Target::Nothing => Some(self.push_other(parent, &entry.title, PlannedKind::Group)),
            };
            // Children of an entry that could not be read go to its parent.
            self.entries(&entry.children, here.or(parent), folder, summary_path);
        }
    }

    /// The folder `dir` (with a trailing `/`, or empty) under `parent`.
    fn folder(&mut self, dir: &str, parent: Option<usize>, md_files: &BTreeSet<String>) {
        let mut names: Vec<(String, bool)> = Vec::new();
        let mut seen = HashSet::new();
        for path in md_files.range(dir.to_owned()..) {
            let Some(rest) = path.strip_prefix(dir) else { break };
            match rest.split_once('/') {
                Some((sub, _)) if seen.insert(sub.to_owned()) => names.push((sub.to_owned(), true)),
                Some(_) => {}
                None if !rest.eq_ignore_ascii_case("README.md") => names.push((rest.to_owned(), false)),
                None => {}
            }
        }
        names.sort_by(|a, b| natural_cmp(&a.0, &b.0));
        for (name, is_folder) in names {
            let path = format!("{dir}{name}");
            if !is_folder {
                if self.page_file(&path, "the folder") {
                    self.push_document(parent, &path, None, None);
                }
                continue;
            }
            let readme = format!("{path}/README.md");
            let here = if md_files.contains(&readme) && self.page_file(&readme, "the folder") {
                self.push_document(parent, &readme, None, None)
            } else {
                self.push_other(parent, &title_from_name(&name), PlannedKind::Group)
            };
            self.folder(&format!("{path}/"), Some(here), md_files);
        }
    }
}

/// Plans the import of a repository: `files` are every file of the
/// project directory, `texts` the markdown files' text (those that are
/// UTF-8).
pub fn plan(files: &[RepoFile], config: &Config, texts: &HashMap<String, String>) -> ImportPlan {
    let root = config.root.as_str();
    let sizes: HashMap<&str, u64> = files.iter().map(|f| (f.path.as_str(), f.size)).collect();
    let mut planner = Planner {
        config,
        sizes,
        texts,
        plan: ImportPlan::default(),
        used: HashSet::new(),
        slugs: HashMap::new(),
    };
    let readme = format!("{root}{}", config.readme);
    let summary_path = format!("{root}{}", config.summary);
    let includes_dir = format!("{root}.gitbook/includes/");
    let is_page_candidate = |path: &str| {
        path.starts_with(root)
            && path.ends_with(".md")
            && path != summary_path
            && !path[root.len()..].starts_with(".gitbook/")
            && !path[root.len()..]
                .split('/')
                .any(|s| s.starts_with('.') || s == "node_modules")
    };
    match texts.get(&summary_path) {
        Some(text) => {
            planner.plan.summary = Some(summary_path.clone());
            let entries = summary::parse(text);
            let lists_readme = entries_contain(&entries, folder_of(&summary_path), &readme);
            if !lists_readme && planner.sizes.contains_key(readme.as_str()) && planner.page_file(&readme, "the README")
            {
                planner.push_document(None, &readme, None, None);
            }
            planner.entries(&entries, None, folder_of(&summary_path), &summary_path);
        }
        None => {
            let md_files: BTreeSet<String> = files
                .iter()
                .map(|f| f.path.clone())
                .filter(|p| is_page_candidate(p))
                .collect();
            if md_files.contains(&readme) && planner.page_file(&readme, "the README") {
                planner.push_document(None, &readme, None, None);
            }
            planner.folder(root, None, &md_files);
        }
    }
    for file in files {
        if file.path.starts_with(&includes_dir) && file.path.ends_with(".md") {
            if planner.page_file(&file.path, "the includes folder") {
                let matter = front_matter(&texts[&file.path]);
                let name = file.path.rsplit('/').next().unwrap_or(&file.path);
                planner.plan.includes.push(PlannedInclude {
                    path: file.path.clone(),
                    title: matter.title.unwrap_or_else(|| title_from_name(name)),
                });
            }
        } else if planner.plan.summary.is_some()
            && is_page_candidate(&file.path)
            && !planner.used.contains(&file.path)
            && file.path != readme
        {
            planner.plan.skipped.push(Skipped {
                path: file.path.clone(),
                reason: "not listed in the summary".into(),
            });
        }
    }
    // Files: the assets folder, and whatever pages and includes point at.
    let assets_dir = format!("{root}.gitbook/assets/");
    // The space's variables (`.gitbook/vars.yaml`) are kept as a file too:
    // pages' expressions read them, and an export writes them back.
    let variables = format!("{root}.gitbook/vars.yaml");
    let mut wanted: BTreeSet<String> = files
        .iter()
        .filter(|f| f.path.starts_with(&assets_dir) || f.path == variables)
        .map(|f| f.path.clone())
        .collect();
    let sources = planner
        .plan
        .pages
        .iter()
        .filter_map(|p| match &p.kind {
            PlannedKind::Document { path } => Some(path.clone()),
            _ => None,
        })
        .chain(planner.plan.includes.iter().map(|i| i.path.clone()))
        .collect::<Vec<_>>();
    for source in sources {
        for target in markdown::link_targets(&texts[&source]) {
            if let Some(path) = resolve_relative(folder_of(&source), &target)
                && !path.ends_with(".md")
                && planner.sizes.contains_key(path.as_str())
            {
                wanted.insert(path);
            }
        }
    }
    for path in wanted {
        let size = planner.sizes.get(path.as_str()).copied().unwrap_or_default();
        if size > MAX_FILE_BYTES {
            planner.plan.skipped.push(Skipped {
                path,
                reason: format!("{size} bytes: files over {MAX_FILE_BYTES} bytes are not imported"),
            });
        } else {
            planner.plan.files.push(path);
        }
    }
    planner.plan
}

fn entries_contain(entries: &[Entry], folder: &str, path: &str) -> bool {
    entries.iter().any(|e| {
        matches!(&e.target, Target::File(t) if resolve_relative(folder, t).as_deref() == Some(path))
            || entries_contain(&e.children, folder, path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(files: &[(&str, &str)]) -> (Vec<RepoFile>, HashMap<String, String>) {
        let list = files
            .iter()
            .map(|(path, text)| RepoFile {
                path: (*path).to_owned(),
                oid: format!("oid-{path}"),
                size: text.len() as u64,
            })
            .collect();
        let texts = files
            .iter()
            .filter(|(p, _)| p.ends_with(".md"))
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect();
        (list, texts)
    }

    fn titles(plan: &ImportPlan) -> Vec<(Option<usize>, &str)> {
        plan.pages.iter().map(|p| (p.parent, p.title.as_str())).collect()
    }

    #[test]
    fn file_names_give_the_slugs_gitbook_gives() {
        let (files, texts) = repo(&[
            ("README.md", "# Welcome\n"),
            ("vue.js-no-code-email-builder.md", "# Vue.js builder\n"),
            ("快速开始.md", "# 快速开始\n"),
            ("Getting Started.md", "# Getting started\n"),
        ]);
        let plan = plan(&files, &Config::default(), &texts);
        let mut slugs: Vec<&str> = plan.pages.iter().map(|p| p.slug.as_str()).collect();
        slugs.sort_unstable();
        assert_eq!(
            slugs,
            ["getting-started", "vue.js-no-code-email-builder", "welcome", "快速开始"]
        );
    }

    #[test]
    fn a_summary_decides_the_tree() {
        let (files, texts) = repo(&[
            ("README.md", "# Welcome\n"),
            (
                "SUMMARY.md",
                "# Table of contents\n\n* [Welcome](README.md)\n* [Guide](guide/README.md)\n  * [Setup](guide/setup.md \"Set up\")\n  * [Gone](guide/gone.md)\n    * [Orphan](guide/orphan.md)\n\n## Reference\n\n* [API](api.md)\n",
            ),
            ("guide/README.md", "# Guide\n\n![shot](../.gitbook/assets/shot.png)\n"),
            (
                "guide/setup.md",
                "---\ndescription: Getting ready\nhidden: true\nif: visitor.claims.beta == true\n---\n\n# Setup\n\n[back](../README.md) ![d](img/diagram.svg)\n",
            ),
            ("guide/orphan.md", "# Orphan\n"),
            ("api.md", "# API\n"),
            ("unlisted.md", "# Not here\n"),
            (".gitbook/assets/shot.png", "png"),
            (".gitbook/assets/unused.png", "png"),
            ("guide/img/diagram.svg", "<svg/>"),
            ("src/main.rs", "fn main() {}"),
            (".gitbook/includes/note.md", "# Shared note\n\nSay it once.\n"),
        ]);
        let plan = plan(&files, &Config::default(), &texts);
        assert_eq!(
            titles(&plan),
            [
                (None, "Welcome"),
                (None, "Guide"),
                (Some(1), "Setup"),
                (Some(1), "Orphan"),
                (None, "Reference"),
                (Some(4), "API")
            ]
        );
        let setup = &plan.pages[2];
        assert_eq!(setup.link_title.as_deref(), Some("Set up"));
        assert_eq!(setup.description.as_deref(), Some("Getting ready"));
        assert!(setup.hidden);
        assert_eq!(setup.condition.as_deref(), Some("visitor.claims.beta == true"));
        assert_eq!(setup.slug, "setup");
        assert_eq!(plan.pages[1].slug, "guide");
        assert_eq!(plan.pages[4].kind, PlannedKind::Group);
        assert_eq!(
            plan.files,
            [
                ".gitbook/assets/shot.png",
                ".gitbook/assets/unused.png",
                "guide/img/diagram.svg"
            ]
        );
        assert_eq!(
            plan.includes,
            [PlannedInclude {
                path: ".gitbook/includes/note.md".into(),
                title: "Shared note".into()
            }]
        );
        let skipped: Vec<&str> = plan.skipped.iter().map(|s| s.path.as_str()).collect();
        assert!(
            skipped.contains(&"guide/gone.md") && skipped.contains(&"unlisted.md"),
            "{skipped:?}"
        );
        assert_eq!(plan.summary.as_deref(), Some("SUMMARY.md"));
    }

    #[test]
    fn without_a_summary_folders_decide_in_natural_order() {
        let (files, texts) = repo(&[
            ("docs/README.md", "# Home\n"),
            ("docs/page-10.md", "# Ten\n"),
            ("docs/page-2.md", "# Two\n"),
            ("docs/guide/README.md", "# The guide\n"),
            ("docs/guide/step.md", "Step without heading.\n"),
            ("docs/misc/more.md", "# More\n"),
            ("docs/.gitbook.yaml", ""),
            ("other/ignored.md", "# Ignored\n"),
        ]);
        let config = Config {
            root: "docs/".into(),
            ..Config::default()
        };
        let plan = plan(&files, &config, &texts);
        assert_eq!(
            titles(&plan),
            [
                (None, "Home"),
                (None, "The guide"),
                (Some(1), "Step"),
                (None, "Misc"),
                (Some(3), "More"),
                (None, "Two"),
                (None, "Ten")
            ]
        );
        assert_eq!(plan.pages[3].kind, PlannedKind::Group);
        assert!(plan.summary.is_none());
    }

    #[test]
    fn oversized_files_are_skipped_with_a_reason() {
        let files = vec![
            RepoFile {
                path: "README.md".into(),
                oid: "a".into(),
                size: 10,
            },
            RepoFile {
                path: "huge.md".into(),
                oid: "b".into(),
                size: MAX_PAGE_BYTES + 1,
            },
            RepoFile {
                path: ".gitbook/assets/video.mp4".into(),
                oid: "c".into(),
                size: MAX_FILE_BYTES + 1,
            },
        ];
        let texts = HashMap::from([
            ("README.md".to_owned(), "# Hi\n".to_owned()),
            ("huge.md".to_owned(), String::new()),
        ]);
        let plan = plan(&files, &Config::default(), &texts);
        assert_eq!(titles(&plan), [(None, "Hi")]);
        assert_eq!(plan.skipped.len(), 2);
        assert!(plan.files.is_empty());
    }

    #[test]
    fn names_sort_naturally() {
        let mut names = vec!["b10", "b2", "a", "B1"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(names, ["a", "B1", "b2", "b10"]);
    }
}
