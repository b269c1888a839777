-- SAML single sign-on: the identity providers of organizations, the
-- AuthnRequests Quire sent (a response must answer one), the assertions
-- already used (replays are refused until they expire), and the sessions
-- of the account page a login leads to (only SHA-256 of their tokens is
-- kept). API tokens get an id and a label, to be listed and revoked.
CREATE TABLE saml_providers (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    label               TEXT NOT NULL,
    entity_id           TEXT,
    sso_url             TEXT,
    certificate         TEXT,
    default_team_id     TEXT REFERENCES teams(id) ON DELETE SET NULL,
    default_role        TEXT,
    allow_idp_initiated BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL
);
CREATE INDEX saml_providers_by_org ON saml_providers (organization_id, created_at, id);

CREATE TABLE saml_requests (
    id          TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL REFERENCES saml_providers(id) ON DELETE CASCADE,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX saml_requests_expiry ON saml_requests (expires_at);

CREATE TABLE saml_assertions (
    provider_id  TEXT NOT NULL REFERENCES saml_providers(id) ON DELETE CASCADE,
    assertion_id TEXT NOT NULL,
    expires_at   BIGINT NOT NULL,
    PRIMARY KEY (provider_id, assertion_id)
);
CREATE INDEX saml_assertions_expiry ON saml_assertions (expires_at);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- The organizations whose single sign-on a session went through.
CREATE TABLE session_sso (
    token_hash      TEXT NOT NULL REFERENCES sessions(token_hash) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    PRIMARY KEY (token_hash, organization_id)
);

ALTER TABLE api_tokens ADD COLUMN id TEXT;
ALTER TABLE api_tokens ADD COLUMN label TEXT;
UPDATE api_tokens SET id = substr(token_hash, 1, 20);
CREATE UNIQUE INDEX api_tokens_by_id ON api_tokens (id);
CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created_at);
