//! Reading GitBook-flavoured markdown: front matter, the page title, slugs
//! and the links a page makes.

use pulldown_cmark::{Event, Parser, Tag};

/// Front matter (`---` fenced, at the very start) and the body after it.
pub fn split_front_matter(markdown: &str) -> (Option<&str>, &str) {
    let Some(rest) = markdown
        .strip_prefix("---\n")
        .or_else(|| markdown.strip_prefix("---\r\n"))
    else {
        return (None, markdown);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (Some(&rest[..offset]), &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, markdown)
}

/// A scalar value of front matter, read as YAML (folded and literal
/// blocks, quoted and plain styles; numbers and booleans as written). Front
/// matter that is not YAML is read line by line as `key: value`.
pub fn front_matter_value(front_matter: &str, key: &str) -> Option<String> {
    let Some(mapping) = yaml_mapping(front_matter) else {
        return line_value(front_matter, key);
    };
    let text = match mapping.get(key)? {
        serde_norway::Value::String(text) => text.trim().to_owned(),
        serde_norway::Value::Bool(value) => value.to_string(),
        serde_norway::Value::Number(number) => number.to_string(),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// A mapping of front matter (a page's `vars`) as JSON, when there is one.
pub fn front_matter_mapping(front_matter: &str, key: &str) -> Option<serde_json::Value> {
    let value = yaml_mapping(front_matter)?.get(key)?.clone();
    serde_json::to_value(value).ok().filter(serde_json::Value::is_object)
}

/// How a page asks to be laid out (front matter `layout`, as GitBook
/// writes it): each part shown unless it says `visible: false`; the width
/// `default` or `wide`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLayout {
    pub wide: bool,
    pub title: bool,
    pub description: bool,
    pub table_of_contents: bool,
    pub outline: bool,
    pub pagination: bool,
    /// The page's metadata under it (when it was last updated).
    pub metadata: bool,
}

impl Default for PageLayout {
    fn default() -> PageLayout {
        PageLayout {
            wide: false,
            title: true,
            description: true,
            table_of_contents: true,
            outline: true,
            pagination: true,
            metadata: true,
        }
    }
}

/// The layout a page's front matter asks for (the default without one).
pub fn page_layout(front_matter: Option<&str>) -> PageLayout {
    let Some(layout) = front_matter.and_then(|f| front_matter_mapping(f, "layout")) else {
        return PageLayout::default();
    };
    let visible = |part: &str| layout[part]["visible"].as_bool().unwrap_or(true);
    PageLayout {
        wide: layout["width"].as_str() == Some("wide"),
        title: visible("title"),
        description: visible("description"),
        table_of_contents: visible("tableOfContents"),
        outline: visible("outline"),
        pagination: visible("pagination"),
        metadata: visible("metadata"),
    }
}

/// Variables written as YAML (`.gitbook/vars.yaml`): a mapping, as JSON;
/// `None` for anything else.
pub fn variables(yaml: &str) -> Option<serde_json::Value> {
    let mapping = yaml_mapping(yaml)?;
    serde_json::to_value(mapping).ok().filter(serde_json::Value::is_object)
}

/// Front matter as a YAML mapping, when it is one (and not nested too deep
/// to parse in reasonable time).
fn yaml_mapping(front_matter: &str) -> Option<serde_norway::Mapping> {
    quire_core::yaml::check_nesting(front_matter, quire_core::yaml::MAX_FLOW_DEPTH).ok()?;
    match serde_norway::from_str(front_matter).ok()? {
        serde_norway::Value::Mapping(mapping) => Some(mapping),
        _ => None,
    }
}

/// `key: value` on a line of its own (quotes removed): front matter that
/// YAML cannot read.
fn line_value(front_matter: &str, key: &str) -> Option<String> {
    front_matter.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        if k.trim() != key || line.starts_with(char::is_whitespace) {
            return None;
        }
        let v = v.trim();
        let unquoted = match v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
            // YAML's single-quoted style doubles its quotes.
            Some(single) => single.replace("''", "'"),
            None => v
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or(v)
                .to_owned(),
        };
        (!unquoted.is_empty()).then_some(unquoted)
    })
}

/// The text of the first level-1 heading before any other content.
pub fn leading_heading(body: &str) -> Option<String> {
    let line = body.lines().find(|l| !l.trim().is_empty())?;
    let title = line.strip_prefix("# ")?.trim();
    (!title.is_empty()).then(|| title.to_owned())
}

