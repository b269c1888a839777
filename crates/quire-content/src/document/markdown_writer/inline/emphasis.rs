//! Marked text in markdown: runs of text written with `**`, `*`, `~~`
//! delimiters (or `__`/`_` where a `*` would merge with a closing one),
//! kept unambiguous under CommonMark's flanking rules with character
//! references, checked by reading back where pairing could still go wrong,
//! and written with HTML tags (`<strong>`, `<em>`, `<s>`) when it does.

use std::borrow::Cow;
use std::cmp::Reverse;

use super::super::super::model::{Inline, Mark, Marks, is_normalized, normalize_inlines};
use super::{InlineWriter, char_reference};

/// The marks markdown writes as delimiters around text.
const DELIMITED: [Mark; 3] = [Mark::Bold, Mark::Italic, Mark::Strikethrough];

/// The delimiter of a mark: `**`, `*` and `~~`, or `__` and `_` for bold
/// and italic opening right after a `*` closes another mark (`*` runs that
/// close and open at once pair up unpredictably).
fn delimiter(mark: Mark, after_star: bool) -> &'static str {
    match (mark, after_star) {
        (Mark::Bold, false) => "**",
        (Mark::Bold, true) => "__",
        (Mark::Italic, false) => "*",
        (Mark::Italic, true) => "_",
        (Mark::Strikethrough, _) => "~~",
        // Code is written as code spans, never delimited.
        (Mark::Code, _) => "`",
    }
}

impl InlineWriter {
    /// Marked text: delimiters open and close around runs of text, the
    /// mark running longest outermost. Where CommonMark could pair the
    /// delimiters otherwise (marks changing inside a word next to
    /// punctuation…) the run is read back, and written with HTML tags
    /// (`<strong>`, `<em>`, `<s>`) if it does not read as meant. `followed`
    /// tells whether other inline content comes after the run.
    pub(super) fn leaves(&mut self, run: &[Inline], followed: bool) {
        let writable = writable_run(run);
        let mut leaves: Vec<(&str, Marks)> = writable
            .iter()
            .filter_map(|inline| match inline {
                Inline::Text { text, marks } if !text.is_empty() => Some((text.as_str(), *marks)),
                _ => None,
            })
            .collect();
        bridge_spaces(&mut leaves, self.one_line);
        let start = self.out.len();
        let line_start = self.line_start;
        let unambiguous = self.delimited(&leaves, followed);
        if !unambiguous && !reads_back(&self.out[start..], &leaves, line_start, followed, self.in_table) {
            self.out.truncate(start);
            self.line_start = line_start;
            self.tagged(&leaves);
        }
    }

    /// Writes `leaves` with delimiters; false when some delimiter run could
    /// also open where it closes or close where it opens.
    fn delimited(&mut self, leaves: &[(&str, Marks)], followed: bool) -> bool {
        let start = self.out.len();
        let mut unambiguous = true;
        // The marks open, outermost first, with their delimiters.
        let mut open: Vec<(Mark, &str)> = Vec::new();
        let mut delimiters = String::new();
        let mut piece = self.part(false);
        for (i, (text, marks)) in leaves.iter().enumerate() {
            delimiters.clear();
            if let Some(first_closed) = open.iter().position(|(m, _)| !marks.has(*m)) {
                for (_, closer) in open.drain(first_closed..).rev() {
                    delimiters.push_str(closer);
                }
            }
            let closing = delimiters.len();
            let mut opening: Vec<Mark> = DELIMITED
                .into_iter()
                .filter(|m| marks.has(*m) && !open.iter().any(|(o, _)| o == m))
                .collect();
            opening.sort_by_key(|m| Reverse(leaves[i..].iter().take_while(|(_, l)| l.has(*m)).count()));
            for mark in opening {
                let after_star = delimiters.len() == closing && delimiters.ends_with('*');
                let opener = delimiter(mark, after_star);
                delimiters.push_str(opener);
                open.push((mark, opener));
            }
            piece.out.clear();
            piece.line_start = self.line_start && delimiters.is_empty();
            if marks.code {
                piece.code(text);
            } else {
                piece.text(text);
            }
            if !delimiters.is_empty() {
                unambiguous &= self.keep_flanking(&delimiters, closing, &mut piece.out, start);
                self.raw(&delimiters);
            }
            if !piece.out.is_empty() {
                self.out.push_str(&piece.out);
                self.line_start = piece.line_start;
            }
        }
        delimiters.clear();
        for (_, closer) in open.into_iter().rev() {
            delimiters.push_str(closer);
        }
        if !delimiters.is_empty() {
            let before = self.out.chars().last().map_or(CharClass::Space, CharClass::of);
            let after = if followed {
                CharClass::Punctuation
            } else {
                CharClass::Space
            };
            unambiguous &= runs_flank(&delimiters, delimiters.len(), before, after, true);
            self.raw(&delimiters);
        }
        unambiguous
    }

