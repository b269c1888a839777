-- Webhooks: endpoints an organization's administrators registered, and
-- every delivery of an event to one of them (its log). A delivery is
-- written, with the job that sends it, in the transaction of the change
-- that caused the event, so none is lost when a node stops.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url             TEXT NOT NULL,
    -- The event types sent, as a JSON array of names.
    events          TEXT NOT NULL,
    -- The HMAC-SHA256 key deliveries are signed with (shown once).
    secret          TEXT NOT NULL,
    active          BIGINT NOT NULL,
    created_by      TEXT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX webhooks_by_organization ON webhooks (organization_id, created_at, id);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    -- The exact bytes sent (and signed).
    body            TEXT NOT NULL,
    -- pending, delivered or failed (no attempt left).
    state           TEXT NOT NULL,
    attempts        BIGINT NOT NULL,
    response_status BIGINT,
    error           TEXT,
    duration_ms     BIGINT,
    created_at      BIGINT NOT NULL,
    last_attempt_at BIGINT,
    delivered_at    BIGINT,
    -- The delivery this one sends again, for a redelivery.
    redelivery_of   TEXT
);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, id);
