//! Where each block of a page's markdown was written: the markdown split
//! into [`Unit`]s, pieces of source that read, on their own and in order,
//! as consecutive blocks of the whole page.
//!
//! The split is found by trying, not by trusting the parser's offsets: the
//! text is cut at blank lines outside fenced code, GitBook block tags,
//! `<details>` and `$$` formulas, and neighbouring pieces are joined until
//! what they read as is exactly the next blocks of the page (a loose list
//! spans several pieces; a heading and its paragraph share one). A unit is
//! therefore the source of its blocks by construction, whatever the
//! markdown holds.

use std::ops::Range;

use super::super::model::Block;
use super::tags::{TagLine, find_end, in_fence, is_blank};
use super::{Ids, read_body};

/// A piece of the source and the blocks of the page it reads as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::document) struct Unit {
    /// Byte range in the markdown body, from its first line to the end of
    /// its last non-blank line (without that line's end).
    pub source: Range<usize>,
    /// Indexes of its blocks in the page's block list.
    pub blocks: Range<usize>,
}

/// How many bytes the trials may read, as a multiple of the body's size:
/// a piece that keeps failing to close (one long loose list) gives up
/// rather than reading the page over and over.
const READ_BUDGET: usize = 16;

/// The units of `body` (markdown without front matter) whose blocks, as
/// read from the whole body, are `blocks`; `None` when the body cannot be
/// split so (its blocks depend on text far away, like a link reference
/// defined at the end) within the reading budget.
pub(in crate::document) fn source_units(body: &str, blocks: &[Block]) -> Option<Vec<Unit>> {
    let mut budget = body.len().saturating_mul(READ_BUDGET).saturating_add(64 * 1024);
    let mut units = Vec::new();
    let mut ids = Ids::default();
    let mut next = 0;
    let mut start = None;
    for piece in pieces(body) {
        let from = *start.get_or_insert(piece.start);
        let text = &body[from..piece.end];
        budget = budget.checked_sub(text.len())?;
        let mut trial = ids.clone();
        let read = read_body(text, &mut trial);
        if read.is_empty() || !blocks[next..].starts_with(&read) {
            continue;
        }
        units.push(Unit {
            source: from..piece.end,
            blocks: next..next + read.len(),
        });
        next += read.len();
        ids = trial;
        start = None;
    }
    // What is left reads as nothing (a comment, a link definition) or the
    // split failed.
    if next != blocks.len() {
        return None;
    }
    if let Some(from) = start
        && !read_body(&body[from..], &mut ids).is_empty()
    {
        return None;
    }
    Some(units)
}

/// The body cut at blank lines that cannot be inside a block: not in
/// fenced code, a paired GitBook tag, `<details>` or a `$$` formula.
fn pieces(body: &str) -> Vec<Range<usize>> {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let mut out = Vec::new();
    let mut fence = None;
    let mut closed_after = 0;
    let mut piece: Option<Range<usize>> = None;
    let mut offset = 0;
    for (i, line) in lines.iter().enumerate() {
        let at = offset;
        offset += line.len();
        let fenced = in_fence(&mut fence, line);
        if !fenced && i >= closed_after {
            if is_blank(line) {
                out.extend(piece.take());
                continue;
            }
            if let Some(end) = region_end(&lines, i) {
                closed_after = end + 1;
            }
        }
        let end = at + line.trim_end_matches(['\n', '\r']).len();
        match &mut piece {
            Some(range) => range.end = end,
            None => piece = Some(at..end),
        }
    }
    out.extend(piece);
    out
}

/// The line closing a block that starts at `lines[i]` and may hold blank
/// lines: a paired GitBook tag, `<details>` or a `$$` formula.
fn region_end(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines[i];
    if line.starts_with("$$") {
        if line.trim_end().len() > 2 && line.trim_end().ends_with("$$") {
            return None;
        }
        return (i + 1..lines.len()).find(|&j| lines[j].trim_end() == "$$" || lines[j].trim_end().ends_with("$$"));
    }
    if line.starts_with("<details") {
        return (i + 1..lines.len()).find(|&j| lines[j].trim_start().starts_with("</details>"));
    }
    if line.starts_with("{%") {
        let tag = TagLine::parse(line.trim_end())?;
        if tag.name.starts_with("end") {
            return None;
        }
        return find_end(lines, i, &tag.name);
    }
    None
}
