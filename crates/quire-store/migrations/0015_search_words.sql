-- The words of five letters or more the search index has seen (folded, as
-- `quire_search` writes terms), for forgiving one typo in a query word that
-- matches nothing. Words are added as pages are indexed and never removed:
-- a word no page holds any more widens a query to nothing. Pages indexed
-- before this table fill it on `quire search reindex`.
CREATE TABLE search_words (
    word TEXT NOT NULL PRIMARY KEY
);
