//! A page's document as HTML: every block of the typed document model,
//! links resolved to site URLs (broken ones marked), images with their
//! sizes (no layout shift), code highlighted on the server, tabs that work
//! without JavaScript. Pure: what a link points at comes from [`Links`].

use quire_content::document::{
    Block, CodeBlock, ColumnAlign, Container, ContainerKind, Document, HeadingLevel, Image, ImageSource, Inline,
    LinkTarget, ListKind, Marks, OpenApiOperation, OpenApiSchemas,
};

use crate::html::{escape, push_escaped, safe_url};
use crate::{highlight, icon, sanitize};

/// A file as a page shows it.
#[derive(Debug, Clone)]
pub struct FileLink {
    pub url: String,
    pub name: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

/// Where the targets of a page's links are on the site.
pub trait Links {
    /// The URL of a page (with the anchor), or `None` when it is missing.
    fn page(&self, page_id: &str, anchor: Option<&str>) -> Option<String>;
    /// The title of a page, for content-ref cards.
    fn page_title(&self, page_id: &str) -> Option<String>;
    fn file(&self, file_id: &str) -> Option<FileLink>;
    /// What a relative path written in the page (`../guide/setup.md`,
    /// `.gitbook/assets/shot.png`: pages from Git link by path) points at.
    fn relative(&self, _path: &str) -> Option<LinkTarget> {
        None
    }
    /// The document of the reusable content an include names.
    fn include(&self, _path: &str) -> Option<&Document> {
        None
    }
    /// An operation of an OpenAPI spec of the organization.
    fn openapi(&self, _operation: &OpenApiOperation) -> Option<&quire_openapi::Operation> {
        None
    }
    /// The schemas an `openapi-schemas` block names, with their names;
    /// `None` when the spec or a schema is missing.
    fn openapi_schemas(&self, _pointer: &OpenApiSchemas) -> Option<&[(String, quire_openapi::Schema)]> {
        None
    }
    /// The text of an expression shown in the page (`space.vars.version`);
    /// `None` when it has no value.
    fn expression(&self, _expression: &str) -> Option<String> {
        None
    }
    /// Whether the visitor sees content under this condition
    /// (`{% if visitor.claims.beta %}`); unknown visitors see none.
    fn shows(&self, _condition: &str) -> bool {
        false
    }
}

/// Whether a link target is a path relative to the page.
fn is_relative(url: &str) -> bool {
    !url.is_empty()
        && !url.contains("://")
        && !url.starts_with(['/', '#', '?'])
        && !url.starts_with("mailto:")
        && !url.starts_with("tel:")
        && !url.starts_with("data:")
}

/// The site URL of a link target (`None`: it is missing).
fn target_url(links: &dyn Links, target: &LinkTarget) -> Option<String> {
    match target {
        LinkTarget::Page { page } => links.page(page, None),
        LinkTarget::Anchor {
            page: Some(page),
            anchor,
        } => links.page(page, Some(anchor)),
        LinkTarget::Anchor { page: None, anchor } => Some(format!("#{anchor}")),
        LinkTarget::File { file } => links.file(file).map(|f| f.url),
        LinkTarget::Url { url } => Some(url.clone()),
    }
}

/// The site URL of a URL written in a page's HTML (`href`, `src`): paths
/// relative to the page and `/pages/…`, `/files/…` resolved like markdown
/// links; others as written (the sanitizer judges their scheme).
fn html_url(links: &dyn Links, url: &str) -> Option<String> {
    let target = LinkTarget::from_url(url);
    match &target {
        LinkTarget::Url { url } if is_relative(url) => links.relative(url).and_then(|t| target_url(links, &t)),
        _ => target_url(links, &target),
    }
}

/// `50%`, `33.3%`: a column width GitBook writes.
fn is_percentage(width: &str) -> bool {
    width
        .strip_suffix('%')
        .is_some_and(|n| !n.is_empty() && n.len() <= 6 && n.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// The file name at the end of a path, percent-decoded.
fn percent_decoded_name(src: &str) -> String {
    let name = src.rsplit('/').next().unwrap_or(src);
    quire_core::percent::decode(name)
}

/// Renders the document's blocks.
pub fn document(doc: &Document, links: &dyn Links) -> String {
    let mut out = String::with_capacity(4096);
    let mut renderer = Renderer {
        links,
        out: &mut out,
        tabs: 0,
        including: false,
    };
    for block in &doc.blocks {
        renderer.block(block);
    }
    out
}

struct Renderer<'a> {
    links: &'a dyn Links,
    out: &'a mut String,
    /// Tab sets so far (their radio groups need unique names).
    tabs: usize,
    /// Inside an included document (which includes nothing further).
    including: bool,
}

impl Renderer<'_> {
    fn blocks(&mut self, blocks: &[Block]) {
        for block in blocks {
            self.block(block);
        }
    }

    fn block(&mut self, block: &Block) {
        match block {
            Block::Paragraph(inlines) => {
                self.out.push_str("<p>");
                self.inlines(inlines);
                self.out.push_str("</p>\n");
            }
            Block::Heading(heading) => {
                let tag = match heading.level {
                    HeadingLevel::One => "h2",
                    HeadingLevel::Two => "h3",
                    HeadingLevel::Three => "h4",
                };
                let id = escape(&heading.id);
                self.out.push_str(&format!("<{tag} id=\"{id}\">"));
                self.inlines(&heading.content);
                // The anchor is a pointer's convenience: out of the
                // heading's accessible name and of the tab order (the
                // outline links every section).
                self.out.push_str(&format!(
                    "<a class=\"anchor\" href=\"#{id}\" aria-hidden=\"true\" tabindex=\"-1\">#</a></{tag}>\n"
                ));
            }
            Block::List(list) => {
                let (open, close) = match list.kind {
                    ListKind::Bulleted => ("<ul>".to_owned(), "</ul>"),
                    ListKind::Numbered { start } if start != 1 => (format!("<ol start=\"{start}\">"), "</ol>"),
                    ListKind::Numbered { .. } => ("<ol>".to_owned(), "</ol>"),
                    ListKind::Tasks => ("<ul class=\"tasks\">".to_owned(), "</ul>"),
                };
                self.out.push_str(&open);
                for item in &list.items {
                    self.out.push_str("<li>");
                    if list.kind == ListKind::Tasks {
                        let checked = if item.checked { " checked" } else { "" };
                        self.out
                            .push_str(&format!("<input type=\"checkbox\" disabled{checked}> "));
                    }
                    self.list_item(&item.blocks);
                    self.out.push_str("</li>");
                }
                self.out.push_str(close);
                self.out.push('\n');
            }
            Block::Quote(blocks) => {
                self.out.push_str("<blockquote>");
                self.blocks(blocks);
                self.out.push_str("</blockquote>\n");
            }
            Block::Code(code) => self.code(code),
            Block::Hint(hint) => {
                self.out
                    .push_str(&format!("<aside class=\"hint hint-{}\">", hint.style.as_str()));
                self.blocks(&hint.blocks);
                self.out.push_str("</aside>\n");
            }
            Block::Tabs(tabs) => {
                self.tabs += 1;
                let set = self.tabs;
                self.out.push_str("<div class=\"tabs\">");
                for (i, tab) in tabs.iter().enumerate() {
                    let checked = if i == 0 { " checked" } else { "" };
                    self.out.push_str(&format!(
                        "<input type=\"radio\" name=\"tabs-{set}\" id=\"tab-{set}-{i}\"{checked}><label for=\"tab-{set}-{i}\">"
                    ));
                    push_escaped(self.out, &tab.title);
                    self.out.push_str("</label><div class=\"tab\">");
                    self.blocks(&tab.blocks);
                    self.out.push_str("</div>");
                }
                self.out.push_str("</div>\n");
            }
            Block::Expandable(expandable) => {
                let open = if expandable.open { " open" } else { "" };
                self.out
                    .push_str(&format!("<details class=\"expandable\"{open}><summary>"));
                self.inlines(&expandable.title);
                self.out.push_str("</summary>");
                self.blocks(&expandable.blocks);
                self.out.push_str("</details>\n");
            }
            Block::ContentRef { target } => {
                let resolved = match target {
                    LinkTarget::Url { url } if is_relative(url) => self.links.relative(url),
                    _ => None,
                };
                let target = resolved.as_ref().unwrap_or(target);
                let (href, title) = match target {
                    LinkTarget::Page { page } => (self.links.page(page, None), self.links.page_title(page)),
                    LinkTarget::Anchor {
                        page: Some(page),
                        anchor,
                    } => (self.links.page(page, Some(anchor)), self.links.page_title(page)),
                    LinkTarget::Anchor { page: None, anchor } => (Some(format!("#{anchor}")), Some(anchor.clone())),
                    LinkTarget::File { file } => {
                        let f = self.links.file(file);
                        (f.as_ref().map(|f| f.url.clone()), f.map(|f| f.name))
                    }
                    LinkTarget::Url { url } => (Some(url.clone()), Some(url.clone())),
                };
                match href {
                    Some(href) => {
                        self.out
                            .push_str(&format!("<a class=\"card\" href=\"{}\">", safe_url(&href)));
                        push_escaped(self.out, title.as_deref().unwrap_or("Untitled"));
                        self.out.push_str("</a>\n");
                    }
                    None => self.out.push_str("<p class=\"card broken\">Broken link</p>\n"),
                }
            }
            Block::Include { path } => match self.links.include(path).filter(|_| !self.including) {
                Some(included) => {
                    self.including = true;
                    self.out.push_str("<div class=\"include\">");
                    self.blocks(&included.blocks);
                    self.out.push_str("</div>\n");
                    self.including = false;
                }
                None => self
                    .out
                    .push_str("<p class=\"include broken\">Missing reusable content</p>\n"),
            },
            Block::Images(images) => {
                for image in images {
                    self.out.push_str("<figure>");
                    self.image(image);
                    if !image.caption.is_empty() {
                        self.out.push_str("<figcaption>");
                        push_escaped(self.out, &image.caption);
                        self.out.push_str("</figcaption>");
                    }
                    self.out.push_str("</figure>\n");
                }
            }
            Block::Table(table) => {
                self.out.push_str("<div class=\"table\"><table><thead><tr>");
                let align = |a: ColumnAlign| match a {
                    ColumnAlign::Left => "",
                    ColumnAlign::Center => " style=\"text-align:center\"",
                    ColumnAlign::Right => " style=\"text-align:right\"",
                };
                for column in &table.columns {
                    self.out.push_str(&format!("<th{}>", align(column.align)));
                    push_escaped(self.out, &column.title);
                    self.out.push_str("</th>");
                }
                self.out.push_str("</tr></thead><tbody>");
                for row in &table.rows {
                    self.out.push_str("<tr>");
                    for (i, cell) in row.iter().enumerate() {
                        let a = table.columns.get(i).map_or("", |c| align(c.align));
                        self.out.push_str(&format!("<td{a}>"));
                        self.inlines(cell);
                        self.out.push_str("</td>");
                    }
                    self.out.push_str("</tr>");
                }
                self.out.push_str("</tbody></table></div>\n");
            }
            Block::Divider => self.out.push_str("<hr>\n"),
            Block::OpenApiOperation(pointer) => match self.links.openapi(pointer) {
                Some(operation) => self.out.push_str(&crate::openapi::operation(operation)),
                None => {
                    self.out
                        .push_str("<p class=\"broken\">OpenAPI operation not found: <code>");
                    push_escaped(
                        self.out,
                        &format!("{} {}", pointer.method.to_ascii_uppercase(), pointer.path),
                    );
                    self.out.push_str("</code></p>\n");
                }
            },
            Block::Embed { url } => match crate::embed::player(url) {
                Some(player) => {
                    self.out.push_str(&format!(
                        "<div class=\"embed-frame\"><iframe src=\"{}\" title=\"{}\" loading=\"lazy\" allowfullscreen \
                         referrerpolicy=\"strict-origin-when-cross-origin\" \
                         allow=\"accelerometer; encrypted-media; gyroscope; picture-in-picture; fullscreen\"></iframe></div>\n",
                        escape(&player),
                        escape(url)
                    ));
                }
                None => {
                    self.out.push_str(&format!(
                        "<p class=\"embed\"><a href=\"{}\" rel=\"noopener\">",
                        safe_url(url)
                    ));
                    push_escaped(self.out, url);
                    self.out.push_str("</a></p>\n");
                }
            },
            Block::Math { formula } => {
                self.out.push_str(&crate::math::mathml(formula, true));
                self.out.push('\n');
            }
            Block::Container(container) => self.container(container),
            Block::OpenApiSchemas(pointer) => match self.links.openapi_schemas(pointer) {
                Some(named) => self.out.push_str(&crate::openapi::schemas(named)),
                None => {
                    self.out
                        .push_str("<p class=\"broken\">OpenAPI schemas not found: <code>");
                    push_escaped(self.out, &pointer.schemas.join(", "));
                    self.out.push_str("</code></p>\n");
                }
            },
            Block::Html(html) => {
                let links = self.links;
                let clean = sanitize::clean(html, &|url| html_url(links, url));
                let table = html.trim_start().starts_with("<table") && !clean.starts_with("<div class=\"cards");
                if table {
                    self.out.push_str("<div class=\"table\">");
                }
                self.out.push_str(&clean);
                if table {
                    self.out.push_str("</div>");
                }
                self.out.push('\n');
            }
        }
    }

    /// GitBook's container blocks: steps numbered down a line, columns
    /// side by side (stacked on phones), updates with their date and tags,
    /// conditional content when its condition holds, files to download,
    /// prompts as quotes.
    fn container(&mut self, container: &Container) {
        let close = match container.kind {
            ContainerKind::Stepper => {
                self.out.push_str("<ol class=\"stepper\">");
                for block in &container.blocks {
                    match block {
                        Block::Container(step) if step.kind == ContainerKind::Step => {
                            self.out.push_str("<li class=\"step\">");
                            self.blocks(&step.blocks);
                            self.out.push_str("</li>");
                        }
                        other => {
                            self.out.push_str("<li class=\"step\">");
                            self.block(other);
                            self.out.push_str("</li>");
                        }
                    }
                }
                "</ol>"
            }
            ContainerKind::Step => {
                self.out.push_str("<div class=\"step\">");
                self.blocks(&container.blocks);
                "</div>"
            }
            ContainerKind::Columns => {
                self.out.push_str("<div class=\"columns\">");
                self.blocks(&container.blocks);
                "</div>"
            }
            ContainerKind::Column => {
                let width = container.attr("width").filter(|w| is_percentage(w));
                match width {
                    Some(w) => self
                        .out
                        .push_str(&format!("<div class=\"column\" style=\"flex:0 1 {w}\">")),
                    None => self.out.push_str("<div class=\"column\">"),
                }
                self.blocks(&container.blocks);
                "</div>"
            }
            ContainerKind::Updates => {
                self.out.push_str("<div class=\"updates\">");
                self.blocks(&container.blocks);
                "</div>"
            }
            ContainerKind::Update => {
                self.out.push_str("<section class=\"update\"><p class=\"update-meta\">");
                if let Some(date) = container.attr("date").filter(|d| !d.is_empty()) {
                    self.out
                        .push_str(&format!("<time datetime=\"{0}\">{0}</time>", escape(date)));
                }
                for tag in container.attr("tags").unwrap_or_default().split(',').map(str::trim) {
                    if !tag.is_empty() {
                        self.out
                            .push_str(&format!(" <span class=\"tag\">{}</span>", escape(tag)));
                    }
                }
                self.out.push_str("</p>");
                self.blocks(&container.blocks);
                "</section>"
            }
            ContainerKind::If => {
                if self.links.shows(container.attr("condition").unwrap_or_default()) {
                    self.blocks(&container.blocks);
                }
                return;
            }
            ContainerKind::File => {
                let src = container.attr("src").unwrap_or_default();
                let name = percent_decoded_name(src);
                self.out.push_str("<div class=\"file\">");
                match html_url(self.links, src).filter(|_| !src.is_empty()) {
                    Some(href) => {
                        self.out
                            .push_str(&format!("<a class=\"card\" href=\"{}\" download>", safe_url(&href)));
                        push_escaped(self.out, &name);
                        self.out.push_str("</a>");
                    }
                    None => self.out.push_str("<p class=\"card broken\">Missing file</p>"),
                }
                self.blocks(&container.blocks);
                "</div>"
            }
            ContainerKind::Prompt => {
                self.out.push_str("<blockquote class=\"prompt\">");
                self.blocks(&container.blocks);
                "</blockquote>"
            }
        };
        self.out.push_str(close);
        self.out.push('\n');
    }

    /// A list item: a lone paragraph is written without `<p>`.
    fn list_item(&mut self, blocks: &[Block]) {
        match blocks {
            [Block::Paragraph(inlines)] => self.inlines(inlines),
            _ => self.blocks(blocks),
        }
    }

    /// A code block, labelled with its title or else its language, and
    /// highlighted only when it names a language.
    fn code(&mut self, code: &CodeBlock) {
        self.out.push_str("<figure class=\"code\">");
        let language = code.syntax.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let title = code.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
        if let Some(label) = title.or(language) {
            self.out.push_str("<figcaption>");
            push_escaped(self.out, label);
            self.out.push_str("</figcaption>");
        }
        let class = language
            .map(|s| format!(" class=\"language-{}\"", escape(s)))
            .unwrap_or_default();
        let wrap = if code.overflow.is_some_and(|o| o.as_str() == "wrap") {
            " class=\"wrap\""
        } else {
            ""
        };
        let numbered = code.line_numbers == Some(true);
        let pre_class = match (wrap.is_empty(), numbered) {
            (true, false) => String::new(),
            (false, false) => " class=\"wrap\"".to_owned(),
            (true, true) => " class=\"numbered\"".to_owned(),
            (false, true) => " class=\"wrap numbered\"".to_owned(),
        };
        self.out.push_str(&format!("<pre{pre_class}>"));
        if numbered {
            // A gutter beside the code, out of what is read and copied.
            self.out.push_str("<span class=\"gutter\" aria-hidden=\"true\">");
            for n in 1..=code.lines.len().max(1) {
                self.out.push_str(&format!("{n}\n"));
            }
            self.out.push_str("</span>");
        }
        self.out.push_str(&format!("<code{class}>"));
        let text = code.lines.join("\n");
        match language {
            Some(language) => self.out.push_str(&highlight::highlight(&text, language)),
            None => push_escaped(self.out, &text),
        }
        self.out.push_str("</code></pre></figure>\n");
    }

    fn image(&mut self, image: &Image) {
        let (src, width, height) = match &image.source {
            ImageSource::File(id) => match self.links.file(id) {
                Some(f) => (f.url, f.width, f.height),
                None => {
                    self.out.push_str("<span class=\"broken\">Missing image</span>");
                    return;
                }
            },
            ImageSource::Url(url) if is_relative(url) => match self.links.relative(url) {
                Some(LinkTarget::File { file }) => match self.links.file(&file) {
                    Some(f) => (f.url, f.width, f.height),
                    None => (url.clone(), None, None),
                },
                _ => {
                    self.out.push_str("<span class=\"broken\">Missing image</span>");
                    return;
                }
            },
            ImageSource::Url(url) => (url.clone(), None, None),
        };
        self.out.push_str(&format!(
            "<img src=\"{}\" alt=\"{}\"",
            safe_url(&src),
            escape(&image.alt)
        ));
        if let (Some(w), Some(h)) = (width, height) {
            self.out.push_str(&format!(" width=\"{w}\" height=\"{h}\""));
        }
        self.out.push_str(" loading=\"lazy\" decoding=\"async\">");
    }

    /// Inline content; with HTML tags among it (`<mark>`, `<kbd>`…), the
    /// whole run goes through the sanitizer, which balances the tags.
    fn inlines(&mut self, inlines: &[Inline]) {
        if !inlines.iter().any(|inline| matches!(inline, Inline::Html(_))) {
            return self.inline_parts(inlines);
        }
        let start = self.out.len();
        self.inline_parts(inlines);
        let raw = self.out.split_off(start);
        let links = self.links;
        self.out.push_str(&sanitize::clean(&raw, &|url| html_url(links, url)));
    }

    fn inline_parts(&mut self, inlines: &[Inline]) {
        for inline in inlines {
            match inline {
                Inline::Text { text, marks } => self.text(text, *marks),
                Inline::Link { target, content } => {
                    let resolved = match target {
                        LinkTarget::Url { url } if is_relative(url) => self.links.relative(url),
                        _ => None,
                    };
                    let target = resolved.as_ref().unwrap_or(target);
                    let href = target_url(self.links, target);
                    match href {
                        Some(href) => {
                            let external = matches!(target, LinkTarget::Url { .. }) && href.contains("://");
                            let rel = if external { " rel=\"noopener\"" } else { "" };
                            self.out.push_str(&format!("<a href=\"{}\"{rel}>", safe_url(&href)));
                        }
                        None => self.out.push_str("<a class=\"broken\" title=\"Broken link\">"),
                    }
                    self.inlines(content);
                    self.out.push_str("</a>");
                }
                Inline::Image(image) => self.image(image),
                Inline::Math { formula } => self.out.push_str(&crate::math::mathml(formula, false)),
                // Written as is; `inlines` sanitizes the run.
                Inline::Html(tag) => self.out.push_str(tag),
                Inline::Expression { expression } => {
                    if let Some(value) = self.links.expression(expression) {
                        self.out.push_str("<span class=\"expression\">");
                        push_escaped(self.out, &value);
                        self.out.push_str("</span>");
                    }
                }
                // Drawn in the site's style when the page is laid out
                // (`icon::resolve`); not read out.
                Inline::Icon { icon } => icon::push_placeholder(self.out, icon),
            }
        }
    }

    fn text(&mut self, text: &str, marks: Marks) {
        let tags: Vec<&str> = [
            (marks.code, "code"),
            (marks.bold, "strong"),
            (marks.italic, "em"),
            (marks.strikethrough, "del"),
        ]
        .into_iter()
        .filter_map(|(on, tag)| on.then_some(tag))
        .collect();
        for tag in &tags {
            self.out.push_str(&format!("<{tag}>"));
        }
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.out.push_str("<br>");
            }
            push_escaped(self.out, line);
        }
        for tag in tags.iter().rev() {
            self.out.push_str(&format!("</{tag}>"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Site;

    impl Links for Site {
        fn page(&self, page_id: &str, anchor: Option<&str>) -> Option<String> {
            (page_id == "p1").then(|| format!("/docs/intro{}", anchor.map(|a| format!("#{a}")).unwrap_or_default()))
        }
        fn page_title(&self, page_id: &str) -> Option<String> {
            (page_id == "p1").then(|| "Intro".to_owned())
        }
        fn file(&self, file_id: &str) -> Option<FileLink> {
            (file_id == "f1").then(|| FileLink {
                url: "/docs/~files/f1".into(),
                name: "logo.png".into(),
                width: Some(40),
                height: Some(20),
            })
        }
    }

    fn render(markdown: &str) -> String {
        document(&Document::from_markdown(markdown), &Site)
    }

    #[test]
    fn embeds_of_known_players_are_frames_and_others_links() {
        let html = render(
            "{% embed url=\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\" %}\n\n{% embed url=\"https://example.com/x\" %}\n",
        );
        assert!(
            html.contains("<iframe src=\"https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ\""),
            "{html}"
        );
        assert!(
            html.contains("<p class=\"embed\"><a href=\"https://example.com/x\""),
            "{html}"
        );
        let origin = "https://www.youtube-nocookie.com";
        assert!(
            crate::embed::EMBED_ORIGINS.contains(&origin),
            "the policy admits the player"
        );
    }

    #[test]
    fn code_line_numbers_are_a_gutter_apart_from_the_code() {
        let html = render("{% code lineNumbers=\"true\" %}\n```\nfirst\nsecond\n```\n{% endcode %}\n");
        assert!(
            html.contains("<pre class=\"numbered\"><span class=\"gutter\" aria-hidden=\"true\">1\n2\n</span><code>first\nsecond</code></pre>"),
            "{html}"
        );
        assert!(!render("```\nplain\n```\n").contains("gutter"));
    }

    #[test]
    fn gitbook_containers_and_html_are_shown() {
        let html = render(
            "## Install <a href=\"#setup\" id=\"setup\"></a>\n\n{% stepper %}\n{% step %}\nFirst\n{% endstep %}\n\n{% step %}\nSecond\n{% endstep %}\n{% endstepper %}\n\n\
{% columns %}\n{% column width=\"40%\" %}\nLeft\n{% endcolumn %}\n{% endcolumns %}\n\n\
{% updates %}\n{% update date=\"2025-12-25\" tags=\"beta, api\" %}\nShipped\n{% endupdate %}\n{% endupdates %}\n\n\
{% if visitor.claims.unsigned.beta %}\nSecret\n{% endif %}\n\n\
<table><tr><td width=\"30%\">Cell <mark style=\"color:red;\">hot</mark></td></tr></table>\n\n\
Press <kbd>K</kbd> <i class=\"fa-gear\">:gear:</i> <a href=\"/pages/p1\" class=\"button primary\">Start</a>\n",
        );
        assert!(html.contains("<h3 id=\"setup\">Install<a class=\"anchor\""), "{html}");
        assert!(
            html.contains(
                "<ol class=\"stepper\"><li class=\"step\"><p>First</p>\n</li><li class=\"step\"><p>Second</p>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<div class=\"column\" style=\"flex:0 1 40%\"><p>Left</p>"),
            "{html}"
        );
        assert!(html.contains("<time datetime=\"2025-12-25\">2025-12-25</time> <span class=\"tag\">beta</span> <span class=\"tag\">api</span>"), "{html}");
        assert!(
            !html.contains("Secret"),
            "a condition that does not hold hides its content: {html}"
        );
        assert!(
            html.contains(
                "<div class=\"table\"><table><tbody><tr><td width=\"30%\">Cell <mark style=\"color:red\">hot</mark>"
            ),
            "{html}"
        );
        assert!(html.contains("Press <kbd>K</kbd> <span class=\"icon\" data-icon=\"gear\" aria-hidden=\"true\"></span> <a href=\"/docs/intro\" class=\"button primary\""), "{html}");
        assert!(!html.contains("{%") && !html.contains("&lt;"), "{html}");
    }

    #[test]
    fn icons_are_drawn_and_names_cannot_inject() {
        let html = render("Star us on <i class=\"fa-github\">:github:</i> <i class=\"fa-nope-none\">:nope:</i>\n");
        let drawn = icon::resolve(&html, icon::IconStyle::Solid);
        assert!(
            drawn.contains("Star us on <svg class=\"icon\" viewBox=\"0 0 512 512\" aria-hidden=\"true\" fill=\"currentColor\" width=\"1em\" height=\"1em\"><path d=\"M"),
            "{drawn}"
        );
        assert!(
            drawn.contains("\"/></svg> <span class=\"icon\" aria-hidden=\"true\"></span>"),
            "unknown: {drawn}"
        );
        assert!(!drawn.contains(":github:") && !drawn.contains("data-icon"), "{drawn}");
        // Hostile names, in markdown and in GitBook's HTML, inject nothing.
        for hostile in [
            "<i class=\"fa-x&quot;onload\">:x:</i>",
            "<i class=\"fa-x\"onload=alert(1)>:x:</i>",
            "<table><tr><td><i class=\"fa-x&quot;onload\">:x:</i> <span class=\"icon\" data-icon=\"x&quot;onload\" aria-hidden=\"true\"></span><span class=\"icon\" data-icon=\"github\" onclick=\"x()\"></span></td></tr></table>",
        ] {
            let html = render(&format!("A {hostile} b\n"));
            let drawn = icon::resolve(&html, icon::IconStyle::Regular);
            // No tag carries a handler (text may say `onload`, escaped).
            let mut tags = drawn.split('<').skip(1).map(|t| &t[..t.find('>').unwrap_or(t.len())]);
            assert!(
                tags.all(|t| !t.contains("onload") && !t.contains("onclick")),
                "{hostile}: {drawn}"
            );
            assert!(!drawn.contains("<svg"), "{hostile}: {drawn}");
        }
        // A class's other words are only words.
        let html = render("A <i class=\"fa-github&quot; onload=&quot;alert(1)\">:x:</i> b\n");
        let drawn = icon::resolve(&html, icon::IconStyle::Regular);
        assert!(!drawn.contains("onload") && !drawn.contains("alert"), "{drawn}");
        // Icons in GitBook's HTML (a table) are drawn as well.
        let html = render("<table><tr><td><i class=\"fa-house\">:house:</i></td></tr></table>\n");
        let solid = icon::resolve(&html, icon::IconStyle::Solid);
        let regular = icon::resolve(&html, icon::IconStyle::Regular);
        assert!(
            solid.contains("<td><svg class=\"icon\"") && regular.contains("<td><svg class=\"icon\""),
            "{solid}"
        );
        assert_ne!(solid, regular);
    }

    #[test]
    fn blocks_become_html() {
        let html = render("# Setup\n\nSome **bold** and `code` <script>.\n\n- one\n- two\n");
        assert!(
            html.contains("<h2 id=\"setup\">Setup<a class=\"anchor\" href=\"#setup\""),
            "{html}"
        );
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<code>code</code>"));
        assert!(
            !html.contains("<script"),
            "inline HTML goes through the sanitizer: {html}"
        );
        assert!(html.contains("<ul><li>one</li><li>two</li></ul>"));
    }

    #[test]
    fn links_images_and_broken_targets() {
        let html = render(
            "[Intro](/pages/p1) [gone](/pages/zzzzzzzzzzzzzzzzzzzz) [x](javascript:alert(1))\n\n![Logo](/files/f1)\n",
        );
        assert!(html.contains("<a href=\"/docs/intro\">Intro</a>"), "{html}");
        assert!(
            html.contains("<a class=\"broken\" title=\"Broken link\">gone</a>"),
            "{html}"
        );
        assert!(!html.contains("javascript:"), "{html}");
        assert!(
            html.contains("src=\"/docs/~files/f1\" alt=\"Logo\" width=\"40\" height=\"20\""),
            "{html}"
        );
    }

    #[test]
    fn hints_tabs_and_code() {
        let html = render(
            "{% hint style=\"warning\" %}\nCareful\n{% endhint %}\n\n{% tabs %}\n{% tab title=\"A\" %}\nFirst\n{% endtab %}\n{% tab title=\"B\" %}\nSecond\n{% endtab %}\n{% endtabs %}\n\n```rust\nfn main() { let x = \"hi\"; } // done\n```\n",
        );
        assert!(
            html.contains("<aside class=\"hint hint-warning\"><p>Careful</p>"),
            "{html}"
        );
        assert!(
            html.contains("type=\"radio\" name=\"tabs-1\" id=\"tab-1-0\" checked"),
            "{html}"
        );
        assert!(html.contains("<span class=\"k\">fn</span>"), "{html}");
        assert!(html.contains("<span class=\"s\">&quot;hi&quot;</span>"), "{html}");
        assert!(html.contains("<span class=\"c\">// done</span>"), "{html}");
    }

    #[test]
    fn code_is_labelled_and_highlighted_only_with_a_language() {
        let plain = render("```\nlet x = \"hi\"; // note\n```\n");
        assert!(!plain.contains("<span"), "no guessed highlighting: {plain}");
        assert!(!plain.contains("<figcaption>"), "{plain}");
        assert!(
            plain.contains("<pre><code>let x = &quot;hi&quot;; // note</code></pre>"),
            "{plain}"
        );
        let rust = render("```rust\nfn main() {}\n```\n");
        assert!(
            rust.contains(
                "<figcaption>rust</figcaption><pre><code class=\"language-rust\"><span class=\"k\">fn</span>"
            ),
            "{rust}"
        );
        let titled = render("{% code title=\"main.rs\" %}\n```rust\nfn main() {}\n```\n{% endcode %}\n");
        assert!(titled.contains("<figcaption>main.rs</figcaption>"), "{titled}");
        assert!(!titled.contains("<figcaption>rust</figcaption>"), "{titled}");
    }
}
