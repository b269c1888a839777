-- Signing in without an identity provider: passwords, one-time links,
-- failed attempts, OpenID Connect logins, and sessions one can list and
-- revoke.

-- A person's password, as an Argon2id PHC string (never the password).
CREATE TABLE user_passwords (
    user_id    TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    hash       TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- One-time links (only their SHA-256 is kept): to sign in, to reset a
-- password, or to accept an invitation by setting one. `email` names the
-- person, who may not have an account yet (an invitation).
CREATE TABLE sign_in_links (
    token_hash TEXT PRIMARY KEY,
    purpose    TEXT NOT NULL,
    email      TEXT NOT NULL,
    created_by TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sign_in_links_expiry ON sign_in_links (expires_at);

-- Failed sign-in attempts, by subject (`account:<email>` or
-- `address:<ip>`), counted over a sliding window.
CREATE TABLE sign_in_failures (
    subject   TEXT NOT NULL,
    failed_at BIGINT NOT NULL
);
CREATE INDEX sign_in_failures_by_subject ON sign_in_failures (subject, failed_at);

-- OpenID Connect sign-ins under way: the state sent to the provider, with
-- the nonce and PKCE verifier that go with it.
CREATE TABLE oidc_requests (
    state         TEXT PRIMARY KEY,
    nonce         TEXT NOT NULL,
    code_verifier TEXT NOT NULL,
    return_to     TEXT NOT NULL,
    expires_at    BIGINT NOT NULL
);

-- Who an OpenID provider's subject is here.
CREATE TABLE oidc_identities (
    issuer  TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (issuer, subject)
);

-- Sessions get an id to be listed and revoked by, and say how they began
-- and from where. Sessions from before have none of this: they end here
-- (everyone signs in again once).
DELETE FROM session_sso;
DELETE FROM sessions;
ALTER TABLE sessions ADD COLUMN id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
ALTER TABLE sessions ADD COLUMN address TEXT;
ALTER TABLE sessions ADD COLUMN last_seen_at BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX sessions_by_id ON sessions (id);
CREATE INDEX sessions_by_user ON sessions (user_id, created_at);
