//! Inline markdown: text escaped so that it reads back as the same text,
//! code spans, links, images and `$$` formulas; marked text is written by
//! [`emphasis`].

mod emphasis;

use super::super::model::{Image, Inline, Marks, normalize_inlines};

/// Writes inline markdown, escaping text so that it reads back as text.
pub(super) struct InlineWriter {
    out: String,
    /// At the start of a line, where `#`, `-`, `1.`… would start a block.
    line_start: bool,
    /// In a table cell, where `|` must be escaped even in code.
    in_table: bool,
    /// On one line (a heading, a table cell): line breaks are spaces.
    one_line: bool,
}

impl InlineWriter {
    /// A writer for a paragraph, or (`in_table`) a table cell.
    pub fn new(in_table: bool) -> InlineWriter {
        InlineWriter {
            out: String::new(),
            line_start: true,
            in_table,
            one_line: in_table,
        }
    }

    /// A writer for text inside a line (a link's text).
    pub fn within_line() -> InlineWriter {
        InlineWriter {
            line_start: false,
            ..InlineWriter::new(false)
        }
    }

    /// A writer for a heading's text.
    pub fn heading() -> InlineWriter {
        InlineWriter {
            one_line: true,
            ..InlineWriter::new(false)
        }
    }

    /// A writer for part of this one's content, starting at `line_start`.
    fn part(&self, line_start: bool) -> InlineWriter {
        InlineWriter {
            out: String::new(),
            line_start,
            in_table: self.in_table,
            one_line: self.one_line,
        }
    }

    /// The markdown written. A break at the very end would read back as a
    /// literal backslash, and spaces there are dropped by the reader: both
    /// go.
    pub fn finish(mut self) -> String {
        loop {
            let kept = self.out.trim_end_matches([' ', '\t']).len();
            self.out.truncate(kept);
            match self.out.strip_suffix("\\\n") {
                Some(rest) => {
                    let kept = rest.len();
                    self.out.truncate(kept);
                }
                None => return self.out,
            }
        }
    }

    fn raw(&mut self, s: &str) {
        if !s.is_empty() {
            self.out.push_str(s);
            self.line_start = false;
        }
    }

    fn hard_break(&mut self) {
        if self.one_line {
            self.out.push(' ');
        } else {
            self.out.push_str("\\\n");
            self.line_start = true;
        }
    }

    pub fn inlines(&mut self, content: &[Inline]) {
        // A formula written as text reads back as text: it is text here too
        // (so the text around it is one run, as it will be).
        let unwritable = |inline: &Inline| matches!(inline, Inline::Math { formula } if !inline_formula_ok(&formula.replace(['\n', '\r'], " ")));
        let as_text;
        let content = if content.iter().any(unwritable) {
            let converted = content
                .iter()
                .map(|inline| match inline {
                    Inline::Math { formula } if unwritable(inline) => {
                        Inline::plain(format!("$${}$$", formula.replace(['\n', '\r'], " ")))
                    }
                    other => other.clone(),
                })
                .collect();
            as_text = normalize_inlines(converted);
            as_text.as_slice()
        } else {
            content
        };
        let mut i = 0;
        while i < content.len() {
            match &content[i] {
                Inline::Text { .. } => {
                    let run = content[i..]
                        .iter()
                        .take_while(|inline| matches!(inline, Inline::Text { .. }))
                        .count();
                    self.leaves(&content[i..i + run], i + run < content.len());
                    i += run;
                    continue;
                }
                Inline::Link { target, content } => {
                    // `!` right before would make the link an image.
                    if self.out.ends_with('!') {
                        self.out.insert(self.out.len() - 1, '\\');
                    }
                    self.raw("[");
                    let mut writer = self.part(false);
                    writer.inlines(content);
                    if self.out == "[" && opens_definition(&writer.out) {
                        // `[`]:`…` starting a paragraph would read as a link
                        // definition: the text is written unmarked.
                        writer = self.part(false);
                        writer.inlines(&unmarked(content));
                    }
                    // A break at the end of a link's text reads back as a
                    // backslash.
                    let mut text = writer.out.as_str();
                    while let Some(rest) = text.strip_suffix("\\\n") {
                        text = rest;
                    }
                    self.out.push_str(text);
                    let url = target.to_url();
                    self.out.push_str("](");
                    self.out.push_str(&destination(&url, self.in_table));
                    self.raw(")");
                }
                Inline::Image(image) => {
                    let image = image_md(image, self.in_table);
                    self.raw(&image);
                }
                Inline::Math { formula } => self.formula(formula),
                Inline::Html(tag) => self.raw(tag),
                Inline::Expression { expression } => {
                    self.raw(&format!("<code class=\"expression\">{expression}</code>"))
                }
                Inline::Icon { icon } => self.raw(&format!("<i class=\"fa-{icon}\">:{icon}:</i>")),
            }
            i += 1;
        }
    }

