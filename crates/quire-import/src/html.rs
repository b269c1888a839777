//! A web page as a page of a space: its title, its main content as
//! markdown (navigation, headers, footers, scripts and forms left out), and
//! the pages and images it points at (absolute URLs, so the importer can
//! follow links and download images, then rewrite them).
//!
//! The main content is the first `<main>`, `<article>` or element with
//! `role="main"`, else the body. The markdown comes from `htmd` (headings,
//! lists, code with its language, tables, links, images).

use std::rc::Rc;

use htmd::{HtmlToMarkdown, Node};
use markup5ever_rcdom::NodeData;
use url::Url;

/// What a web page holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebPage {
    pub title: String,
    /// The main content as markdown; links and images point at absolute
    /// URLs.
    pub markdown: String,
    /// Pages it links to anywhere (its navigation included: that is how a
    /// site's pages are found), absolute, without fragments, in order.
    pub links: Vec<Url>,
    /// Images it shows (absolute), in order.
    pub images: Vec<Url>,
}

/// Elements that are never content.
const NOT_CONTENT: [&str; 12] = [
    "script", "style", "noscript", "template", "iframe", "form", "button", "nav", "header", "footer", "aside", "svg",
];

fn tag(node: &Node) -> Option<&str> {
    match &node.data {
        NodeData::Element { name, .. } => Some(&name.local),
        _ => None,
    }
}

fn attr(node: &Node, name: &str) -> Option<String> {
    match &node.data {
        NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .find(|a| &*a.name.local == name)
            .map(|a| a.value.to_string()),
        _ => None,
    }
}

fn set_attr(node: &Node, name: &str, value: &str) {
    if let NodeData::Element { attrs, .. } = &node.data {
        for a in attrs.borrow_mut().iter_mut() {
            if &*a.name.local == name {
                a.value = value.into();
            }
        }
    }
}

