-- The content engine: immutable content-addressed objects, revisions that
-- point at a root object, and change requests.

-- Objects are keyed by the SHA-256 of their kind and body; never updated.
CREATE TABLE content_objects (
    hash TEXT PRIMARY KEY,
    body TEXT NOT NULL
);

CREATE TABLE revisions (
    id         TEXT PRIMARY KEY,
    space_id   TEXT NOT NULL,
    parents    TEXT NOT NULL,
    root       TEXT NOT NULL,
    author_id  TEXT,
    kind       TEXT NOT NULL,
    merged_from TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX revisions_by_space ON revisions (space_id, created_at);

CREATE TABLE change_requests (
    id                       TEXT PRIMARY KEY,
    space_id                 TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    number                   BIGINT NOT NULL,
    subject                  TEXT NOT NULL,
    status                   TEXT NOT NULL,
    created_by               TEXT NOT NULL,
    created_at               BIGINT NOT NULL,
    updated_at               BIGINT NOT NULL,
    revision_id              TEXT NOT NULL,
    revision_initial         TEXT NOT NULL,
    revision_merged_ancestor TEXT NOT NULL,
    revision_merged          TEXT,
    merged_by                TEXT,
    merged_at                BIGINT,
    UNIQUE (space_id, number)
);
CREATE INDEX change_requests_by_space ON change_requests (space_id, status, updated_at, id);

-- Numbers of change requests are allocated per space and never reused.
ALTER TABLE spaces ADD COLUMN change_request_counter BIGINT NOT NULL DEFAULT 0;

-- Every space created before this migration gets its (empty) initial revision.
INSERT INTO content_objects (hash, body)
VALUES ('0ea2014bc5b3c7f2185765061d6e5fa932c16e5240f771de5801af449cb1fe9f', '{"pages":[],"files":[]}');
INSERT INTO revisions (id, space_id, parents, root, author_id, kind, merged_from, created_at)
SELECT revision_id, id, '[]', '0ea2014bc5b3c7f2185765061d6e5fa932c16e5240f771de5801af449cb1fe9f', NULL, 'edits', NULL, created_at
FROM spaces;
