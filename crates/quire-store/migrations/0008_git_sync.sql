-- Git Sync. A revision imported from or exported to Git names its commit
-- (`{"oid", "message", "ref", "url", "createdByGitBook"}`), and a space
-- connected to a repository has one git_syncs row: where the repository
-- is (the URL may hold credentials: it is never shown or logged), which
-- ref and project directory, what was synced last, and the latest
-- operation.
ALTER TABLE revisions ADD COLUMN git TEXT;

CREATE TABLE git_syncs (
    space_id             TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
    url                  TEXT NOT NULL,
    git_ref              TEXT NOT NULL,
    project_directory    TEXT NOT NULL,
    tree_url             TEXT,
    commit_url           TEXT,
    -- The newest import or export event applied (Unix ms), for ordering.
    last_event_at        BIGINT,
    -- The commit and revision that were last the same content.
    last_commit          TEXT,
    last_revision        TEXT,
    -- Where the repository's summary was and what it said.
    summary_path         TEXT,
    summary_text         TEXT,
    operation_state      TEXT,
    operation_direction  TEXT,
    operation_started_at BIGINT,
    operation_ended_at   BIGINT,
    operation_error      TEXT,
    updated_at           BIGINT NOT NULL
);

-- What a finished job reports (JSON), such as the files an import skipped.
ALTER TABLE jobs ADD COLUMN result TEXT;
