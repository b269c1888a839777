//! Saving a document over the markdown it replaces: what the writer did not
//! change keeps the markdown it was written in, byte for byte.
//!
//! An editor sends the whole document, and a document says what a page
//! holds, not how it was written (`*` or `-` bullets, hard-wrapped lines,
//! padded tables, `####` headings read as level 3). Writing it all in
//! canonical form would make every save of a page imported from Git a
//! rewrite of the whole page. Instead the old markdown is split into the
//! source of each of its blocks ([`source_units`]), the new blocks are
//! matched to the old ones (longest common subsequence, by equality of the
//! model), and a unit whose blocks all come back unchanged and in order is
//! written as it was, with the blank lines that separated it from an
//! unchanged neighbour; everything else is written canonically. The result
//! must read back as the document, or as its pieces read on their own
//! (nothing merged or split where they meet), or the canonical markdown is
//! written: keeping text never changes what a page says.

use super::markdown_reader::{Unit, source_units};
use super::model::{Block, Document, Heading, HeadingLevel, Inline, anchor_id};
use super::text::plain_text;
use crate::markdown::split_front_matter;

/// Comparisons the matching may make; above, the changed middle of the page
/// is written canonically.
const MAX_MATCH_CELLS: usize = 4_000_000;

impl Document {
    /// This document as the markdown of a page whose markdown was `old`:
    /// `old`'s front matter as written (this document's own is not used:
    /// a JSON document has none), unchanged blocks as written, the rest
    /// canonical. `old` itself when nothing changed.
    pub fn to_markdown_over(&self, old: &str) -> String {
        let (_, old_body) = split_front_matter(old);
        let front = &old[..old.len() - old_body.len()];
        let old_blocks = Document::from_markdown(old_body).blocks;
        if old_blocks == self.blocks {
            return old.to_owned();
        }
        let blocks_only = Document {
            front_matter: None,
            blocks: self.blocks.clone(),
        };
        let canonical_body = blocks_only.to_markdown();
        let canonical = if front.is_empty() || canonical_body.is_empty() {
            format!("{front}{canonical_body}")
        } else {
            format!("{front}\n{canonical_body}")
        };
        let Some(units) = source_units(old_body, &old_blocks) else {
            return canonical;
        };
        let (body, expected) = assemble(&self.blocks, &old_blocks, &units, old_body);
        let kept = format!("{front}{body}");
        // Kept text reads as this document, or as its pieces do on their
        // own (kept units as they were, written blocks as their canonical
        // markdown reads): nothing was merged or split where pieces meet.
        let reads = Document::from_markdown(&kept).blocks;
        if reads == self.blocks || reads == expected {
            kept
        } else {
            canonical
        }
    }
}

impl Document {
    /// The page's content without its title heading: GitBook's pages begin
    /// with their title as a `# heading`, which is the page's title (shown
    /// and edited apart), not content.
    pub fn without_title(mut self, title: &str) -> Document {
        if self.blocks.first().is_some_and(|first| is_title_heading(first, title)) {
            self.blocks.remove(0);
        }
        self
    }

    /// Content read [`without_title`](Document::without_title) given back
    /// its title heading: the one `old` (the page's markdown, titled
    /// `old_title`) begins with, saying the page's `title` now. Content
    /// that begins with a title heading itself, or a page that had none,
    /// is left as it is.
    pub fn with_title_of(mut self, old: &str, old_title: &str, title: &str) -> Document {
        let (_, old_body) = split_front_matter(old);
        let Some(heading) = Document::from_markdown(old_body).blocks.into_iter().next() else {
            return self;
        };
        if !is_title_heading(&heading, old_title)
            || self
                .blocks
                .first()
                .is_some_and(|first| is_title_heading(first, old_title) || is_title_heading(first, title))
        {
            return self;
        }
        let heading = if old_title.trim() == title.trim() {
            heading
        } else {
            Block::Heading(Heading {
                level: HeadingLevel::One,
                id: anchor_id(title),
                content: vec![Inline::plain(title.trim())],
            })
        };
        self.blocks.insert(0, heading);
        self
    }
}

/// Whether `block` is a level-1 heading saying `title`.
fn is_title_heading(block: &Block, title: &str) -> bool {
    matches!(block, Block::Heading(heading) if heading.level == HeadingLevel::One && plain_text(&heading.content).trim() == title.trim())
}

/// One piece of the new body: an old unit kept, or new blocks written.
enum Piece {
    Kept(usize),
    Written(String),
}

