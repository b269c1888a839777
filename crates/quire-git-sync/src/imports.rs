//! Content imports into a space or a change request
//! (`POST .../content/import`, `{url, source}`):
//!
//! - `website`: the page at `url` and the same-origin pages it leads to
//!   (links, and `sitemap.xml` when there is one), up to a bound
//!   (`QUIRE_IMPORT_MAX_PAGES`, 200 by default, as GitBook), politely:
//!   `robots.txt` is respected and at most [`CONCURRENCY`] pages are
//!   fetched at once. Each page's main content becomes markdown
//!   (`quire_import::html`), images are downloaded as files, the page tree
//!   follows the URL paths, links between imported pages become page links.
//! - `file`: one file at `url` (or a `data:` URL, for uploads): markdown
//!   or HTML as one page, a zip archive of markdown as the pages of its
//!   folders (or of its `SUMMARY.md`), with the files they link to.
//!
//! Everything fetched goes through the guarded fetch client. The imported
//! pages are added after the existing ones, in one revision.

use std::collections::{HashMap, HashSet, VecDeque};

use base64::Engine as _;
use quire_content::tree::{PageKind, PageMeta};
use quire_core::Role;
use quire_engine::imports::{ImportedFile, ImportedPage, ImportedReusable, ImportedState, Target};
use quire_import::gitbook::{self, Config, RepoFile};
use quire_import::html::{self, WebPage};
use serde::Deserialize;
use url::Url;

use quire_app::error::{AppError, AppResult};
use quire_app::{App, Caller, access};

/// Pages fetched at once from one site.
pub const CONCURRENCY: usize = 4;
/// Largest page or image fetched (10 MiB), and largest file imported (50 MiB).
const MAX_PAGE_BYTES: usize = 10 * 1024 * 1024;
const MAX_IMPORT_FILE_BYTES: usize = 50 * 1024 * 1024;

/// The request of `POST .../content/import`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportRequest {
    pub url: String,
    pub source: String,
}

/// What an import did (`{revision, importedResources, totalResources}`).
#[derive(Debug, Clone)]
pub struct ImportResult {
    pub revision: String,
    pub imported_resources: usize,
    pub total_resources: usize,
}

/// A page to add: where it sits among the other new pages, its text, and
/// the key other pages' links use for it.
struct NewPage {
    key: String,
    parent: Option<String>,
    title: String,
    slug_hint: String,
    markdown: String,
    description: Option<String>,
}

/// A file to add, by the URL or path pages name it with.
struct NewFile {
    key: String,
    name: String,
    content_type: String,
    bytes: Vec<u8>,
}

/// Imports into the space's current content, or into a change request.
pub async fn import(
    app: &App,
    caller: &Caller,
    space_id: &str,
    change_request: Option<&str>,
    request: ImportRequest,
) -> AppResult<ImportResult> {
    let (space, cr) = {
        let mut conn = app.db.read().await?;
        let (space, access) = access::space(&mut conn, caller, space_id, None).await?;
        access.require(Role::Edit, "import content")?;
        match change_request {
            Some(cr_id) => {
                let cr = access::change_request_in(&mut conn, &space, cr_id).await?;
                if !cr.is_active() {
                    return Err(AppError::Conflict(format!(
                        "this change request is {}; its content cannot change",
                        cr.status
                    )));
                }
                (space, Some(cr))
            }
            None => (space, None),
        }
    };
    let (pages, files, total) = match request.source.as_str() {
        "website" => {
            let start = web_url(&request.url)?;
            website(app, start).await?
        }
        "file" => file(app, &request.url).await?,
        other => {
            return Err(AppError::invalid(format!(
                "source {other:?} is not supported: use \"website\" or \"file\""
            )));
        }
    };
    if pages.is_empty() {
        return Err(AppError::invalid("nothing to import was found at that URL"));
    }
    let imported = pages.len();
    let head = cr.as_ref().map_or(&space.revision_id, |c| &c.revision_id);
    let base = app.engine.revisions.snapshot(&space.id, head).await?;
    let state = state_with(app, &base, pages, files).await?;
    let target = match cr {
        Some(cr) => Target::ChangeRequest(Box::new(cr)),
        None => Target::Space,
    };
    let snapshot = app
        .engine
        .imports
        .commit(&space, &base, state, caller.id(), None, target)
        .await?;
    Ok(ImportResult {
        revision: snapshot.revision.id.clone(),
        imported_resources: imported,
        total_resources: total.max(imported),
    })
}

