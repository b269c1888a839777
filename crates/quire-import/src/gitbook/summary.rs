//! `SUMMARY.md`, the table of contents: `## ` headings start groups, nested
//! `*`/`-` list items are pages (`[Title](page.md "nav label")`), an item
//! linking elsewhere is a link page. Read here and written back.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

/// An entry of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub title: String,
    /// The title shown in navigation (the link's quoted title).
    pub link_title: Option<String>,
    pub target: Target,
    pub children: Vec<Entry>,
    /// A group's slug, when its heading names one the way GitBook writes
    /// it (`## Get Started <a href="#getting-started" id="getting-started"></a>`).
    pub slug: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A markdown file, relative to the summary's folder, anchor removed.
    File(String),
    /// An external link.
    Url(String),
    /// A `## ` heading grouping the pages after it.
    Group,
    /// A list item without a link.
    Nothing,
}

/// The entries of a table of contents, in order (groups hold their pages).
pub fn parse(text: &str) -> Vec<Entry> {
    let mut top: Vec<Entry> = Vec::new();
    // Open list items, innermost last.
    let mut stack: Vec<Entry> = Vec::new();
    let mut in_group_heading = false;
    let mut group_title = String::new();
    let mut group_slug: Option<String> = None;
    // The first `# ` heading is the summary's title; later ones start parts
    // (mdBook's layout), like `## ` headings do.
    let mut seen_title = false;
    let mut link: Option<(String, Option<String>, String)> = None;
    let mut item_text = String::new();
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level != HeadingLevel::H1 || seen_title => {
                in_group_heading = true;
                group_title.clear();
                group_slug = None;
            }
            Event::Start(Tag::Heading { .. }) => seen_title = true,
            Event::End(TagEnd::Heading(_)) if in_group_heading => {
                in_group_heading = false;
                top.push(Entry {
                    title: group_title.trim().to_owned(),
                    link_title: None,
                    target: Target::Group,
                    children: Vec::new(),
                    slug: group_slug.take(),
                });
            }
            Event::Start(Tag::Item) => {
                item_text.clear();
                stack.push(Entry {
                    title: String::new(),
                    link_title: None,
                    target: Target::Nothing,
                    children: Vec::new(),
                    slug: None,
                });
            }
            Event::Start(Tag::Link { dest_url, title, .. }) => {
                let title = (!title.is_empty()).then(|| title.to_string());
                link = Some((dest_url.to_string(), title, String::new()));
            }
            Event::End(TagEnd::Link) if stack.is_empty() && !in_group_heading => {
                // A link outside lists (mdBook's prefix and suffix chapters).
                if let Some((url, nav, text)) = link.take() {
                    let entry = Entry {
                        title: text.trim().to_owned(),
                        link_title: nav,
                        target: target_of(url),
                        children: Vec::new(),
                        slug: None,
                    };
                    match top.last_mut().filter(|g| g.target == Target::Group) {
                        Some(group) => group.children.push(entry),
                        None => top.push(entry),
                    }
                }
            }
            Event::End(TagEnd::Link) => {
                if let (Some((url, nav, text)), Some(entry)) = (link.take(), stack.last_mut())
                    && matches!(entry.target, Target::Nothing)
                {
                    entry.title = text.trim().to_owned();
                    entry.link_title = nav;
                    entry.target = target_of(url);
                }
            }
            Event::InlineHtml(tag) if in_group_heading => {
                if let Some((name, attrs)) = quire_content::document::html::start_tag(&tag)
                    && name == "a"
                {
                    group_slug = attrs
                        .into_iter()
                        .find(|(k, _)| k == "id")
                        .map(|(_, v)| v)
                        .filter(|v| !v.is_empty());
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if in_group_heading {
                    group_title.push_str(&t);
                } else if let Some((_, _, text)) = link.as_mut() {
                    text.push_str(&t);
                } else if !stack.is_empty() {
                    item_text.push_str(&t);
                }
            }
            Event::End(TagEnd::Item) => {
                if let Some(mut entry) = stack.pop() {
                    if matches!(entry.target, Target::Nothing) {
                        entry.title = item_text.trim().to_owned();
                    }
                    item_text.clear();
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(entry),
                        None => match top.last_mut().filter(|g| g.target == Target::Group) {
                            Some(group) => group.children.push(entry),
                            None => top.push(entry),
                        },
                    }
                }
            }
            _ => {}
        }
    }
    top
}

fn target_of(url: String) -> Target {
    if url.contains("://") || url.starts_with("mailto:") {
        Target::Url(url)
    } else if url.is_empty() {
        // mdBook's draft chapters: `[Title]()`.
        Target::Nothing
    } else {
        let path = url.split('#').next().unwrap_or_default();
        Target::File(quire_core::percent::decode(path))
    }
}