    /// Writes `leaves` with HTML tags for bold, italic and strikethrough.
    fn tagged(&mut self, leaves: &[(&str, Marks)]) {
        let tag = |mark: Mark| match mark {
            Mark::Bold => "strong",
            Mark::Italic => "em",
            _ => "s",
        };
        let mut open: Vec<Mark> = Vec::new();
        for (i, (text, marks)) in leaves.iter().enumerate() {
            if let Some(first_closed) = open.iter().position(|m| !marks.has(*m)) {
                for mark in open.drain(first_closed..).rev() {
                    self.raw(&format!("</{}>", tag(mark)));
                }
            }
            let mut opening: Vec<Mark> = DELIMITED
                .into_iter()
                .filter(|m| marks.has(*m) && !open.contains(m))
                .collect();
            opening.sort_by_key(|m| Reverse(leaves[i..].iter().take_while(|(_, l)| l.has(*m)).count()));
            for mark in opening {
                self.raw(&format!("<{}>", tag(mark)));
                open.push(mark);
            }
            if marks.code {
                self.code(text);
            } else {
                self.text(text);
            }
        }
        for mark in open.into_iter().rev() {
            self.raw(&format!("</{}>", tag(mark)));
        }
    }

    /// Makes `delimiters` (the first `closing` bytes close marks, the rest
    /// open them), about to be written between what is written so far and
    /// `next`, open and close as meant. CommonMark's flanking rules let a
    /// delimiter run between a word character and punctuation open or close
    /// but not both; when that is in the way, the word character next to
    /// the delimiters (or one whose class is unsure) is written as a
    /// character reference: punctuation to the delimiters, text to the
    /// reader. Nothing written before `floor` changes. Returns whether the
    /// runs can only do what they are there for.
    fn keep_flanking(&mut self, delimiters: &str, closing: usize, next: &mut String, floor: usize) -> bool {
        let before = self.out[floor..].chars().last();
        let after = next.chars().next();
        let mut before_class = before.map_or(CharClass::Space, CharClass::of);
        let mut after_class = after.map_or(CharClass::Space, CharClass::of);
        if !runs_flank(delimiters, closing, before_class, after_class, false) {
            if let Some(c) = before.filter(|_| matches!(before_class, CharClass::Word | CharClass::Unsure)) {
                self.out.pop();
                self.out.push_str(&char_reference(c));
                before_class = CharClass::Punctuation;
            }
            if let Some(c) = after.filter(|_| matches!(after_class, CharClass::Word | CharClass::Unsure)) {
                next.replace_range(..c.len_utf8(), &char_reference(c));
                after_class = CharClass::Punctuation;
            }
        }
        runs_flank(delimiters, closing, before_class, after_class, true)
    }
}

/// How a character next to a delimiter run counts for CommonMark's
/// flanking rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Space,
    Punctuation,
    Word,
    /// Neither ASCII punctuation nor alphanumeric: symbols and the like,
    /// which readers classify differently.
    Unsure,
}

