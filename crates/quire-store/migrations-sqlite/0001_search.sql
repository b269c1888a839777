-- The search index (SQLite): one row per page of a space's current content
-- (its title, its headings, and its text). The terms are produced by
-- quire-search and stored in a contentless FTS5 table whose rowid is the
-- row's id; `unicode61` with diacritics kept only splits on the spaces
-- between those terms. The title and headings are kept as text (ranking
-- reads them without loading the space); the text itself is not stored:
-- sections and snippets are cut from the (cached) page documents.

CREATE TABLE search_pages (
    id       INTEGER PRIMARY KEY,
    space_id TEXT NOT NULL,
    page_id  TEXT NOT NULL,
    title    TEXT NOT NULL,
    headings TEXT NOT NULL
);
CREATE UNIQUE INDEX search_pages_by_page ON search_pages (space_id, page_id);

CREATE VIRTUAL TABLE search_terms USING fts5(
    title_stems, title_words, heading_stems, heading_words, body_stems, body_words,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);

-- Index what exists already: one durable re-index job per live space.
INSERT INTO jobs (id, kind, payload, run_at, state, attempts, created_at)
SELECT 'reindex-' || id, 'reindex_space', '{"space_id":"' || id || '"}', 0, 'queued', 0, 0
FROM spaces WHERE deleted_at IS NULL;