fn web_url(text: &str) -> AppResult<Url> {
    let url = Url::parse(text).map_err(|_| AppError::invalid("url must be an absolute http(s) URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(AppError::invalid("url must be an absolute http(s) URL"));
    }
    Ok(url)
}

fn fetch_error(url: &str, err: quire_adapters::FetchError) -> AppError {
    AppError::invalid(format!("{url} could not be fetched: {err}"))
}

/// The space's content with `pages` added after its own (links between
/// them rewritten to page and file links).
async fn state_with(
    app: &App,
    base: &quire_engine::Snapshot,
    pages: Vec<NewPage>,
    files: Vec<NewFile>,
) -> AppResult<ImportedState> {
    let mut state = ImportedState::default();
    for (id, _) in base.tree.walk() {
        let page = &base.tree.pages[&id];
        state.pages.push(ImportedPage {
            id: id.clone(),
            parent: page.parent.clone(),
            meta: page.meta.clone(),
            markdown: None,
        });
    }
    state.files = base.files.iter().map(|(_, f)| ImportedFile::Kept(f.clone())).collect();
    for (_, reusable) in &base.reusable {
        state.reusable.push(ImportedReusable {
            id: reusable.id.clone(),
            title: reusable.title.clone(),
            markdown: app.engine.revisions.document(&reusable.document).await?.to_string(),
            git: reusable.git.clone(),
        });
    }
    let page_ids: HashMap<String, String> = pages
        .iter()
        .map(|p| (p.key.clone(), quire_core::id::new_id()))
        .collect();
    let file_ids: HashMap<String, String> = files
        .iter()
        .map(|f| (f.key.clone(), quire_core::id::new_id()))
        .collect();
    let mut slugs: HashMap<Option<String>, HashSet<String>> = HashMap::new();
    for (_, page) in base.tree.pages.iter() {
        slugs
            .entry(page.parent.clone())
            .or_default()
            .insert(page.meta.slug.clone());
    }
    for page in pages {
        let id = page_ids[&page.key].clone();
        let parent = page.parent.as_ref().and_then(|k| page_ids.get(k)).cloned();
        let taken = slugs.entry(parent.clone()).or_default();
        let base_slug = quire_content::markdown::slugify(&page.slug_hint);
        let mut slug = base_slug.clone();
        let mut n = 2;
        while !taken.insert(slug.clone()) {
            slug = format!("{base_slug}-{n}");
            n += 1;
        }
        let markdown = rewrite_links(&page.markdown, &page_ids, &file_ids);
        if markdown.len() > quire_engine::MAX_PAGE_MARKDOWN_BYTES {
            continue;
        }
        state.pages.push(ImportedPage {
            id,
            parent,
            meta: PageMeta {
                title: page.title.chars().take(200).collect(),
                slug,
                description: page.description,
                emoji: None,
                hidden: false,
                condition: None,
                git: None,
                link_title: None,
                kind: PageKind::Document,
                document: None,
            },
            markdown: Some(markdown),
        });
    }
    for file in files {
        state.files.push(ImportedFile::New {
            id: file_ids[&file.key].clone(),
            name: file.name,
            content_type: file.content_type,
            bytes: file.bytes,
            git: None,
        });
    }
    Ok(state)
}

/// Link and image targets naming imported pages or files (`](key)`,
/// `](key#anchor)`, `](key "title")`) made `/pages/<id>` and `/files/<id>`.
fn rewrite_links(markdown: &str, pages: &HashMap<String, String>, files: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        let end = rest.find([')', ' ']).unwrap_or(rest.len());
        let target = &rest[..end];
        let (key, anchor) = match target.split_once('#') {
            Some((k, a)) => (k, Some(a)),
            None => (target, None),
        };
        let replaced = match (pages.get(key), files.get(target)) {
            (Some(id), _) => Some(match anchor {
                Some(a) if !a.is_empty() => format!("/pages/{id}#{a}"),
                _ => format!("/pages/{id}"),
            }),
            (None, Some(id)) => Some(format!("/files/{id}")),
            _ => None,
        };
        if let Some(new) = replaced {
            out.push_str(&new);
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// The key of a page URL: without fragment and query, `index.html` and a
/// trailing slash.
fn page_key(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.set_query(None);
    let path = url.path().to_owned();
    let path = path.strip_suffix("index.html").unwrap_or(&path);
    let trimmed = path.trim_end_matches('/');
    url.set_path(if trimmed.is_empty() { "/" } else { trimmed });
    url.to_string()
}

/// `Disallow` rules of a `robots.txt` for any robot (or Quire).
fn disallowed(robots: &str) -> Vec<String> {
    let mut rules = Vec::new();
    let mut applies = false;
    let mut in_agents = false;
    for line in robots.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        match key.as_str() {
            "user-agent" => {
                let agent = value.to_ascii_lowercase();
                let this = agent == "*" || agent.contains("quire");
                applies = if in_agents { applies || this } else { this };
                in_agents = true;
            }
            "disallow" => {
                in_agents = false;
                if applies && !value.is_empty() {
                    rules.push(value.to_owned());
                }
            }
            _ => in_agents = false,
        }
    }
    rules
}

/// `<loc>` URLs of a sitemap.
fn sitemap_urls(xml: &str) -> Vec<String> {
    xml.split("<loc>")
        .skip(1)
        .filter_map(|part| {
            part.split_once("</loc>")
                .map(|(url, _)| url.trim().replace("&amp;", "&"))
        })
        .collect()
}

/// Crawls the site from `start`; the pages (and the files they show) and
/// how many pages were found in all.
async fn website(app: &App, start: Url) -> AppResult<(Vec<NewPage>, Vec<NewFile>, usize)> {
    let fetcher = &app.engine.fetcher;
    let limit = app.settings.import_max_pages.max(1);
    let origin = start.origin();
    let robots_url = start.join("/robots.txt").map_err(|_| AppError::invalid("bad URL"))?;
    let rules = match fetcher.get(robots_url.as_str(), 512 * 1024).await {
        Ok(found) => disallowed(&String::from_utf8_lossy(&found.bytes)),
        Err(_) => Vec::new(),
    };
    let allowed = |url: &Url| url.origin() == origin && !rules.iter().any(|r| url.path().starts_with(r.as_str()));
    if !allowed(&start) {
        return Err(AppError::invalid(
            "the site's robots.txt does not allow reading that page",
        ));
    }
    let mut queue: VecDeque<Url> = VecDeque::from([start.clone()]);
    let mut seen: HashSet<String> = HashSet::from([page_key(&start)]);
    if let Ok(sitemap) = start.join("/sitemap.xml")
        && let Ok(found) = fetcher.get(sitemap.as_str(), MAX_PAGE_BYTES).await
    {
        for loc in sitemap_urls(&String::from_utf8_lossy(&found.bytes)) {
            if let Ok(url) = Url::parse(&loc)
                && allowed(&url)
                && seen.insert(page_key(&url))
            {
                queue.push_back(url);
            }
        }
    }
    let mut read: Vec<(Url, WebPage)> = Vec::new();
    let mut first_error = None;
    while !queue.is_empty() && read.len() < limit {
        let wave: Vec<Url> = (0..CONCURRENCY.min(limit - read.len()))
            .filter_map(|_| queue.pop_front())
            .collect();
        let fetched =
            futures_util::future::join_all(wave.iter().map(|url| fetcher.get(url.as_str(), MAX_PAGE_BYTES))).await;
        for (url, result) in wave.into_iter().zip(fetched) {
            let found = match result {
                Ok(found) => found,
                Err(err) => {
                    tracing::info!(url = %url, error = %err, "website import: page skipped");
                    first_error.get_or_insert_with(|| fetch_error(url.as_str(), err));
                    continue;
                }
            };
            let is_html = found
                .content_type
                .as_deref()
                .is_none_or(|t| t.starts_with("text/html") || t.starts_with("application/xhtml"));
            if !is_html {
                continue;
            }
            let page = html::read(&String::from_utf8_lossy(&found.bytes), &found.url);
            for link in &page.links {
                if allowed(link) && seen.insert(page_key(link)) {
                    queue.push_back(link.clone());
                }
            }
            read.push((found.url, page));
        }
    }
    if read.is_empty() {
        return Err(first_error.unwrap_or_else(|| AppError::invalid("no HTML page was found at that URL")));
    }
    let total = seen.len();
    // The tree: a page under the page whose path is the longest prefix of
    // its own, in the order they were found.
    let keys: Vec<String> = read.iter().map(|(url, _)| page_key(url)).collect();
    let known: HashSet<&str> = keys.iter().map(String::as_str).collect();
    let mut pages = Vec::new();
    let mut images: Vec<Url> = Vec::new();
    for ((url, page), key) in read.iter().zip(&keys) {
        let mut parent = None;
        let mut candidate = Url::parse(key).ok();
        while let Some(mut up) = candidate.take() {
            let path = up.path().trim_end_matches('/').to_owned();
            let Some((above, _)) = path.rsplit_once('/') else { break };
            up.set_path(if above.is_empty() { "/" } else { above });
            let up_key = up.to_string();
            if up_key != *key && known.contains(up_key.as_str()) {
                parent = Some(up_key);
                break;
            }
            if above.is_empty() {
                break;
            }
            candidate = Some(up);
        }
        let slug_hint = url
            .path_segments()
            .and_then(|mut s| s.rfind(|x| !x.is_empty() && *x != "index.html"))
            .map(|s| s.trim_end_matches(".html").to_owned())
            .unwrap_or_else(|| page.title.clone());
        // Links to imported pages: by their key, whatever form they had.
        let mut markdown = page.markdown.clone();
        for link in &page.links {
            let link_key = page_key(link);
            if link_key != link.as_str() && known.contains(link_key.as_str()) {
                markdown = markdown.replace(&format!("]({})", link.as_str()), &format!("]({link_key})"));
                markdown = markdown.replace(&format!("]({}#", link.as_str()), &format!("]({link_key}#"));
            }
        }
        images.extend(
            page.images
                .iter()
                .filter(|i| !images.contains(i))
                .cloned()
                .collect::<Vec<_>>(),
        );
        pages.push(NewPage {
            key: key.clone(),
            parent: parent.filter(|p| p != key),
            title: page.title.clone(),
            slug_hint,
            markdown,
            description: None,
        });
    }
    let mut files = Vec::new();
    for chunk in images.chunks(CONCURRENCY) {
        let fetched =
            futures_util::future::join_all(chunk.iter().map(|u| fetcher.get(u.as_str(), MAX_PAGE_BYTES))).await;
        for (url, result) in chunk.iter().zip(fetched) {
            let Ok(found) = result else { continue };
            let name = url
                .path_segments()
                .and_then(|mut s| s.rfind(|x| !x.is_empty()))
                .unwrap_or("image")
                .to_owned();
            let content_type = found
                .content_type
                .clone()
                .filter(|t| t.starts_with("image/"))
                .unwrap_or_else(|| quire_import::content_type_of(&name).to_owned());
            files.push(NewFile {
                key: url.to_string(),
                name,
                content_type,
                bytes: found.bytes,
            });
        }
    }
    Ok((pages, files, total))
}

/// One file: markdown, HTML or a zip archive of markdown.
async fn file(app: &App, url: &str) -> AppResult<(Vec<NewPage>, Vec<NewFile>, usize)> {
    let (bytes, content_type, name) = match url.strip_prefix("data:") {
        Some(data) => {
            let (meta, payload) = data
                .split_once(',')
                .ok_or_else(|| AppError::invalid("a data: URL needs a comma before its content"))?;
            let bytes = if meta.ends_with(";base64") {
                base64::engine::general_purpose::STANDARD
                    .decode(payload)
                    .map_err(|_| AppError::invalid("the data: URL's base64 does not decode"))?
            } else {
                payload.as_bytes().to_vec()
            };
            if bytes.len() > MAX_IMPORT_FILE_BYTES {
                return Err(AppError::TooLarge(format!(
                    "an imported file holds at most {MAX_IMPORT_FILE_BYTES} bytes"
                )));
            }
            let content_type = meta.trim_end_matches(";base64").to_owned();
            (bytes, content_type, "import".to_owned())
        }
        None => {
            let parsed = web_url(url)?;
            let found = app
                .engine
                .fetcher
                .get(parsed.as_str(), MAX_IMPORT_FILE_BYTES)
                .await
                .map_err(|e| fetch_error(url, e))?;
            let name = parsed
                .path_segments()
                .and_then(|mut s| s.rfind(|x| !x.is_empty()))
                .unwrap_or("import")
                .to_owned();
            (found.bytes, found.content_type.unwrap_or_default(), name)
        }
    };
    let lower = name.to_ascii_lowercase();
    if bytes.starts_with(b"PK\x03\x04") || content_type.contains("zip") || lower.ends_with(".zip") {
        return archive(&bytes);
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| AppError::invalid("the file is not UTF-8 text, markdown, HTML or a zip archive"))?;
    let is_html = content_type.contains("html") || lower.ends_with(".html") || lower.ends_with(".htm");
    let page = if is_html {
        let base = Url::parse(url).unwrap_or_else(|_| Url::parse("https://import.invalid/").expect("a URL"));
        let page = html::read(&text, &base);
        NewPage {
            key: "file".into(),
            parent: None,
            slug_hint: page.title.clone(),
            title: page.title,
            markdown: page.markdown,
            description: None,
        }
    } else {
        let title = quire_content::markdown::title(&text).unwrap_or_else(|| {
            name.trim_end_matches(".md")
                .trim_end_matches(".markdown")
                .replace(['-', '_'], " ")
        });
        let description = quire_content::markdown::split_front_matter(&text)
            .0
            .and_then(|front| quire_content::markdown::front_matter_value(front, "description"));
        NewPage {
            key: "file".into(),
            parent: None,
            slug_hint: title.clone(),
            title,
            markdown: text,
            description,
        }
    };
    Ok((vec![page], Vec::new(), 1))
}

/// A zip archive of markdown (and HTML) files: its folders (or its
/// `SUMMARY.md`) are the tree, the files its pages link to come along.
fn archive(bytes: &[u8]) -> AppResult<(Vec<NewPage>, Vec<NewFile>, usize)> {
    let entries = quire_import::archive::unzip(bytes).map_err(AppError::invalid)?;
    // A single top folder (`export/…`) is the root.
    let top: HashSet<&str> = entries
        .iter()
        .map(|(p, _)| p.split('/').next().unwrap_or_default())
        .collect();
    let strip = match (top.len(), top.iter().next()) {
        (1, Some(dir)) if entries.iter().all(|(p, _)| p.contains('/')) => format!("{dir}/"),
        _ => String::new(),
    };
    let mut texts = HashMap::new();
    let mut listing = Vec::new();
    let mut blobs: HashMap<String, Vec<u8>> = HashMap::new();
    for (path, content) in entries {
        let path = path.strip_prefix(&strip).unwrap_or(&path).to_owned();
        let lower = path.to_ascii_lowercase();
        let (path, content) = if lower.ends_with(".html") || lower.ends_with(".htm") {
            let base = Url::parse("https://import.invalid/").expect("a URL");
            let page = html::read(&String::from_utf8_lossy(&content), &base);
            let md_path = format!("{}.md", path.rsplit_once('.').map_or(path.as_str(), |(stem, _)| stem));
            let text = if page.markdown.starts_with("# ") {
                page.markdown
            } else {
                format!("# {}\n\n{}", page.title, page.markdown)
            };
            (md_path, text.into_bytes())
        } else {
            (path, content)
        };
        listing.push(RepoFile {
            path: path.clone(),
            oid: String::new(),
            size: content.len() as u64,
        });
        if path.ends_with(".md") {
            if let Ok(text) = String::from_utf8(content) {
                texts.insert(path, text);
            }
        } else {
            blobs.insert(path, content);
        }
    }
    let plan = gitbook::plan(&listing, &Config::default(), &texts);
    let keys: Vec<String> = plan
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| match &p.kind {
            gitbook::PlannedKind::Document { path } => path.clone(),
            _ => format!("#{i}"),
        })
        .collect();
    let mut pages = Vec::new();
    for (planned, key) in plan.pages.iter().zip(&keys) {
        let gitbook::PlannedKind::Document { path } = &planned.kind else {
            continue;
        };
        // Relative links between files: by the linked file's path.
        let folder = gitbook::folder_of(path);
        let mut markdown = texts[path].clone();
        for target in quire_content::markdown::link_targets(&markdown) {
            if let Some(resolved) = gitbook::resolve_relative(folder, &target)
                && (texts.contains_key(&resolved) || blobs.contains_key(&resolved))
            {
                let anchor = target.split_once('#').map(|(_, a)| format!("#{a}")).unwrap_or_default();
                markdown = markdown.replace(&format!("]({target})"), &format!("]({resolved}{anchor})"));
            }
        }
        let parent = planned.parent.and_then(|i| match &plan.pages[i].kind {
            gitbook::PlannedKind::Document { .. } => Some(keys[i].clone()),
            _ => None,
        });
        pages.push(NewPage {
            key: key.clone(),
            parent,
            title: planned.title.clone(),
            slug_hint: planned.slug.clone(),
            markdown,
            description: planned.description.clone(),
        });
    }
    let files = plan
        .files
        .iter()
        .filter_map(|path| {
            let bytes = blobs.remove(path)?;
            let name = path.rsplit('/').next().unwrap_or(path).to_owned();
            Some(NewFile {
                key: path.clone(),
                content_type: quire_import::content_type_of(&name).to_owned(),
                name,
                bytes,
            })
        })
        .collect();
    let total = texts.len();
    Ok((pages, files, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_rules_apply_to_any_robot() {
        let rules = disallowed("User-agent: Googlebot\nDisallow: /g\n\nUser-agent: *\nDisallow: /private\nDisallow:\n");
        assert_eq!(rules, ["/private"]);
    }

    #[test]
    fn page_keys_ignore_index_and_slashes() {
        let key = |u: &str| page_key(&Url::parse(u).unwrap());
        assert_eq!(key("https://a.example/docs/index.html#x"), "https://a.example/docs");
        assert_eq!(key("https://a.example/docs/"), "https://a.example/docs");
        assert_eq!(key("https://a.example/"), "https://a.example/");
    }

    #[test]
    fn links_to_imported_pages_and_files_become_ids() {
        let pages = HashMap::from([("https://a.example/b".to_owned(), "P1".to_owned())]);
        let files = HashMap::from([("https://a.example/i.png".to_owned(), "F1".to_owned())]);
        let md = "[b](https://a.example/b#x) ![i](https://a.example/i.png) [c](https://c.example/)";
        assert_eq!(
            rewrite_links(md, &pages, &files),
            "[b](/pages/P1#x) ![i](/files/F1) [c](https://c.example/)"
        );
    }
}
