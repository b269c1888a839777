//! Result bodies: the text around the best cluster of matches.

use std::ops::Range;

use crate::analyze::analyze;
use crate::query::Query;

/// Byte ranges of the words of `text` that match the query.
pub fn matched_ranges(text: &str, query: &Query) -> Vec<Range<usize>> {
    let analyzed = analyze(text);
    let mut hits: Vec<usize> = query.clauses.iter().flat_map(|c| c.matching_terms(&analyzed)).collect();
    hits.sort_unstable();
    hits.dedup();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for i in hits {
        let term = &analyzed.terms[i];
        match ranges.last_mut() {
            Some(last) if term.start <= last.end => last.end = last.end.max(term.end),
            _ => ranges.push(term.start..term.end),
        }
    }
    ranges
}

/// The text (white space collapsed) around the densest run of matches, at
/// most `max_chars` characters, cut at word boundaries with `…` where cut.
/// Without a match, the start of the text.
pub fn snippet(text: &str, query: &Query, max_chars: usize) -> String {
    let ranges = matched_ranges(text, query);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    if chars.len() <= max_chars {
        return collapse(text);
    }
    // The window start (in chars) that covers the most matches.
    let char_of = |byte: usize| chars.partition_point(|&(at, _)| at < byte);
    let starts: Vec<usize> = ranges.iter().map(|r| char_of(r.start)).collect();
    let mut best = (0usize, 0usize);
    for (i, &start) in starts.iter().enumerate() {
        let covered = starts[i..]
            .iter()
            .take_while(|&&s| s < start + max_chars * 2 / 3)
            .count();
        if covered > best.1 {
            best = (start, covered);
        }
    }
    let lead = max_chars / 4;
    let mut from = best.0.saturating_sub(lead);
    if best.1 == 0 {
        from = 0;
    }
    let mut to = (from + max_chars).min(chars.len());
    if to == chars.len() {
        from = to.saturating_sub(max_chars);
    }
    // Cut at white space when one is near.
    if from > 0
        && let Some(space) = (from..(from + 20).min(to)).find(|&i| chars[i].1.is_whitespace())
    {
        from = space + 1;
    }
    if to < chars.len()
        && let Some(space) = (to.saturating_sub(20).max(from)..to)
            .rev()
            .find(|&i| chars[i].1.is_whitespace())
    {
        to = space;
    }
    let byte = |i: usize| chars.get(i).map_or(text.len(), |&(at, _)| at);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(collapse(&text[byte(from)..byte(to)]).trim());
    if to < chars.len() {
        out.push('…');
    }
    out
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_query;

    #[test]
    fn the_window_holds_the_match() {
        let text = format!("{} the needle is here {}", "hay ".repeat(100), "straw ".repeat(100));
        let cut = snippet(&text, &parse_query("needle "), 60);
        assert!(cut.contains("needle"), "{cut}");
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        assert!(cut.chars().count() <= 62, "{cut}");
    }

    #[test]
    fn cjk_matches_inside_sentences_are_found() {
        let text = format!("{}私は東京に住んでいます{}", "あ".repeat(300), "い".repeat(300));
        let ranges = matched_ranges(&text, &parse_query("東京"));
        assert_eq!(ranges.len(), 1);
        assert_eq!(&text[ranges[0].clone()], "東京");
        assert!(snippet(&text, &parse_query("東京"), 40).contains("東京"));
    }

    #[test]
    fn stems_highlight_other_forms() {
        let ranges = matched_ranges("She runs daily", &parse_query("running "));
        assert_eq!(ranges, vec![4..8]);
    }

    #[test]
    fn short_texts_come_whole() {
        assert_eq!(snippet("a  b\n c", &parse_query("x"), 100), "a b c");
    }
}
