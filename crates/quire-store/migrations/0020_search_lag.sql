-- Spaces whose search index stands behind their current revision: a Git
-- import commits its pages first and indexes them in a job of its own
-- right after (off the import's path). `indexed_revision` is the revision
-- the index holds; commits made meanwhile leave the index to that job.

CREATE TABLE search_lag (
    space_id         TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
    indexed_revision TEXT NOT NULL
);
