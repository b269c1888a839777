-- The search index (PostgreSQL): one row per section of a page of a space's
-- current content. The terms are produced by quire-search and stored as a
-- tsvector literal (stems, and raw words marked with a leading `_`, with the
-- weights A for the page title, B for the heading, C for the body); no text
-- search configuration or extension is involved. The text itself is not
-- stored: snippets are cut from the (cached) page documents.

CREATE TABLE search_sections (
    id       BIGSERIAL PRIMARY KEY,
    space_id TEXT NOT NULL,
    page_id  TEXT NOT NULL,
    ordinal  BIGINT NOT NULL,
    anchor   TEXT,
    heading  TEXT NOT NULL,
    terms    TSVECTOR NOT NULL
);
CREATE INDEX search_sections_by_page ON search_sections (space_id, page_id);
CREATE INDEX search_sections_terms ON search_sections USING GIN (terms);

-- Index what exists already: one durable re-index job per live space.
INSERT INTO jobs (id, kind, payload, run_at, state, attempts, created_at)
SELECT 'reindex-' || id, 'reindex_space', '{"space_id":"' || id || '"}', 0, 'queued', 0, 0
FROM spaces WHERE deleted_at IS NULL;
