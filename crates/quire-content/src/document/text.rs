//! Reading a document's words: the plain text of inline content and blocks,
//! a walk over every block (nested ones included) and the headings with
//! their anchors, for consumers that index or lay out pages (search
//! sections, HTML, PDF).

use super::model::{Block, ContainerKind, Document, Heading, Image, ImageSource, Inline};

/// The text of inline content: its text and the text of its links, marks
/// and link targets aside (images and formulas have no text).
pub fn plain_text(content: &[Inline]) -> String {
    let mut out = String::new();
    push_inline_text(&mut out, content);
    out
}

fn push_inline_text(out: &mut String, content: &[Inline]) {
    for inline in content {
        match inline {
            Inline::Text { text, .. } => out.push_str(text),
            Inline::Link { content, .. } => push_inline_text(out, content),
            Inline::Image(_)
            | Inline::Math { .. }
            | Inline::Html(_)
            | Inline::Icon { .. }
            | Inline::Expression { .. } => {}
        }
    }
}

/// The lists of blocks a block holds (list items, quote, hint, tabs,
/// expandable, GitBook container): the one place that knows which blocks
/// nest, for the walks that change them.
fn children_mut(block: &mut Block) -> Vec<&mut Vec<Block>> {
    match block {
        Block::List(list) => list.items.iter_mut().map(|i| &mut i.blocks).collect(),
        Block::Quote(blocks) => vec![blocks],
        Block::Hint(hint) => vec![&mut hint.blocks],
        Block::Tabs(tabs) => tabs.iter_mut().map(|t| &mut t.blocks).collect(),
        Block::Expandable(expandable) => vec![&mut expandable.blocks],
        Block::Container(container) => vec![&mut container.blocks],
        _ => Vec::new(),
    }
}

/// Visits the HTML of every HTML block of `blocks`, nested ones included.
fn html_in(blocks: &mut [Block], f: &mut dyn FnMut(&mut String)) {
    for block in blocks {
        if let Block::Html(html) = block {
            f(html);
        }
        for children in children_mut(block) {
            html_in(children, f);
        }
    }
}

/// Visits every image of `blocks`, nested ones included.
fn images_in(blocks: &mut [Block], f: &mut dyn FnMut(&mut Image)) {
    fn inlines(content: &mut [Inline], f: &mut dyn FnMut(&mut Image)) {
        for inline in content {
            match inline {
                Inline::Image(image) => f(image),
                Inline::Link { content, .. } => inlines(content, f),
                _ => {}
            }
        }
    }
    for block in blocks {
        match block {
            Block::Paragraph(content) => inlines(content, f),
            Block::Heading(heading) => inlines(&mut heading.content, f),
            Block::List(list) => list.items.iter_mut().for_each(|i| images_in(&mut i.blocks, f)),
            Block::Quote(blocks) => images_in(blocks, f),
            Block::Hint(hint) => images_in(&mut hint.blocks, f),
            Block::Container(container) => images_in(&mut container.blocks, f),
            Block::Tabs(tabs) => tabs.iter_mut().for_each(|t| images_in(&mut t.blocks, f)),
            Block::Expandable(expandable) => {
                inlines(&mut expandable.title, f);
                images_in(&mut expandable.blocks, f);
            }
            Block::Images(images) => images.iter_mut().for_each(&mut *f),
            Block::Table(table) => table.rows.iter_mut().flatten().for_each(|cell| inlines(cell, f)),
            Block::Code(_)
            | Block::ContentRef { .. }
            | Block::Include { .. }
            | Block::Divider
            | Block::Embed { .. }
            | Block::Math { .. }
            | Block::Html(_)
            | Block::OpenApiOperation(_)
            | Block::OpenApiSchemas(_) => {}
        }
    }
}

impl Document {
    /// Makes images given by a relative path (`../.gitbook/assets/x.png`,
    /// as Git-synced pages write them) images of the space's files where
    /// `file_at` knows the file at that path; how many it resolved.
    pub fn resolve_image_paths(&mut self, file_at: &dyn Fn(&str) -> Option<String>) -> usize {
        let mut resolved = 0;
        // Images in GitBook's HTML (`<img src="../.gitbook/assets/x.png">`).
        html_in(&mut self.blocks, &mut |html| {
            for (src, _) in super::html::images(html) {
                if !src.contains("://")
                    && !src.starts_with("data:")
                    && !src.starts_with("/files/")
                    && let Some(id) = file_at(&src)
                {
                    *html = html.replace(&format!("src=\"{src}\""), &format!("src=\"/files/{id}\""));
                    resolved += 1;
                }
            }
        });
        images_in(&mut self.blocks, &mut |image| {
            if let ImageSource::Url(url) = &image.source
                && !url.contains("://")
                && !url.starts_with("data:")
                && let Some(id) = file_at(url)
            {
                image.source = ImageSource::File(id);
                resolved += 1;
            }
        });
        resolved
    }

