//! A user's query: words, `"quoted phrases"` and the word being typed, as
//! clauses over the terms [`analyze`] produces.

use crate::analyze::{Analyzed, Term, TermKind, analyze};

/// One condition on a text's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clause {
    /// A term whose stem is this.
    Stem(String),
    /// A term whose word starts with this (the word being typed).
    Prefix(String),
    /// Terms at consecutive positions with these stems.
    Phrase(Vec<String>),
    /// Any of these clauses.
    Any(Vec<Clause>),
}

/// Every clause must match. An empty query matches nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pub clauses: Vec<Clause>,
}

/// Shortest prefix searched as typed (shorter last words must match whole).
const MIN_PREFIX_CHARS: usize = 2;

fn stems(terms: &[&Term]) -> Vec<String> {
    terms.iter().map(|t| t.stem.clone()).collect()
}

/// One source word (or CJK run) of bare query text as a clause; `typing`
/// when it is the last thing in the query and may be incomplete.
fn source_clause(terms: &[&Term], typing: bool) -> Option<Clause> {
    let first = terms.first()?;
    Some(match first.kind {
        TermKind::Cjk if terms.len() == 1 && first.word.chars().count() == 1 => Clause::Prefix(first.word.clone()),
        TermKind::Cjk if terms.len() == 1 => Clause::Stem(first.stem.clone()),
        TermKind::Cjk => Clause::Phrase(stems(terms)),
        TermKind::Identifier => {
            let mut any = vec![Clause::Stem(first.stem.clone()), Clause::Phrase(stems(&terms[1..]))];
            if typing {
                any.push(Clause::Prefix(first.word.clone()));
            }
            Clause::Any(any)
        }
        TermKind::Word | TermKind::Part => {
            if typing && first.word.chars().count() >= MIN_PREFIX_CHARS {
                Clause::Any(vec![
                    Clause::Stem(first.stem.clone()),
                    Clause::Prefix(first.word.clone()),
                ])
            } else {
                Clause::Stem(first.stem.clone())
            }
        }
    })
}

/// Reads a query. Text in double quotes is a phrase (an unclosed quote runs
/// to the end); other words must each appear; the last bare word, when the
/// query does not end in white space, also matches as a prefix.
pub fn parse_query(query: &str) -> Query {
    let open_end = !query.ends_with(char::is_whitespace);
    let pieces: Vec<&str> = query.split('"').collect();
    let mut clauses = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let analyzed = analyze(piece);
        let quoted = i % 2 == 1;
        if quoted {
            match analyzed.terms.len() {
                0 => {}
                1 => clauses.push(Clause::Stem(analyzed.terms[0].stem.clone())),
                _ => clauses.push(Clause::Phrase(analyzed.terms.iter().map(|t| t.stem.clone()).collect())),
            }
            continue;
        }
        let last_piece = i == pieces.len() - 1;
        let mut groups: Vec<Vec<&Term>> = Vec::new();
        for term in &analyzed.terms {
            match groups.last_mut() {
                Some(group) if group[0].source == term.source => group.push(term),
                _ => groups.push(vec![term]),
            }
        }
        let count = groups.len();
        for (g, group) in groups.iter().enumerate() {
            let typing = open_end && last_piece && g + 1 == count && ends_in_word(piece);
            clauses.extend(source_clause(group, typing));
        }
    }
    Query { clauses }
}

/// True when the text ends inside a word (nothing after its last term).
fn ends_in_word(piece: &str) -> bool {
    piece.chars().last().is_some_and(crate::analyze::is_term_char)
}

impl Query {
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }

    /// True when every clause matches the analyzed text.
    pub fn matches(&self, text: &Analyzed) -> bool {
        !self.is_empty() && self.clauses.iter().all(|c| !c.matching_terms(text).is_empty())
    }
}

impl Clause {
    /// Indexes of the terms of `text` that make this clause match.
    pub fn matching_terms(&self, text: &Analyzed) -> Vec<usize> {
        let terms = &text.terms;
        match self {
            Clause::Stem(stem) => (0..terms.len()).filter(|&i| terms[i].stem == *stem).collect(),
            Clause::Prefix(prefix) => (0..terms.len())
                .filter(|&i| terms[i].word.starts_with(prefix.as_str()))
                .collect(),
            Clause::Phrase(stems) if stems.is_empty() => Vec::new(),
            Clause::Phrase(stems) => (0..terms.len().saturating_sub(stems.len() - 1))
                .filter(|&i| stems.iter().enumerate().all(|(k, s)| terms[i + k].stem == *s))
                .flat_map(|i| i..i + stems.len())
                .collect(),
            Clause::Any(options) => {
                let mut all: Vec<usize> = options.iter().flat_map(|c| c.matching_terms(text)).collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(query: &str, text: &str) -> bool {
        parse_query(query).matches(&analyze(text))
    }

    #[test]
    fn stems_prefixes_and_phrases() {
        assert!(finds("running", "How to run the server"));
        assert!(finds("configurations ", "The configuration guide"));
        assert!(finds("confi", "Configuration guide"));
        assert!(!finds("confi ", "Configuration guide"));
        assert!(finds("\"merge conflict\"", "resolve a merge conflict here"));
        assert!(!finds("\"merge conflict\"", "a conflict needs a merge"));
        assert!(finds("merge conflict", "a conflict needs a merge"));
        assert!(!finds("merge unicorn", "a conflict needs a merge"));
    }

    #[test]
    fn identifiers_match_whole_or_by_parts() {
        let text = "call getSpaceById(id) first";
        assert!(finds("getSpaceById", text));
        assert!(finds("space by id", text));
        assert!(finds("getSpa", text));
        assert!(finds("snake_case_name", "set snake_case_name to 3"));
        assert!(finds("case name", "set snake_case_name to 3"));
    }

    #[test]
    fn cjk_words_inside_sentences() {
        assert!(finds("東京", "私は東京に住んでいます"));
        assert!(finds("数据", "数据库的配置"));
        assert!(!finds("数据", "数学很难"));
        assert!(finds("数据库", "数据库的配置"));
        assert!(!finds("数据库", "数据的库"));
        assert!(finds("東", "東京"));
        assert!(finds("서울", "서울에서 만나요"));
        assert!(finds("データ", "データベースの設定"));
    }

    #[test]
    fn empty_and_junk_queries_match_nothing() {
        assert!(parse_query("").is_empty());
        assert!(parse_query("  ?! -- ").is_empty());
        assert!(parse_query("\"\"").is_empty());
        assert!(!finds("", "anything"));
    }
}