    /// `$$formula$$`; a formula that cannot be written so (one with `$`,
    /// backticks, unbalanced braces…) is written as text. Line breaks in it
    /// become spaces.
    pub fn formula(&mut self, formula: &str) {
        let formula = formula.replace(['\n', '\r'], " ");
        if !inline_formula_ok(&formula) {
            self.text(&format!("$${formula}$$"));
            return;
        }
        let formula = if self.in_table {
            formula.replace('|', "\\|")
        } else {
            formula
        };
        self.raw(&format!("$${formula}$$"));
    }

    fn code(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.hard_break();
            }
            if !line.is_empty() {
                // A code span reads line endings as spaces.
                let mut line = line.replace(['\r', '\0'], " ");
                if self.in_table {
                    line = line.replace('|', "\\|");
                }
                self.raw(&code_span(&line));
            }
        }
    }

    /// Escaped text; `\n` is a line break.
    pub fn text(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.hard_break();
            }
            // The reader drops spaces and tabs starting a line.
            let line = if self.line_start {
                line.trim_start_matches([' ', '\t'])
            } else {
                line
            };
            if !line.is_empty() {
                push_escaped(&mut self.out, line, self.line_start);
                self.line_start = false;
            }
        }
    }
}

/// `&#xHEX;`, which reads back as `c`.
fn char_reference(c: char) -> String {
    format!("&#x{:X};", u32::from(c))
}

/// Whether link text (written after a `[` starting a paragraph) holds an
/// unescaped `]` followed by `:`, which would make the line a link
/// reference definition.
fn opens_definition(text: &str) -> bool {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            '\\' => escaped = !escaped,
            ']' if !escaped => return text[i + 1..].starts_with(':'),
            _ => escaped = false,
        }
    }
    false
}

/// Inline content without code marks, its formulas as their source text.
fn unmarked(content: &[Inline]) -> Vec<Inline> {
    let plain = content
        .iter()
        .map(|inline| match inline {
            Inline::Text { text, marks } => Inline::marked(text.as_str(), Marks { code: false, ..*marks }),
            Inline::Math { formula } => Inline::plain(format!("$${formula}$$")),
            other => other.clone(),
        })
        .collect();
    normalize_inlines(plain)
}

/// Whether `$$formula$$` reads back as this formula: not blank, no `$` or
/// backtick, no trailing backslash, braces balanced (escaped ones aside).
pub(super) fn inline_formula_ok(formula: &str) -> bool {
    if formula.trim().is_empty() || formula.contains(['$', '`']) || formula.ends_with('\\') {
        return false;
    }
    let mut depth = 0u32;
    let mut chars = formula.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' => {
                depth += 1;
                if depth > 20 {
                    return false;
                }
            }
            '}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

pub(super) fn longest_run(text: &str, c: char) -> usize {
    let mut longest = 0;
    let mut current = 0;
    for ch in text.chars() {
        current = if ch == c { current + 1 } else { 0 };
        longest = longest.max(current);
    }
    longest
}