    /// Removes a leading level-1 heading that says `title`: GitBook's files
    /// begin with the page's title as a heading, which is the title itself,
    /// not a second heading under it. Whether one was removed.
    pub fn remove_title_heading(&mut self, title: &str) -> bool {
        let says_title = matches!(
            self.blocks.first(),
            Some(Block::Heading(heading))
                if heading.level == super::model::HeadingLevel::One && plain_text(&heading.content).trim() == title.trim()
        );
        if says_title {
            self.blocks.remove(0);
        }
        says_title
    }
}

impl Block {
    /// The block's text: inline content as [`plain_text`], code as its
    /// lines, image captions, table cells, tab and expandable titles, containers as their
    /// blocks' text; one block (or code line, caption, table row) a line.
    /// Formulas, dividers, embeds, references and includes have none.
    pub fn plain_text(&self) -> String {
        let mut out = String::new();
        self.push_text(&mut out);
        out
    }

    fn push_text(&self, out: &mut String) {
        match self {
            Block::Paragraph(content) => push_inline_text(out, content),
            Block::Heading(heading) => push_inline_text(out, &heading.content),
            Block::List(list) => {
                for item in &list.items {
                    push_blocks_text(out, &item.blocks);
                }
            }
            Block::Quote(blocks) => push_blocks_text(out, blocks),
            Block::Hint(hint) => push_blocks_text(out, &hint.blocks),
            // Conditional content is for some visitors only: not indexed.
            Block::Container(container) if container.kind == ContainerKind::If => {}
            Block::Container(container) => push_blocks_text(out, &container.blocks),
            Block::Tabs(tabs) => {
                for tab in tabs {
                    push_line(out, &tab.title);
                    push_blocks_text(out, &tab.blocks);
                }
            }
            Block::Expandable(expandable) => {
                push_line(out, &plain_text(&expandable.title));
                push_blocks_text(out, &expandable.blocks);
            }
            Block::Code(code) => {
                for line in &code.lines {
                    push_line(out, line);
                }
            }
            Block::Images(images) => {
                for image in images {
                    push_line(out, &image.caption);
                }
            }
            Block::Table(table) => {
                let titles: Vec<&str> = table.columns.iter().map(|c| c.title.as_str()).collect();
                push_line(out, &titles.join(" "));
                for row in &table.rows {
                    let cells: Vec<String> = row.iter().map(|cell| plain_text(cell)).collect();
                    push_line(out, &cells.join(" "));
                }
            }
            Block::Html(html) => {
                for line in super::html::text(html).lines() {
                    push_line(out, line);
                }
            }
            Block::Math { .. }
            | Block::ContentRef { .. }
            | Block::Include { .. }
            | Block::Divider
            | Block::Embed { .. }
            | Block::OpenApiOperation(_)
            | Block::OpenApiSchemas(_) => {}
        }
    }
}

/// Appends `text` on a line of its own (no empty lines).
fn push_line(out: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(text);
}

fn push_blocks_text(out: &mut String, blocks: &[Block]) {
    for block in blocks {
        let text = block.plain_text();
        push_line(out, &text);
    }
}

impl Document {
    /// Leaves out conditional blocks (`{% if %}`) whose condition does not
    /// hold (`holds`), nested ones too.
    pub fn retain_conditions(&mut self, holds: &dyn Fn(&str) -> bool) {
        fn retain(blocks: &mut Vec<Block>, holds: &dyn Fn(&str) -> bool) {
            blocks.retain(|block| match block {
                Block::Container(c) if c.kind == ContainerKind::If => holds(c.attr("condition").unwrap_or_default()),
                _ => true,
            });
            for block in blocks {
                for children in children_mut(block) {
                    retain(children, holds);
                }
            }
        }
        retain(&mut self.blocks, holds);
    }

