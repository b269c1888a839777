//! One typo forgiven: a query word of [`MIN_TYPO_CHARS`] letters or more
//! that matches nothing may stand for a word the index knows one edit away
//! (a letter missing, extra or wrong, or two neighbours swapped), as
//! GitBook's search forgives `configuraton`. The store lists the known
//! words near a query word; this module decides which are one edit away
//! and widens the query to accept them.

use crate::analyze::{TermKind, analyze};
use crate::query::{Clause, Query};

/// Shortest word a typo is forgiven in (shorter words have too many
/// neighbours: `cat`, `car`, `can`…).
pub const MIN_TYPO_CHARS: usize = 5;

/// The words of a query a typo may hide in: plain words of at least
/// [`MIN_TYPO_CHARS`] letters (no digits, no identifiers, no CJK).
pub fn typo_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = analyze(text)
        .terms
        .into_iter()
        .filter(|t| t.kind == TermKind::Word && is_typo_word(&t.word))
        .map(|t| t.word)
        .collect();
    words.dedup();
    words
}

/// Whether `word` is one the index keeps for typo tolerance.
pub fn is_typo_word(word: &str) -> bool {
    word.chars().count() >= MIN_TYPO_CHARS && word.chars().all(char::is_alphabetic)
}

/// Whether `a` and `b` are one edit apart: one character inserted,
/// deleted or replaced, or two neighbours swapped (not equal).
pub fn one_edit_apart(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..] || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Less => ra == &rb[1..],
        std::cmp::Ordering::Greater => &ra[1..] == rb,
    }
}

/// `query`, where each word given with corrections also matches them.
pub fn with_corrections(query: &Query, corrections: &[(String, Vec<String>)]) -> Query {
    let stem = |word: &str| analyze(word).terms.into_iter().next().map(|t| t.stem);
    let widened: Vec<(String, Vec<Clause>)> = corrections
        .iter()
        .filter_map(|(word, near)| {
            let own = stem(word)?;
            let others: Vec<Clause> = near.iter().filter_map(|w| stem(w)).map(Clause::Stem).collect();
            (!others.is_empty()).then_some((own, others))
        })
        .collect();
    let widen = |clause: &Clause| -> Clause {
        let own = match clause {
            Clause::Stem(s) => Some(s),
            Clause::Any(options) => match options.first() {
                Some(Clause::Stem(s)) => Some(s),
                _ => None,
            },
            _ => None,
        };
        match own.and_then(|s| widened.iter().find(|(w, _)| w == s)) {
            Some((_, others)) => {
                let mut options = match clause {
                    Clause::Any(options) => options.clone(),
                    other => vec![other.clone()],
                };
                options.extend(others.iter().cloned());
                Clause::Any(options)
            }
            None => clause.clone(),
        }
    };
    Query {
        clauses: query.clauses.iter().map(widen).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse_query;

    #[test]
    fn one_edit() {
        for (a, b) in [
            ("configuraton", "configuration"),
            ("configuration", "configuraton"),
            ("cofniguration", "configuration"),
            ("configurasion", "configuration"),
            ("éditeur", "éditeurs"),
        ] {
            assert!(one_edit_apart(a, b), "{a} {b}");
        }
        for (a, b) in [
            ("configuration", "configuration"),
            ("config", "configure"),
            ("abcde", "edcba"),
        ] {
            assert!(!one_edit_apart(a, b), "{a} {b}");
        }
    }

    #[test]
    fn queries_widen_to_corrections() {
        assert_eq!(typo_words("the configuraton of v2 getSpace"), ["configuraton"]);
        let query = parse_query("configuraton guide ");
        let widened = with_corrections(&query, &[("configuraton".into(), vec!["configuration".into()])]);
        let text = crate::analyze("The configuration guide");
        assert!(!query.matches(&text));
        assert!(widened.matches(&text), "{widened:?}");
    }
}
