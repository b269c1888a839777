//! Inline content as Typst: text with its marks, and links (to a label of
//! the same part, to a place in another part, or to a URL).

use std::fmt::Write as _;

use quire_content::document::{Inline, LinkTarget, Marks};

use super::{Target, Writer, heading_label, page_label, safe_url};

impl Writer<'_> {
    pub(super) fn inlines(&mut self, content: &[Inline]) {
        for inline in content {
            match inline {
                Inline::Text { text, marks } => self.marked(text, *marks),
                Inline::Link { target, content } => self.link(target, |w| w.inlines(content)),
                Inline::Image(image) => match self.image_path(image) {
                    Some(path) => {
                        self.out.push_str("#box(image(");
                        self.string(&path);
                        self.out.push_str(", height: 1.1em))");
                    }
                    None => self.text(&image.alt),
                },
                Inline::Math { formula } => {
                    self.out.push_str("#raw(");
                    self.string(formula);
                    self.out.push(')');
                }
                // Tags (`<mark>`, `<kbd>`) and icons have no text.
                Inline::Html(_) | Inline::Icon { .. } => {}
                // Variables are not evaluated in PDFs yet: the expression.
                Inline::Expression { expression } => {
                    self.out.push_str("#raw(");
                    self.string(expression);
                    self.out.push(')');
                }
            }
        }
    }

    pub(super) fn marked(&mut self, text: &str, marks: Marks) {
        if text.is_empty() {
            return;
        }
        if marks.code {
            self.out.push_str("#raw(");
            self.string(text);
            self.out.push(')');
            return;
        }
        let mut closing = 0;
        for (on, function) in [
            (marks.bold, "strong"),
            (marks.italic, "emph"),
            (marks.strikethrough, "strike"),
        ] {
            if on {
                let _ = write!(self.out, "#{function}[");
                closing += 1;
            }
        }
        self.text(text);
        for _ in 0..closing {
            self.out.push(']');
        }
    }

    /// The title a content reference shows.
    pub(super) fn target_title(&self, target: &LinkTarget) -> String {
        match target {
            LinkTarget::Page { page } | LinkTarget::Anchor { page: Some(page), .. } => self
                .book
                .pages
                .iter()
                .find(|p| &p.id == page)
                .map(|p| p.title.clone())
                .unwrap_or_else(|| "(a page not in this document)".into()),
            LinkTarget::Anchor { page: None, anchor } => format!("#{anchor}"),
            LinkTarget::File { file } => self
                .book
                .files
                .get(file)
                .map(|f| f.name.clone())
                .unwrap_or_else(|| "(a file)".into()),
            LinkTarget::Url { url } => url.clone(),
        }
    }

    /// Writes `body` linked to `target` when the target is in the book or
    /// on the web; as plain content otherwise.
    pub(super) fn link(&mut self, target: &LinkTarget, body: impl FnOnce(&mut Self)) {
        let label = match target {
            LinkTarget::Page { page } => Some(page_label(page)),
            LinkTarget::Anchor { page, anchor } => Some(heading_label(page.as_deref().unwrap_or(self.page), anchor)),
            LinkTarget::Url { url } => {
                let url = url.clone();
                return self.link_url(&url, body);
            }
            LinkTarget::File { .. } => None,
        };
        match label.filter(|l| self.labels.contains(l)) {
            Some(label) if self.local.contains(&label) => {
                self.out.push_str("#link(label(");
                self.string(&label);
                self.out.push_str("))[");
                body(self);
                self.out.push(']');
            }
            Some(label) => self.link_to_target(&label, body),
            None => body(self),
        }
    }

    /// Writes `body` linked to where `label` is in the finished PDF (the
    /// first page until that is known).
    pub(super) fn link_to_target(&mut self, label: &str, body: impl FnOnce(&mut Self)) {
        self.needs_targets = true;
        let target = self.targets.and_then(|t| t.get(label)).copied().unwrap_or(Target {
            page: 1,
            x: 0.0,
            y: 0.0,
        });
        let _ = write!(
            self.out,
            "#link((page: {}, x: {:.2}pt, y: {:.2}pt))[",
            target.page.max(1),
            target.x,
            target.y
        );
        body(self);
        self.out.push(']');
    }

    pub(super) fn link_url(&mut self, url: &str, body: impl FnOnce(&mut Self)) {
        if safe_url(url) {
            self.out.push_str("#link(");
            self.string(url.trim());
            self.out.push_str(")[");
            body(self);
            self.out.push(']');
        } else {
            body(self);
        }
    }
}
