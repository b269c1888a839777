//! Full-text search analysis, free of I/O: turning text into index terms
//! and a user's query into clauses over them, identically for every store.
//!
//! Databases split text their own way and get CJK wrong (SQLite's
//! `unicode61` keeps a whole CJK run as one token, PostgreSQL's parser drops
//! or merges it), so Quire produces the terms here and the stores only keep
//! and match them:
//! - [`analyze`] folds text (NFKC, lower case, Latin diacritics removed),
//!   splits it at Unicode word boundaries, stems English words, splits code
//!   identifiers into their parts (keeping the whole), and turns runs of
//!   Han, kana and Hangul into overlapping bigrams, so a two-character word
//!   inside a sentence is a term of its own;
//! - [`parse_query`] reads words, `"quoted phrases"` and a prefix being
//!   typed, through the same analysis;
//! - [`snippet`] cuts the text around the best match for a result body;
//! - [`with_corrections`] forgives one typo in longer words (`typo`).
//!
//! Every term holds only letters and digits, so a store that splits on
//! anything else (FTS5's `unicode61`) gives back exactly these terms.

mod analyze;
mod query;
mod snippet;
mod typo;

pub use analyze::{Analyzed, Term, TermKind, analyze, fold};
pub use query::{Clause, Query, parse_query};
pub use snippet::{matched_ranges, snippet};
pub use typo::{MIN_TYPO_CHARS, is_typo_word, one_edit_apart, typo_words, with_corrections};
