//! Machine-readable files of a site: `robots.txt`, `sitemap.xml`,
//! `llms.txt` (an index of every page as markdown) and a page's markdown.

use crate::html::escape;

/// A page as the machine-readable files list it.
#[derive(Debug, Clone)]
pub struct Listed {
    /// Section and space titles the page sits under (`Guides / API`).
    pub group: String,
    pub title: String,
    pub description: Option<String>,
    /// Absolute URL of the page.
    pub url: String,
}

pub fn robots(indexable: bool, sitemap: &str) -> String {
    if indexable {
        format!("User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n")
    } else {
        "User-agent: *\nDisallow: /\n".to_owned()
    }
}

pub fn sitemap(pages: &[Listed]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for page in pages {
        out.push_str(&format!("<url><loc>{}</loc></url>\n", escape(&page.url)));
    }
    out.push_str("</urlset>\n");
    out
}

/// The llms.txt index: the site's title, then each group's pages as links
/// to their markdown.
pub fn llms(site_title: &str, pages: &[Listed]) -> String {
    let mut out = format!("# {site_title}\n");
    let mut group: Option<&str> = None;
    for page in pages {
        if group != Some(page.group.as_str()) {
            out.push_str(&format!("\n## {}\n\n", page.group));
            group = Some(&page.group);
        }
        out.push_str(&format!(
            "- [{}]({}.md)",
            page.title.replace(']', "\\]"),
            page.url.trim_end_matches('/')
        ));
        if let Some(d) = page.description.as_deref().filter(|d| !d.is_empty()) {
            out.push_str(&format!(": {d}"));
        }
        out.push('\n');
    }
    out
}

/// A change in the feed.
#[derive(Debug, Clone)]
pub struct Change {
    pub title: String,
    /// Absolute URL of the changed space.
    pub url: String,
    /// A stable id (the revision).
    pub guid: String,
    /// RFC 2822 date.
    pub date: String,
}

/// The RSS 2.0 feed of recent changes.
pub fn rss(site_title: &str, site_url: &str, changes: &[Change]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>");
    out.push_str(&format!(
        "<title>{}</title><link>{}</link><description>Recent changes to {}</description>",
        escape(site_title),
        escape(site_url),
        escape(site_title)
    ));
    for change in changes {
        out.push_str(&format!(
            "<item><title>{}</title><link>{}</link><guid isPermaLink=\"false\">{}</guid><pubDate>{}</pubDate></item>",
            escape(&change.title),
            escape(&change.url),
            escape(&change.guid),
            escape(&change.date)
        ));
    }
    out.push_str("</channel></rss>\n");
    out
}

/// A page as markdown: its title, its description, its body (without a
/// leading heading that says the title again).
pub fn markdown(title: &str, description: Option<&str>, body: &str) -> String {
    let mut out = format!("# {title}\n\n");
    if let Some(d) = description.filter(|d| !d.is_empty()) {
        out.push_str(d);
        out.push_str("\n\n");
    }
    let (_, body) = quire_content::markdown::split_front_matter(body);
    out.push_str(quire_content::markdown::without_title_heading(body, title).trim_start());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_files() {
        let pages = vec![
            Listed {
                group: "Guide".into(),
                title: "Intro".into(),
                description: Some("Start here".into()),
                url: "https://x/docs/intro".into(),
            },
            Listed {
                group: "API".into(),
                title: "Auth".into(),
                description: None,
                url: "https://x/docs/api/auth".into(),
            },
        ];
        assert_eq!(
            llms("Docs", &pages),
            "# Docs\n\n## Guide\n\n- [Intro](https://x/docs/intro.md): Start here\n\n## API\n\n- [Auth](https://x/docs/api/auth.md)\n"
        );
        assert!(sitemap(&pages).contains("<url><loc>https://x/docs/api/auth</loc></url>"));
        assert_eq!(robots(false, ""), "User-agent: *\nDisallow: /\n");
        assert!(robots(true, "https://x/docs/sitemap.xml").contains("Sitemap: https://x/docs/sitemap.xml"));
    }
}