impl CharClass {
    fn of(c: char) -> CharClass {
        if c.is_whitespace() {
            CharClass::Space
        } else if c.is_ascii_punctuation() {
            CharClass::Punctuation
        } else if c.is_alphanumeric() {
            CharClass::Word
        } else {
            CharClass::Unsure
        }
    }
}

/// Whether every run of one character in `delimiters` (the first `closing`
/// bytes closing marks, the rest opening them), between a character of
/// class `before` and one of class `after`, can do what it is there for
/// (and, if `only`, nothing else): pulldown-cmark's flanking rules for
/// `*`, `_` and `~~`.
fn runs_flank(delimiters: &str, closing: usize, before: CharClass, after: CharClass, only: bool) -> bool {
    use CharClass::*;
    // An unsure neighbour must do for either class.
    let either = |class| match class {
        Unsure => [Punctuation, Word],
        class => [class, class],
    };
    either(before).into_iter().all(|before| {
        either(after)
            .into_iter()
            .all(|after| runs_flank_exactly(delimiters, closing, before, after, only))
    })
}

fn runs_flank_exactly(delimiters: &str, closing: usize, before: CharClass, after: CharClass, only: bool) -> bool {
    use CharClass::*;
    let bytes = delimiters.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let c = bytes[start];
        let end = start + bytes[start..].iter().take_while(|b| **b == c).count();
        let prev = if start == 0 { before } else { Punctuation };
        let next = if end == bytes.len() { after } else { Punctuation };
        let intraword = c == b'*' || c == b'~';
        let can_open =
            next != Space && ((c == b'*' && next != Punctuation) || c == b'~' || matches!(prev, Space | Punctuation));
        let can_close = prev != Space && ((intraword && prev != Punctuation) || matches!(next, Space | Punctuation));
        let opens = end > closing;
        let closes = start < closing;
        let ok = if only {
            opens != closes && can_open == opens && can_close == closes
        } else {
            (!opens || can_open) && (!closes || can_close)
        };
        if !ok {
            return false;
        }
        start = end;
    }
    true
}

/// Spaces between two runs that share a mark but differ in another take
/// the shared mark, so it is written once around both (`**The `authors`
/// filter**`, not `**The** **`authors`** **filter**`), as GitBook writes
/// it. The model keeps spaces at the edges of marked text outside it, and
/// the other mark keeps the runs apart, so the markdown reads back as the
/// same runs. (Runs with the same marks stay apart: `**x** **y**` would
/// read back as one bold run with its space.)
fn bridge_spaces(leaves: &mut [(&str, Marks)], one_line: bool) {
    for i in 1..leaves.len().saturating_sub(1) {
        let (text, marks) = leaves[i];
        // On one line (a heading, a table cell) a line break is written
        // as a space.
        let space = |c: char| c == ' ' || (one_line && c == '\n');
        if marks.code || DELIMITED.iter().any(|m| marks.has(*m)) || !text.chars().all(space) {
            continue;
        }
        let (before, after) = (leaves[i - 1].1, leaves[i + 1].1);
        if before == after {
            continue;
        }
        let mut bridged = marks;
        bridged.bold = before.bold && after.bold;
        bridged.italic = before.italic && after.italic;
        bridged.strikethrough = before.strikethrough && after.strikethrough;
        leaves[i].1 = bridged;
    }
}

