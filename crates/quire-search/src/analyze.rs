//! Text into index terms, with the byte range each term came from.

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

/// Terms longer than this (bytes) are not indexed: nobody searches for them.
const MAX_TERM_BYTES: usize = 64;

/// What produced a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermKind {
    /// A word as written (a number, an English or other word).
    Word,
    /// A whole code identifier (`getSpaceById`), followed by its parts.
    Identifier,
    /// One part of an identifier (`space`).
    Part,
    /// A bigram (or a lone character) of a Han, kana or Hangul run.
    Cjk,
}

/// One term, in text order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The folded form as written, for prefix matching.
    pub word: String,
    /// The form for whole-word matching: English words stemmed, others as
    /// `word`.
    pub stem: String,
    pub kind: TermKind,
    /// The source word (or CJK run) the term came from: terms of one source
    /// share it, so a query can treat an identifier or a run as one unit.
    pub source: usize,
    /// Byte range in the analyzed text.
    pub start: usize,
    pub end: usize,
}

/// A text's terms in order; a term's position is its index plus one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analyzed {
    pub terms: Vec<Term>,
}

impl Analyzed {
    /// The stems joined by spaces, and the words joined by spaces: the two
    /// token streams a store that splits on spaces keeps.
    pub fn joined(&self) -> (String, String) {
        let stems: Vec<&str> = self.terms.iter().map(|t| t.stem.as_str()).collect();
        let words: Vec<&str> = self.terms.iter().map(|t| t.word.as_str()).collect();
        (stems.join(" "), words.join(" "))
    }
}

/// True for the characters a term may hold: letters and digits, without
/// combining marks (what FTS5's `unicode61` keeps inside a token).
pub(crate) fn is_term_char(c: char) -> bool {
    c.is_alphanumeric() && !is_combining_mark(c)
}

/// Han ideographs, kana and Hangul: scripts written without spaces
/// between words, indexed as bigrams.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005 | 0x3007 // 々 〇
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF // Hangul
        | 0x20000..=0x2FA1F) // CJK extensions B.. and supplement
}

/// NFKC, lower case, Latin accents removed (`Café` → `cafe`; kana voicing
/// marks and Hangul stay as they are).
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let lower: String = text.nfkc().flat_map(char::to_lowercase).collect();
    if lower.is_ascii() {
        return lower;
    }
    lower
        .nfd()
        .filter(|c| !matches!(*c as u32, 0x0300..=0x036F))
        .nfc()
        .collect()
}

fn english() -> &'static Stemmer {
    static STEMMER: std::sync::OnceLock<Stemmer> = std::sync::OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Stems already computed on this thread (word frequencies are skewed, so
/// most words come again soon); cleared when full.
const STEM_CACHE_ENTRIES: usize = 50_000;

thread_local! {
    static STEMS: std::cell::RefCell<std::collections::HashMap<String, String>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The whole-word form of a folded word: English (ASCII letters) stemmed.
pub(crate) fn stem_of(word: &str) -> String {
    if word.len() <= 2 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_owned();
    }
    STEMS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(stem) = cache.get(word) {
            return stem.clone();
        }
        let stem = english().stem(word).into_owned();
        if cache.len() >= STEM_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(word.to_owned(), stem.clone());
        stem
    })
}

/// The parts of an identifier as written: split at `_`, `.`, `'`, case
/// changes (`getSpaceByID2` → get, Space, By, ID, 2) and letter/digit
/// boundaries. Returns byte ranges within `word`.
fn identifier_parts(word: &str) -> Vec<(usize, usize)> {
    if word.bytes().all(|b| b.is_ascii_lowercase()) {
        return vec![(0, word.len())];
    }
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !is_term_char(c) {
            if let Some(s) = start.take() {
                parts.push((s, at));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(at);
            continue;
        };
        let prev = chars[i - 1].1;
        let next = chars.get(i + 1).map(|&(_, n)| n);
        let boundary = (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
            || (prev.is_alphabetic() && c.is_numeric())
            || (prev.is_numeric() && c.is_alphabetic());
        if boundary {
            parts.push((s, at));
            start = Some(at);
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    parts
}

/// The folded term of a piece of text: term characters only.
fn term_text(piece: &str) -> String {
    if piece.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return piece.to_ascii_lowercase();
    }
    fold(piece).chars().filter(|c| is_term_char(*c)).collect()
}

struct Builder {
    terms: Vec<Term>,
    source: usize,
}

impl Builder {
    fn push(&mut self, word: String, kind: TermKind, start: usize, end: usize) {
        if word.is_empty() || word.len() > MAX_TERM_BYTES {
            return;
        }
        let stem = match kind {
            TermKind::Cjk => word.clone(),
            _ => stem_of(&word),
        };
        self.terms.push(Term {
            word,
            stem,
            kind,
            source: self.source,
            start,
            end,
        });
    }

    /// A run of CJK characters: overlapping bigrams, or the lone character.
    fn cjk_run(&mut self, run: &[(usize, char)], end: usize) {
        if run.is_empty() {
            return;
        }
        let folded: Vec<String> = run.iter().map(|(_, c)| term_text(&c.to_string())).collect();
        let ends: Vec<usize> = run.iter().skip(1).map(|(at, _)| *at).chain([end]).collect();
        if run.len() == 1 {
            self.push(folded[0].clone(), TermKind::Cjk, run[0].0, end);
        } else {
            for i in 0..run.len() - 1 {
                self.push(
                    format!("{}{}", folded[i], folded[i + 1]),
                    TermKind::Cjk,
                    run[i].0,
                    ends[i + 1],
                );
            }
        }
        self.source += 1;
    }

    /// A word: a number, a plain word, or an identifier with its parts.
    fn word(&mut self, word: &str, at: usize) {
        let parts = identifier_parts(word);
        if parts.len() > 1 {
            self.push(term_text(word), TermKind::Identifier, at, at + word.len());
            for (s, e) in parts {
                self.push(term_text(&word[s..e]), TermKind::Part, at + s, at + e);
            }
        } else {
            self.push(term_text(word), TermKind::Word, at, at + word.len());
        }
        self.source += 1;
    }
}

/// The text cut into words and what separates them (UAX #29 word
/// boundaries), with their byte offsets. Chunks between ASCII white space
/// that are plain ASCII take a fast path with the same result for ASCII:
/// runs of letters, digits and `_`, joined across a `'` or `.` between two
/// of them.
fn segments(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut out: Vec<(usize, &str)> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            out.push((start, &text[start..i]));
            continue;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let chunk = &text[start..i];
        if chunk.is_ascii() {
            ascii_segments(chunk, start, &mut out);
        } else {
            out.extend(chunk.split_word_bound_indices().map(|(at, s)| (start + at, s)));
        }
    }
    out.into_iter()
}

fn ascii_segments<'a>(chunk: &'a str, offset: usize, out: &mut Vec<(usize, &'a str)>) {
    let bytes = chunk.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if word(bytes[i]) {
            while i < bytes.len()
                && (word(bytes[i])
                    || (matches!(bytes[i], b'\'' | b'.') && i + 1 < bytes.len() && word(bytes[i + 1]) && i > start))
            {
                i += 1;
            }
        } else {
            i += 1;
        }
        out.push((offset + start, &chunk[start..i]));
    }
}

