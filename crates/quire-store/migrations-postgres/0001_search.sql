-- The search index (PostgreSQL): one row per page of a space's current
-- content. The terms are produced by quire-search and stored as a tsvector
-- literal (stems, and raw words marked with a leading `_`, weighted A for
-- the title, B for the headings, C for the text), plus one lexeme `~{space
-- id}` so the GIN index finds a query's rows in given spaces without
-- reading any vector; no text search
-- configuration or extension is involved. The title and headings are kept
-- as text (ranking reads them without loading the space); the text itself
-- is not stored: sections and snippets are cut from the (cached) page
-- documents.

CREATE TABLE search_pages (
    id       BIGSERIAL PRIMARY KEY,
    space_id TEXT NOT NULL,
    page_id  TEXT NOT NULL,
    title    TEXT NOT NULL,
    headings TEXT NOT NULL,
    terms    TSVECTOR NOT NULL,
    -- What relevance is computed on: the first title and heading terms and
    -- the text's 16 most frequent terms (up to 4 occurrences each), a few
    -- hundred bytes that stay in the row.
    rank_terms TSVECTOR NOT NULL
);
CREATE UNIQUE INDEX search_pages_by_page ON search_pages (space_id, page_id);
CREATE INDEX search_pages_terms ON search_pages USING GIN (terms);

-- Index what exists already: one durable re-index job per live space.
INSERT INTO jobs (id, kind, payload, run_at, state, attempts, created_at)
SELECT 'reindex-' || id, 'reindex_space', '{"space_id":"' || id || '"}', 0, 'queued', 0, 0
FROM spaces WHERE deleted_at IS NULL;