/// Whether `markdown`, written for `leaves` (at a line start or after other
/// inline content, and followed by some or not), reads back with the same
/// marks on the same characters (spaces aside).
fn reads_back(markdown: &str, leaves: &[(&str, Marks)], line_start: bool, followed: bool, in_table: bool) -> bool {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let wanted: Vec<(char, Marks)> = leaves
        .iter()
        .flat_map(|(text, marks)| text.chars().map(move |c| (c, *marks)))
        .filter(|(c, _)| !c.is_whitespace() && !c.is_control())
        .collect();
    // Punctuation stands for the inline content around the run. Spaces
    // starting a line go (as a heading or cell drops them), and at the end
    // of the content breaks and spaces go (see `finish`).
    let mut markdown = if line_start {
        markdown.trim_start_matches([' ', '\t'])
    } else {
        markdown
    };
    if !followed {
        loop {
            let trimmed = markdown.trim_end_matches([' ', '\t']);
            match trimmed.strip_suffix("\\\n") {
                Some(rest) => markdown = rest,
                None => {
                    markdown = trimmed;
                    break;
                }
            }
        }
    }
    let mut src = String::with_capacity(markdown.len() + 16);
    let in_cell;
    let markdown = if in_table {
        // A cell is one line: breaks are written as spaces.
        src.push_str("| x |\n| - |\n| ");
        in_cell = markdown.replace("\\\n", " ");
        in_cell.as_str()
    } else {
        markdown
    };
    if !line_start {
        src.push(')');
    }
    src.push_str(markdown);
    if followed {
        src.push(')');
    }
    if in_table {
        src.push_str(" |");
    }
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let mut read: Vec<(char, Marks)> = Vec::with_capacity(wanted.len() + 2);
    let mut marks = Marks::NONE;
    let mut in_body = !in_table;
    for event in Parser::new_ext(&src, options) {
        let text = match event {
            Event::Start(Tag::Emphasis) => {
                marks.italic = true;
                continue;
            }
            Event::Start(Tag::Strong) => {
                marks.bold = true;
                continue;
            }
            Event::Start(Tag::Strikethrough) => {
                marks.strikethrough = true;
                continue;
            }
            Event::End(TagEnd::Emphasis) => {
                marks.italic = false;
                continue;
            }
            Event::End(TagEnd::Strong) => {
                marks.bold = false;
                continue;
            }
            Event::End(TagEnd::Strikethrough) => {
                marks.strikethrough = false;
                continue;
            }
            Event::End(TagEnd::TableHead) => {
                in_body = true;
                continue;
            }
            Event::Text(text) if in_body => (text, false),
            Event::Code(text) if in_body => (text, true),
            Event::Start(Tag::Paragraph | Tag::Table(_) | Tag::TableHead | Tag::TableRow | Tag::TableCell)
            | Event::End(TagEnd::Paragraph | TagEnd::Table | TagEnd::TableRow | TagEnd::TableCell)
            | Event::SoftBreak
            | Event::HardBreak
            | Event::Text(_)
            | Event::Code(_) => continue,
            _ => return false,
        };
        let (text, code) = text;
        let marks = Marks { code, ..marks };
        read.extend(
            text.chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .map(|c| (c, marks)),
        );
    }
    if followed && read.pop().map(|(c, _)| c) != Some(')') {
        return false;
    }
    if !line_start && (read.is_empty() || read.remove(0).0 != ')') {
        return false;
    }
    read == wanted
}

/// A run of text as markdown writes it: normalized, and a line break in
/// code-marked text unmarked (markdown has no code across lines: each line
/// is a code span, the breaks between them plain).
fn writable_run(run: &[Inline]) -> Cow<'_, [Inline]> {
    let breaks_code = run
        .iter()
        .any(|inline| matches!(inline, Inline::Text { text, marks } if marks.code && text.contains('\n')));
    if !breaks_code && is_normalized(run) {
        return Cow::Borrowed(run);
    }
    let mut pieces = Vec::with_capacity(run.len() + 2);
    for inline in run {
        match inline {
            Inline::Text { text, marks } if marks.code && text.contains('\n') => {
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        pieces.push(Inline::plain("\n"));
                    }
                    pieces.push(Inline::marked(line, *marks));
                }
            }
            other => pieces.push(other.clone()),
        }
    }
    Cow::Owned(normalize_inlines(pieces))
}