/// The body without its leading `# heading` when that heading says
/// `title`: GitBook's files begin with the page's title as a heading, which
/// is the title, not a second heading under it.
pub fn without_title_heading<'a>(body: &'a str, title: &str) -> &'a str {
    if leading_heading(body).as_deref() != Some(title.trim()) {
        return body;
    }
    let start = body.len() - body.trim_start().len();
    let line_end = body[start..].find('\n').map_or(body.len(), |end| start + end + 1);
    body[line_end..].trim_start_matches(['\n', '\r'])
}

/// A page's title: front matter `title`, else its leading `# heading`.
pub fn title(markdown: &str) -> Option<String> {
    let (front, body) = split_front_matter(markdown);
    front
        .and_then(|f| front_matter_value(f, "title"))
        .or_else(|| leading_heading(body))
}

/// A URL-safe slug: lower-case letters and digits, words joined by `-`.
pub fn slugify(text: &str) -> String {
    let mut slug = String::with_capacity(text.len());
    let mut dash = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if dash && !slug.is_empty() {
                slug.push('-');
            }
            slug.push(c);
            dash = false;
        } else {
            dash = true;
        }
    }
    if slug.is_empty() { "page".to_owned() } else { slug }
}

/// A page slug from a file or folder name, as GitBook's URLs use it: the
/// name itself when it is only letters (any script), digits, `-`, `_` and
/// `.` (`vue.js-guide`, `快速开始`), else the name [`slugify`]d.
pub fn file_slug(name: &str) -> String {
    let kept = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if kept { name.to_owned() } else { slugify(name) }
}

/// How a page refers to a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    Link,
    Image,
    ContentRef,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Link => "link",
            Relation::Image => "image",
            Relation::ContentRef => "content-ref",
        }
    }
}

/// Every target a page's markdown points at (links, images and
/// `{% content-ref url="..." %}` blocks), in order of appearance.
pub fn links(markdown: &str) -> Vec<(String, Relation)> {
    let (_, body) = split_front_matter(markdown);
    let mut found = Vec::new();
    for event in Parser::new(body) {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => found.push((dest_url.into_string(), Relation::Link)),
            Event::Start(Tag::Image { dest_url, .. }) => found.push((dest_url.into_string(), Relation::Image)),
            _ => {}
        }
    }
    let mut rest = body;
    while let Some(start) = rest.find("{% content-ref url=\"") {
        let after = &rest[start + "{% content-ref url=\"".len()..];
        let Some(end) = after.find('"') else { break };
        found.push((after[..end].to_owned(), Relation::ContentRef));
        rest = &after[end..];
    }
    found
}

/// Just the targets of [`links`].
pub fn link_targets(markdown: &str) -> Vec<String> {
    links(markdown).into_iter().map(|(target, _)| target).collect()
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn file_names_are_slugs_as_they_are() {
        assert_eq!(
            file_slug("vue.js-no-code-email-builder"),
            "vue.js-no-code-email-builder"
        );
        assert_eq!(file_slug("快速开始"), "快速开始");
        assert_eq!(file_slug("API_Reference"), "API_Reference");
        assert_eq!(file_slug("Getting Started"), "getting-started");
        assert_eq!(file_slug(".hidden"), "hidden");
    }

    #[test]
    fn a_heading_saying_the_title_is_the_title() {
        assert_eq!(without_title_heading("# Setup\n\nText\n", "Setup"), "Text\n");
        assert_eq!(without_title_heading("\n# Setup\r\n\r\nText", "Setup"), "Text");
        assert_eq!(without_title_heading("# Other\n\nText\n", "Setup"), "# Other\n\nText\n");
        assert_eq!(without_title_heading("Text\n# Setup\n", "Setup"), "Text\n# Setup\n");
    }

    #[test]
    fn front_matter_is_read_as_yaml() {
        let front =
            "description: >-\n  Folded text\n  on two lines.\nhidden: true\nicon: rocket\ntitle: 'It''s here'\n";
        assert_eq!(
            front_matter_value(front, "description").as_deref(),
            Some("Folded text on two lines.")
        );
        assert_eq!(front_matter_value(front, "hidden").as_deref(), Some("true"));
        assert_eq!(front_matter_value(front, "title").as_deref(), Some("It's here"));
        assert_eq!(
            front_matter_value("description: |\n  One\n  Two\n", "description").as_deref(),
            Some("One\nTwo")
        );
        assert_eq!(front_matter_value("layout:\n  width: wide\n", "layout"), None);
        // Not YAML (a tab indent, an unclosed quote): read line by line.
        assert_eq!(
            front_matter_value("title: \"Broken\ndescription: Still read\n", "description").as_deref(),
            Some("Still read")
        );
    }

    #[test]
    fn titles_from_front_matter_or_heading() {
        assert_eq!(
            title("---\ntitle: \"Getting started\"\n---\n\n# Ignored\n").as_deref(),
            Some("Getting started")
        );
        assert_eq!(title("\n# Install\n\nText").as_deref(), Some("Install"));
        assert_eq!(title("Text first\n# Late"), None);
        assert_eq!(
            split_front_matter("---\ndescription: x\n---\nbody"),
            (Some("description: x\n"), "body")
        );
    }

    #[test]
    fn slugs() {
        assert_eq!(slugify("Getting Started!"), "getting-started");
        assert_eq!(slugify("  API / v2  "), "api-v2");
        assert_eq!(slugify("Ünïcode Title"), "ünïcode-title");
        assert_eq!(slugify("***"), "page");
    }

    #[test]
    fn links_images_and_content_refs() {
        let md = "See [guide](./guide.md) and ![logo](./logo.png).\n\n{% content-ref url=\"api/README.md\" %}\n[api](api/README.md)\n{% endcontent-ref %}\n";
        assert_eq!(
            link_targets(md),
            vec!["./guide.md", "./logo.png", "api/README.md", "api/README.md"]
        );
    }
}