fn text_of(node: &Rc<Node>) -> String {
    let mut out = String::new();
    fn walk(node: &Rc<Node>, out: &mut String) {
        if let NodeData::Text { contents } = &node.data {
            out.push_str(&contents.borrow());
        }
        for child in node.children.borrow().iter() {
            walk(child, out);
        }
    }
    walk(node, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first element (depth first) for which `want` holds.
fn find(node: &Rc<Node>, want: &dyn Fn(&Node) -> bool) -> Option<Rc<Node>> {
    if want(node) {
        return Some(node.clone());
    }
    for child in node.children.borrow().iter() {
        if let Some(found) = find(child, want) {
            return Some(found);
        }
    }
    None
}

/// Removes what is not content, below `node`.
fn prune(node: &Rc<Node>) {
    node.children.borrow_mut().retain(|child| {
        let keep = match tag(child) {
            Some(name) => !NOT_CONTENT.contains(&name) && attr(child, "aria-hidden").as_deref() != Some("true"),
            None => !matches!(child.data, NodeData::Comment { .. }),
        };
        if keep {
            prune(child);
        }
        keep
    });
}

/// Makes links and images absolute (collecting them) below `node`.
fn absolutize(node: &Rc<Node>, base: &Url, links: &mut Vec<Url>, images: &mut Vec<Url>) {
    match tag(node) {
        Some("a") => {
            if let Some(href) = attr(node, "href")
                && let Ok(mut url) = base.join(href.trim())
                && matches!(url.scheme(), "http" | "https")
            {
                set_attr(node, "href", url.as_str());
                url.set_fragment(None);
                if !links.contains(&url) {
                    links.push(url);
                }
            }
        }
        Some("img") => {
            if let Some(src) = attr(node, "src")
                && let Ok(url) = base.join(src.trim())
                && matches!(url.scheme(), "http" | "https")
            {
                set_attr(node, "src", url.as_str());
                if !images.contains(&url) {
                    images.push(url);
                }
            }
        }
        _ => {}
    }
    for child in node.children.borrow().iter() {
        absolutize(child, base, links, images);
    }
}

/// Reads a web page fetched from `url`.
pub fn read(html: &str, url: &Url) -> WebPage {
    let options = htmd::options::Options {
        bullet_list_marker: htmd::options::BulletListMarker::Dash,
        ul_bullet_spacing: 1,
        ol_number_spacing: 1,
        ..Default::default()
    };
    let converter = HtmlToMarkdown::builder()
        .options(options)
        .skip_tags(NOT_CONTENT.to_vec())
        .build();
    let Ok(document) = converter.html_to_tree(html) else {
        return WebPage {
            title: String::new(),
            markdown: String::new(),
            links: Vec::new(),
            images: Vec::new(),
        };
    };
    // `<base href>` changes what relative URLs mean.
    let base = find(&document, &|n| tag(n) == Some("base"))
        .and_then(|b| attr(&b, "href"))
        .and_then(|href| url.join(&href).ok())
        .unwrap_or_else(|| url.clone());
    let main = find(&document, &|n| {
        matches!(tag(n), Some("main" | "article")) || attr(n, "role").as_deref() == Some("main")
    })
    .or_else(|| find(&document, &|n| tag(n) == Some("body")))
    .unwrap_or_else(|| document.clone());
    // Links are collected from the whole page first.
    let mut links = Vec::new();
    absolutize(&document, &base, &mut links, &mut Vec::new());
    prune(&main);
    let h1 = find(&main, &|n| tag(n) == Some("h1")).map(|h| text_of(&h));
    let title_tag = find(&document, &|n| tag(n) == Some("title")).map(|t| text_of(&t));
    let title = h1.or(title_tag).filter(|t| !t.is_empty()).unwrap_or_else(|| {
        url.path()
            .rsplit('/')
            .find(|s| !s.is_empty())
            .unwrap_or("Home")
            .to_owned()
    });
    let mut images = Vec::new();
    absolutize(&main, &base, &mut Vec::new(), &mut images);
    let mut markdown = converter.tree_to_markdown(&main);
    if !markdown.is_empty() {
        markdown.push('\n');
    }
    WebPage {
        title,
        markdown,
        links,
        images,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_content_becomes_markdown() {
        let html = r#"<!doctype html><html><head><title>Setup | Acme Docs</title><script>x()</script></head>
<body><header><a href="/">Acme</a></header><nav><a href="/docs/other">Other</a></nav>
<main><h1>Setup</h1><p>Install it, then read <a href="../guide/intro#top">the intro</a>.</p>
<pre><code class="language-bash">quire serve
</code></pre>
<table><thead><tr><th>Flag</th><th>Meaning</th></tr></thead><tbody><tr><td>--listen</td><td>address</td></tr></tbody></table>
<ul><li>one</li><li>two</li></ul>
<img src="img/shot.png" alt="Shot"><a href="https://elsewhere.example/x">out</a><form><input></form></main>
<footer>© Acme</footer></body></html>"#;
        let page = read(html, &Url::parse("https://docs.acme.example/docs/setup/").unwrap());
        assert_eq!(page.title, "Setup");
        assert!(page.markdown.starts_with("# Setup\n"), "{}", page.markdown);
        assert!(
            page.markdown
                .contains("[the intro](https://docs.acme.example/docs/guide/intro#top)"),
            "{}",
            page.markdown
        );
        assert!(page.markdown.contains("```bash\nquire serve\n```"), "{}", page.markdown);
        assert!(
            page.markdown.contains("| Flag     | Meaning |\n| -------- | ------- |"),
            "{}",
            page.markdown
        );
        assert!(page.markdown.contains("- one\n- two"), "{}", page.markdown);
        assert!(
            page.markdown
                .contains("![Shot](https://docs.acme.example/docs/setup/img/shot.png)"),
            "{}",
            page.markdown
        );
        assert!(
            !page.markdown.contains("Other") && !page.markdown.contains("© Acme") && !page.markdown.contains("x()")
        );
        assert_eq!(
            page.links.iter().map(Url::as_str).collect::<Vec<_>>(),
            [
                "https://docs.acme.example/",
                "https://docs.acme.example/docs/other",
                "https://docs.acme.example/docs/guide/intro",
                "https://elsewhere.example/x"
            ]
        );
        assert_eq!(
            page.images[0].as_str(),
            "https://docs.acme.example/docs/setup/img/shot.png"
        );
    }

    #[test]
    fn without_main_the_body_without_its_chrome_is_read() {
        let page = read(
            "<html><head><title>Plain</title></head><body><nav>menu</nav><p>Hello <b>world</b>.</p></body></html>",
            &Url::parse("http://127.0.0.1/plain.html").unwrap(),
        );
        assert_eq!(page.title, "Plain");
        assert_eq!(page.markdown, "Hello **world**.\n");
    }
}