/// The new body: kept units with their old separators, the rest canonical;
/// and the blocks its pieces read as on their own.
fn assemble(new: &[Block], old: &[Block], units: &[Unit], old_body: &str) -> (String, Vec<Block>) {
    let old_to_new = matching(new, old);
    let depth = deep_headings(new, old, &old_to_new, units, old_body);
    // The units that come back whole, by the index of their first new block.
    let mut kept_at = vec![None; new.len()];
    for (u, unit) in units.iter().enumerate() {
        let Some(first) = old_to_new[unit.blocks.start] else {
            continue;
        };
        if unit
            .blocks
            .clone()
            .enumerate()
            .all(|(j, old_index)| old_to_new[old_index] == Some(first + j))
        {
            kept_at[first] = Some(u);
        }
    }
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < new.len() {
        if let Some(u) = kept_at[i] {
            pieces.push(Piece::Kept(u));
            i += units[u].blocks.len();
            continue;
        }
        let end = (i + 1..new.len()).find(|&j| kept_at[j].is_some()).unwrap_or(new.len());
        // A deep heading is written on its own, at its depth.
        let mut start = i;
        while start < end {
            let stop = (start..end).find(|&k| depth[k].is_some()).unwrap_or(end);
            let group = if stop == start { start..start + 1 } else { start..stop };
            let written = Document {
                front_matter: None,
                blocks: new[group.clone()].to_vec(),
            }
            .to_markdown();
            let written = written.trim_end_matches('\n');
            let written = match depth[group.start] {
                Some(d) if stop == start => match written.strip_prefix("### ") {
                    Some(rest) => format!("{} {rest}", "#".repeat(d)),
                    None => written.to_owned(),
                },
                _ => written.to_owned(),
            };
            if !written.is_empty() {
                pieces.push(Piece::Written(written));
            }
            start = group.end;
        }
        i = end;
    }
    let leading = &old_body[..old_body.len() - old_body.trim_start_matches(['\n', '\r']).len()];
    let mut out = String::with_capacity(old_body.len() + 64);
    let mut expected = Vec::with_capacity(new.len());
    if pieces.is_empty() {
        return (out, expected);
    }
    out.push_str(leading);
    let mut previous: Option<usize> = None;
    for (n, piece) in pieces.iter().enumerate() {
        let this = match piece {
            Piece::Kept(u) => Some(*u),
            Piece::Written(_) => None,
        };
        if n > 0 {
            match (previous, this) {
                (Some(a), Some(b)) if b == a + 1 => out.push_str(&old_body[units[a].source.end..units[b].source.start]),
                _ => out.push_str("\n\n"),
            }
        }
        match piece {
            Piece::Kept(u) => {
                out.push_str(&old_body[units[*u].source.clone()]);
                expected.extend_from_slice(&old[units[*u].blocks.clone()]);
            }
            Piece::Written(text) => {
                out.push_str(text);
                expected.extend(Document::from_markdown(text).blocks);
            }
        }
        previous = this;
    }
    match previous {
        Some(last) if last + 1 == units.len() => out.push_str(&old_body[units[last].source.end..]),
        _ => out.push('\n'),
    }
    (out, expected)
}

/// For each new block, the depth to write it at when it is a changed
/// heading that stands where a heading written deeper than the model's
/// three levels (`####` to `######`) was: the n-th level-3 heading of a
/// changed stretch takes the depth of the n-th of the old stretch, so
/// editing a deep heading's words keeps it deep.
fn deep_headings(
    new: &[Block],
    old: &[Block],
    old_to_new: &[Option<usize>],
    units: &[Unit],
    old_body: &str,
) -> Vec<Option<usize>> {
    let level_three = |block: &Block| matches!(block, Block::Heading(h) if h.level == HeadingLevel::Three);
    let written_depth = |o: usize| {
        let unit = units.iter().find(|u| u.blocks.start == o && u.blocks.len() == 1)?;
        let text = old_body[unit.source.clone()].trim_start();
        let hashes = text.bytes().take_while(|&b| b == b'#').count();
        let spaced = text[hashes..].starts_with([' ', '\t']);
        ((4..=6).contains(&hashes) && spaced).then_some(hashes)
    };
    let mut depth = vec![None; new.len()];
    let mut bounds: Vec<(usize, usize)> = old_to_new
        .iter()
        .enumerate()
        .filter_map(|(o, n)| n.map(|n| (o, n)))
        .collect();
    bounds.push((old.len(), new.len()));
    let (mut old_start, mut new_start) = (0, 0);
    for (old_end, new_end) in bounds {
        let old_headings = (old_start..old_end).filter(|&o| level_three(&old[o]));
        let new_headings = (new_start..new_end).filter(|&n| level_three(&new[n]));
        for (o, n) in old_headings.zip(new_headings) {
            depth[n] = written_depth(o);
        }
        old_start = old_end + 1;
        new_start = new_end + 1;
    }
    depth
}

/// For each old block, the new block it is matched to: the longest common
/// subsequence of equal blocks (after the common start and end, which are
/// matched directly).
fn matching(new: &[Block], old: &[Block]) -> Vec<Option<usize>> {
    let mut old_to_new = vec![None; old.len()];
    let prefix = new.iter().zip(old).take_while(|(a, b)| a == b).count();
    for (i, slot) in old_to_new.iter_mut().enumerate().take(prefix) {
        *slot = Some(i);
    }
    let suffix = new[prefix..]
        .iter()
        .rev()
        .zip(old[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    for j in 0..suffix {
        old_to_new[old.len() - 1 - j] = Some(new.len() - 1 - j);
    }
    let new_mid = &new[prefix..new.len() - suffix];
    let old_mid = &old[prefix..old.len() - suffix];
    let (n, m) = (new_mid.len(), old_mid.len());
    if n == 0 || m == 0 || n.saturating_mul(m) > MAX_MATCH_CELLS {
        return old_to_new;
    }
    // lengths[i][j]: the longest common subsequence of new_mid[i..], old_mid[j..].
    let width = m + 1;
    let mut lengths = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lengths[i * width + j] = if new_mid[i] == old_mid[j] {
                lengths[(i + 1) * width + j + 1] + 1
            } else {
                lengths[(i + 1) * width + j].max(lengths[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if new_mid[i] == old_mid[j] {
            old_to_new[prefix + j] = Some(prefix + i);
            i += 1;
            j += 1;
        } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    old_to_new
}