/// A link target as written in a summary: spaces and parentheses escaped.
fn link_target(path: &str) -> String {
    path.replace('%', "%25")
        .replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

/// Link text with the characters that would end it escaped.
fn link_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | ']' | '\\' | '*' | '_' | '`' | '<') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The table of contents as markdown, in the shape GitBook writes it.
pub fn write(entries: &[Entry]) -> String {
    fn items(out: &mut String, entries: &[Entry], depth: usize) {
        for entry in entries {
            let indent = "  ".repeat(depth);
            let line = match &entry.target {
                Target::File(path) | Target::Url(path) => {
                    let nav = entry
                        .link_title
                        .as_deref()
                        .map(|t| format!(" \"{}\"", t.replace('"', "\\\"")))
                        .unwrap_or_default();
                    let target = match &entry.target {
                        Target::File(_) => link_target(path),
                        _ => path.clone(),
                    };
                    format!("{indent}* [{}]({target}{nav})\n", link_text(&entry.title))
                }
                _ => format!("{indent}* {}\n", link_text(&entry.title)),
            };
            out.push_str(&line);
            items(out, &entry.children, depth + 1);
        }
    }
    let mut out = String::from("# Table of contents\n\n");
    let mut pages_before = false;
    for entry in entries {
        if entry.target == Target::Group {
            if pages_before || !out.ends_with("\n\n") {
                out.push('\n');
            }
            let anchor = match &entry.slug {
                Some(slug) if *slug != quire_content::markdown::slugify(&entry.title) => {
                    format!(" <a href=\"#{slug}\" id=\"{slug}\"></a>")
                }
                _ => String::new(),
            };
            out.push_str(&format!("## {}{anchor}\n\n", entry.title));
            items(&mut out, &entry.children, 0);
            pages_before = true;
        } else {
            items(&mut out, std::slice::from_ref(entry), 0);
            pages_before = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_read_with_groups_nesting_and_nav_labels() {
        let entries = parse(
            "# Table of contents\n\n* [Introduction](README.md)\n* [Guide](guide/README.md)\n  * [Set up](guide/set%20up.md \"Setup\")\n    - [Deep](guide/deep.md#part)\n\n## Reference\n\n* [API](api.md)\n* [Status](https://status.example.com)\n* Draft\n",
        );
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].target, Target::File("README.md".into()));
        assert_eq!(entries[1].children[0].title, "Set up");
        assert_eq!(entries[1].children[0].link_title.as_deref(), Some("Setup"));
        assert_eq!(entries[1].children[0].target, Target::File("guide/set up.md".into()));
        assert_eq!(
            entries[1].children[0].children[0].target,
            Target::File("guide/deep.md".into())
        );
        assert_eq!(entries[2].target, Target::Group);
        assert_eq!(entries[2].title, "Reference");
        assert_eq!(
            entries[2].children[1].target,
            Target::Url("https://status.example.com".into())
        );
        assert_eq!(entries[2].children[2].target, Target::Nothing);
        assert_eq!(entries[2].children[2].title, "Draft");
    }

    #[test]
    fn mdbook_summaries_have_parts_and_prefix_chapters() {
        let entries = parse(
            "# Summary\n\n[Introduction](README.md)\n\n# User guide\n\n- [Installation](guide/installation.md)\n\n# Reference\n\n- [CLI](cli/README.md)\n    - [init](cli/init.md)\n\n---\n\n[Contributors](misc/contributors.md)\n",
        );
        let shape: Vec<(String, usize)> = entries.iter().map(|e| (e.title.clone(), e.children.len())).collect();
        assert_eq!(
            shape,
            [
                ("Introduction".to_owned(), 0),
                ("User guide".to_owned(), 1),
                ("Reference".to_owned(), 2)
            ]
        );
        assert_eq!(
            entries[2].children[0].children[0].target,
            Target::File("cli/init.md".into())
        );
        assert_eq!(entries[2].children[1].title, "Contributors");
    }

    #[test]
    fn written_summaries_read_back_the_same() {
        let entries = parse(
            "# Table of contents\n\n* [Intro](README.md)\n* [A \\[b\\]](a/README.md)\n  * [C](a/c%20d.md \"Nav\")\n\n## Group\n\n* [E](e.md)\n",
        );
        let written = write(&entries);
        assert_eq!(parse(&written), entries);
        assert_eq!(
            written,
            "# Table of contents\n\n* [Intro](README.md)\n* [A \\[b\\]](a/README.md)\n  * [C](a/c%20d.md \"Nav\")\n\n## Group\n\n* [E](e.md)\n"
        );
    }
}
