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

/// A scalar `key: value` of front matter (quotes removed).
pub fn front_matter_value(front_matter: &str, key: &str) -> Option<String> {
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

/// A page's title: front matter `title`, else its leading `# heading`.
pub fn title(markdown: &str) -> Option<String> {
    let (front, body) = split_front_matter(markdown);
    front
        .and_then(|f| front_matter_value(f, "title"))
        .or_else(|| leading_heading(body))
}

/// Percent-decodes a link target or URL path segment (`%20` → space);
/// invalid escapes are kept as written, invalid UTF-8 replaced.
pub fn percent_decode(text: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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

    #[test]
    fn percent_escapes_decode_without_panicking() {
        assert_eq!(super::percent_decode("caf%C3%A9"), "café");
        assert_eq!(super::percent_decode("%é%"), "%é%");
        assert_eq!(super::percent_decode("%zz%4"), "%zz%4");
    }
    use super::*;

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