fn code_span(text: &str) -> String {
    let ticks = "`".repeat(longest_run(text, '`') + 1);
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' ') && !text.bytes().all(|b| b == b' '));
    let pad = if pad { " " } else { "" };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `![alt](url "caption")`.
pub(super) fn image_md(image: &Image, in_table: bool) -> String {
    let mut alt = InlineWriter::new(in_table);
    alt.text(&image.alt.replace('\n', " "));
    let title = if image.caption.is_empty() {
        String::new()
    } else {
        let mut title = String::with_capacity(image.caption.len() + 3);
        title.push_str(" \"");
        push_escaped_title(&mut title, &image.caption, in_table);
        title.push('"');
        title
    };
    let url = image.source.to_url();
    format!("![{}]({}{title})", alt.finish(), destination(&url, in_table))
}

/// A link title's text inside `"…"`: backslashes, quotes and what would read
/// as an entity escaped, line breaks made spaces.
fn push_escaped_title(out: &mut String, title: &str, in_table: bool) {
    for (i, c) in title.char_indices() {
        match c {
            '\\' | '"' => out.push('\\'),
            '|' if in_table => out.push('\\'),
            '&' if looks_like_entity(&title[i + 1..]) => out.push('\\'),
            '\n' | '\r' => {
                out.push(' ');
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
}

/// A link destination, in `<…>` when it has spaces, brackets or control
/// characters.
pub(super) fn destination(url: &str, in_table: bool) -> String {
    let pointy =
        url.is_empty() || url.contains(|c: char| c.is_ascii_whitespace() || c.is_ascii_control() || "()<>".contains(c));
    let mut out = String::with_capacity(url.len() + 2);
    if pointy {
        out.push('<');
    }
    for (i, c) in url.char_indices() {
        match c {
            '\\' => out.push('\\'),
            '<' | '>' if pointy => out.push('\\'),
            '|' if in_table => out.push('\\'),
            '&' if looks_like_entity(&url[i + 1..]) => out.push('\\'),
            '\n' | '\r' => {
                out.push(' ');
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    if pointy {
        out.push('>');
    }
    out
}

/// Appends `text` with markdown's special characters escaped. At a line
/// start, the characters that would open a block (`#`, `>`, `-`, `+`, `=`,
/// `1.`) too.
fn push_escaped(out: &mut String, text: &str, line_start: bool) {
    out.reserve(text.len() + 8);
    let start = out.len();
    let mut rest = text;
    if line_start {
        let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after = text[digits..].chars().next();
        if digits > 0 && matches!(after, Some('.' | ')')) {
            out.push_str(&text[..digits]);
            out.push('\\');
            rest = &text[digits..];
        } else if text.starts_with(['#', '>', '-', '+', '=']) {
            out.push('\\');
        }
    }
    for (i, c) in rest.char_indices() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '~' | '|' | '$' => out.push('\\'),
            '%' if out.len() > start && out.ends_with('{') => out.push('\\'),
            '&' if looks_like_entity(&rest[i + 1..]) => out.push('\\'),
            // Control characters (a carriage return would end the line)
            // as references; NUL reads back as the replacement character.
            '\0' => {
                out.push('\u{fffd}');
                continue;
            }
            c if c.is_ascii_control() && c != '\t' => {
                out.push_str(&char_reference(c));
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
}

/// A fence's info word, escaped: the reader unescapes backslashes and
/// entities in it.
pub(super) fn escape_info(info: &str) -> String {
    let mut out = String::with_capacity(info.len());
    for (i, c) in info.char_indices() {
        match c {
            '\\' => out.push('\\'),
            '&' if looks_like_entity(&info[i + 1..]) => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Whether text after a `&` would read as an entity (`amp;`, `#38;`).
fn looks_like_entity(after: &str) -> bool {
    let name_len = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
        .unwrap_or(after.len());
    name_len > 0 && after[name_len..].starts_with(';')
}