    /// Every block, depth first in reading order: each block, then the
    /// blocks inside it (list items, quotes, hints, tabs, expandables,
    /// GitBook containers).
    pub fn walk(&self) -> Walk<'_> {
        Walk {
            stack: vec![self.blocks.iter()],
        }
    }

    /// The ids of the space's files this document shows as images (block
    /// and inline images, in tables and links too), in reading order.
    pub fn image_files(&self) -> Vec<&str> {
        fn inlines<'d>(content: &'d [Inline], out: &mut Vec<&'d str>) {
            for inline in content {
                match inline {
                    Inline::Image(Image {
                        source: ImageSource::File(id),
                        ..
                    }) => out.push(id),
                    Inline::Link { content, .. } => inlines(content, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        for block in self.walk() {
            match block {
                Block::Images(images) => out.extend(images.iter().filter_map(|i| match &i.source {
                    ImageSource::File(id) => Some(id.as_str()),
                    ImageSource::Url(_) => None,
                })),
                Block::Paragraph(content) => inlines(content, &mut out),
                Block::Heading(heading) => inlines(&heading.content, &mut out),
                Block::Expandable(expandable) => inlines(&expandable.title, &mut out),
                Block::Table(table) => table.rows.iter().flatten().for_each(|cell| inlines(cell, &mut out)),
                Block::Html(html) => {
                    for (at, _) in html.match_indices("src=\"/files/") {
                        let id = &html[at + "src=\"/files/".len()..];
                        let id = &id[..id.find('"').unwrap_or(id.len())];
                        if !id.is_empty() {
                            out.push(id);
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The headings, in reading order (those inside containers too), each
    /// with its level, anchor id and content.
    pub fn headings(&self) -> impl Iterator<Item = &Heading> {
        self.walk().filter_map(|block| match block {
            Block::Heading(heading) => Some(heading),
            _ => None,
        })
    }
}

/// A part of a page as search shows it: a heading and the text under it
/// up to the next heading (the text before the first heading has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The heading's anchor id; `None` for the text before the first heading.
    pub anchor: Option<String>,
    /// The heading's text (empty before the first heading).
    pub heading: String,
    /// The plain text of the section's blocks, a block a line.
    pub text: String,
}

impl Document {
    /// The page's sections: top-level headings start them. Text before the
    /// first heading is a section only when there is some.
    pub fn sections(&self) -> Vec<Section> {
        let mut sections = vec![Section {
            anchor: None,
            heading: String::new(),
            text: String::new(),
        }];
        for block in &self.blocks {
            match block {
                Block::Heading(heading) => sections.push(Section {
                    anchor: Some(heading.id.clone()),
                    heading: heading.text(),
                    text: String::new(),
                }),
                other => {
                    if let Some(section) = sections.last_mut() {
                        let text = other.plain_text();
                        if !text.trim().is_empty() {
                            if !section.text.is_empty() {
                                section.text.push('\n');
                            }
                            section.text.push_str(text.trim_end());
                        }
                    }
                }
            }
        }
        if sections[0].text.trim().is_empty() {
            sections.remove(0);
        }
        sections
    }
}

impl Heading {
    /// The heading's text.
    pub fn text(&self) -> String {
        plain_text(&self.content)
    }
}

/// See [`Document::walk`].
pub struct Walk<'a> {
    stack: Vec<std::slice::Iter<'a, Block>>,
}

impl<'a> Iterator for Walk<'a> {
    type Item = &'a Block;

    fn next(&mut self) -> Option<&'a Block> {
        loop {
            let top = self.stack.last_mut()?;
            let Some(block) = top.next() else {
                self.stack.pop();
                continue;
            };
            // Children go on the stack last first, so they come out in order.
            match block {
                Block::List(list) => self.stack.extend(list.items.iter().rev().map(|i| i.blocks.iter())),
                Block::Quote(blocks) => self.stack.push(blocks.iter()),
                Block::Hint(hint) => self.stack.push(hint.blocks.iter()),
                Block::Tabs(tabs) => self.stack.extend(tabs.iter().rev().map(|t| t.blocks.iter())),
                Block::Expandable(expandable) => self.stack.push(expandable.blocks.iter()),
                Block::Container(container) => self.stack.push(container.blocks.iter()),
                _ => {}
            }
            return Some(block);
        }
    }
}
