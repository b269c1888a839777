-- PDFs of spaces, cached by what they were made from (revision, pages,
-- OpenAPI versions: `cache_key`), and the temporary links that download
-- them (only the SHA-256 of a link's token is kept).
CREATE TABLE pdfs (
    cache_key   TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    revision_id TEXT NOT NULL,
    blob        TEXT NOT NULL,
    size        BIGINT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX pdfs_of_space ON pdfs (space_id);

CREATE TABLE pdf_links (
    token_hash TEXT PRIMARY KEY,
    cache_key  TEXT NOT NULL REFERENCES pdfs(cache_key) ON DELETE CASCADE,
    file_name  TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX pdf_links_expiry ON pdf_links (expires_at);