/// The terms of `text`, in order.
pub fn analyze(text: &str) -> Analyzed {
    let mut builder = Builder {
        terms: Vec::new(),
        source: 0,
    };
    let mut run: Vec<(usize, char)> = Vec::new();
    let mut run_end = 0;
    for (at, segment) in segments(text) {
        let mut chars = segment.char_indices();
        let all_cjk = segment.chars().all(is_cjk);
        if all_cjk && !segment.is_empty() {
            if !run.is_empty() && run_end != at {
                builder.cjk_run(&run, run_end);
                run.clear();
            }
            run.extend(chars.by_ref().map(|(i, c)| (at + i, c)));
            run_end = at + segment.len();
            continue;
        }
        builder.cjk_run(&run, run_end);
        run.clear();
        if segment.chars().any(is_cjk) {
            // A segment mixing scripts (rare): its CJK characters form runs,
            // the rest words.
            let mut piece_start = None;
            for (i, c) in segment.char_indices() {
                if is_cjk(c) {
                    if let Some(s) = piece_start.take() {
                        builder.word(&segment[s..i], at + s);
                    }
                    run.push((at + i, c));
                    run_end = at + i + c.len_utf8();
                } else {
                    builder.cjk_run(&run, run_end);
                    run.clear();
                    piece_start.get_or_insert(i);
                }
            }
            if let Some(s) = piece_start {
                builder.word(&segment[s..], at + s);
            }
        } else if segment.chars().any(is_term_char) {
            builder.word(segment, at);
        }
    }
    builder.cjk_run(&run, run_end);
    Analyzed { terms: builder.terms }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        analyze(text).terms.into_iter().map(|t| t.word).collect()
    }

    fn stems(text: &str) -> Vec<String> {
        analyze(text).terms.into_iter().map(|t| t.stem).collect()
    }

    #[test]
    fn english_is_folded_and_stemmed() {
        assert_eq!(words("Running Cafés"), ["running", "cafes"]);
        assert_eq!(stems("Running configurations"), ["run", "configur"]);
        assert_eq!(stems("the run"), ["the", "run"]);
    }

    #[test]
    fn identifiers_keep_the_whole_and_their_parts() {
        assert_eq!(
            words("call getSpaceByID2(id)"),
            ["call", "getspacebyid2", "get", "space", "by", "id", "2", "id"]
        );
        assert_eq!(words("snake_case_name"), ["snakecasename", "snake", "case", "name"]);
        assert_eq!(words("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(words("v2"), ["v2", "v", "2"]);
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(
            words("私は東京に住んでいます"),
            [
                "私は", "は東", "東京", "京に", "に住", "住ん", "んで", "でい", "いま", "ます"
            ]
        );
        assert_eq!(words("数据库的配置"), ["数据", "据库", "库的", "的配", "配置"]);
        assert_eq!(words("서울에서 만나요"), ["서울", "울에", "에서", "만나", "나요"]);
        assert_eq!(words("Rustで書く"), ["rust", "で書", "書く"]);
        assert_eq!(words("一"), ["一"]);
        assert_eq!(words("データベース"), ["デー", "ータ", "タベ", "ベー", "ース"]);
    }

    #[test]
    fn full_width_forms_fold() {
        assert_eq!(words("ＡＢＣ１２３"), ["abc123", "abc", "123"]);
    }

    #[test]
    fn ranges_point_at_the_source() {
        let text = "Go to 東京 now";
        for term in analyze(text).terms {
            assert!(fold(&text[term.start..term.end]).contains(term.word.as_str()) || term.kind == TermKind::Cjk);
        }
        let tokyo = analyze(text).terms.into_iter().find(|t| t.word == "東京").unwrap();
        assert_eq!(&text[tokyo.start..tokyo.end], "東京");
    }

    #[test]
    fn terms_hold_only_letters_and_digits() {
        let text = "a-b c_d e.f 'g' \u{301}x 東京 ①② ﬁ Ⓐ हिन्दी don't e-mail";
        for term in analyze(text).terms {
            assert!(term.word.chars().all(is_term_char), "{term:?}");
            assert!(term.stem.chars().all(is_term_char), "{term:?}");
            assert!(!term.word.is_empty());
        }
    }
}
