-- Collections and spaces (the containers of content), explicit content
-- grants, and the durable job queue.
--
-- default_level is 'inherit', a role name, or NULL (no default access).
-- position orders the children of one parent (collections and spaces
-- together); lower comes first.

CREATE TABLE collections (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id       TEXT REFERENCES collections(id),
    title           TEXT NOT NULL,
    description     TEXT,
    default_level   TEXT DEFAULT 'inherit',
    position        BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX collections_by_parent ON collections (organization_id, parent_id, position, id);
CREATE INDEX collections_by_org ON collections (organization_id, position, id);

CREATE TABLE spaces (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id       TEXT REFERENCES collections(id),
    title           TEXT NOT NULL,
    emoji           TEXT NOT NULL DEFAULT '',
    visibility      TEXT NOT NULL,
    edit_mode       TEXT NOT NULL DEFAULT 'live',
    default_level   TEXT DEFAULT 'inherit',
    revision_id     TEXT NOT NULL,
    share_key       TEXT NOT NULL,
    position        BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    deleted_at      BIGINT
);
CREATE INDEX spaces_by_parent ON spaces (organization_id, parent_id, position, id);
CREATE INDEX spaces_by_org ON spaces (organization_id, position, id);

-- A role given on a space or collection to a user or a team.
CREATE TABLE content_grants (
    resource_id     TEXT NOT NULL,
    resource_kind   TEXT NOT NULL,
    principal_kind  TEXT NOT NULL,
    principal_id    TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    role            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (resource_id, principal_kind, principal_id)
);
CREATE INDEX content_grants_by_principal ON content_grants (organization_id, principal_kind, principal_id);

-- Durable background work: claimed by one worker at a time through a lease.
CREATE TABLE jobs (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    run_at       BIGINT NOT NULL,
    state        TEXT NOT NULL,
    attempts     BIGINT NOT NULL DEFAULT 0,
    locked_by    TEXT,
    locked_until BIGINT,
    last_error   TEXT,
    created_at   BIGINT NOT NULL,
    finished_at  BIGINT
);
CREATE INDEX jobs_ready ON jobs (state, run_at);
