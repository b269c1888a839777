-- The audit log: who changed what, when, from where. One row per change,
-- written in the transaction of the change itself. Rows name what they
-- concern by id without foreign keys: the log outlives what it names.
CREATE TABLE audit_events (
    id              TEXT PRIMARY KEY,
    -- The organization whose log shows the row (none for a person's own
    -- account: sign-in, tokens, password).
    organization_id TEXT,
    occurred_at     BIGINT NOT NULL,
    action          TEXT NOT NULL,
    actor_type      TEXT NOT NULL,
    actor_id        TEXT NOT NULL,
    actor_label     TEXT,
    source          TEXT NOT NULL,
    target_type     TEXT NOT NULL,
    target_id       TEXT NOT NULL,
    -- The request or job attempt that made the change: one row each.
    execution_id    TEXT NOT NULL UNIQUE,
    -- Allowlisted details as JSON (route, parameters, address, what was
    -- created); never a body, header or secret.
    payload         TEXT NOT NULL
);
CREATE INDEX audit_events_by_organization ON audit_events (organization_id, occurred_at, id);
