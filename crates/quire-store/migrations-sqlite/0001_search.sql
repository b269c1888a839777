-- The search index (SQLite): one row per section of a page of a space's
-- current content. The terms are produced by quire-search and stored in a
-- contentless FTS5 table whose rowid is the section's id; `unicode61` with
-- diacritics kept only splits on the spaces between those terms. The text
-- itself is not stored: snippets are cut from the (cached) page documents.

CREATE TABLE search_sections (
    id       INTEGER PRIMARY KEY,
    space_id TEXT NOT NULL,
    page_id  TEXT NOT NULL,
    ordinal  BIGINT NOT NULL,
    anchor   TEXT,
    heading  TEXT NOT NULL
);
CREATE INDEX search_sections_by_page ON search_sections (space_id, page_id);

CREATE VIRTUAL TABLE search_terms USING fts5(
    title_stems, title_words, heading_stems, heading_words, body_stems, body_words,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);

-- Index what exists already: one durable re-index job per live space.
INSERT INTO jobs (id, kind, payload, run_at, state, attempts, created_at)
SELECT 'reindex-' || id, 'reindex_space', '{"space_id":"' || id || '"}', 0, 'queued', 0, 0
FROM spaces WHERE deleted_at IS NULL;