/// The block tags Quire reads (where GitBook reads them).
const KNOWN_TAGS: [&str; 20] = [
    "hint",
    "tabs",
    "tab",
    "code",
    "content-ref",
    "embed",
    "include",
    "openapi",
    "openapi-operation",
    "openapi-schemas",
    "swagger",
    "stepper",
    "step",
    "columns",
    "column",
    "updates",
    "update",
    "if",
    "file",
    "prompt",
];

/// What a page says that Quire does not understand, a note each: block
/// tags it does not know (shown as text) and links to other GitBook spaces
/// (`app.gitbook.com/s/<id>`, which still point at GitBook). For the
/// import's report, so nothing is dropped silently.
pub fn not_understood(markdown: &str) -> Vec<String> {
    use crate::document::{Block, Document, Inline};
    let mut notes = Vec::new();
    let document = Document::from_markdown(markdown);
    for block in document.walk() {
        if let Block::Paragraph(content) = block
            && let [Inline::Text { text, .. }, ..] = content.as_slice()
            && let Some(tag) = text.strip_prefix("{%")
        {
            let name = tag.split_whitespace().next().unwrap_or_default();
            // An unknown tag's end says nothing more; a known tag shown as
            // text sits where GitBook keeps it text too (in a list, a quote).
            if name.starts_with("end") || KNOWN_TAGS.contains(&name) {
                continue;
            }
            let note = format!("`{{% {name} %}}` is not a block Quire knows; it is shown as text");
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    let mut rest = markdown;
    while let Some(at) = rest.find("app.gitbook.com/s/") {
        let start = rest[..at]
            .rfind(|c: char| c.is_whitespace() || matches!(c, '(' | '"' | '<' | '['))
            .map_or(0, |i| i + 1);
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '>' | ']'))
            .map_or(rest.len(), |i| at + i);
        let note = format!(
            "links to another GitBook space ({}); the link still points at GitBook",
            &rest[start..end]
        );
        if !notes.contains(&note) {
            notes.push(note);
        }
        rest = &rest[end..];
    }
    notes
}

#[cfg(test)]
mod not_understood_tests {
    #[test]
    fn unknown_tags_and_other_spaces_are_noted() {
        let notes = super::not_understood(
            "# A\n\n{% @github-files/github-code-block %}\n\n- {% hint style=\"info\" %}\n\nSee [it](https://app.gitbook.com/s/abc123/guide) and <a href=\"https://app.gitbook.com/s/xyz/\">that</a>.\n\n{% hint %}\nFine\n{% endhint %}\n",
        );
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("@github-files/github-code-block"), "{notes:?}");
        assert!(
            notes[1].contains("(https://app.gitbook.com/s/abc123/guide)"),
            "{notes:?}"
        );
        assert!(notes[2].contains("(https://app.gitbook.com/s/xyz/)"), "{notes:?}");
    }
}
