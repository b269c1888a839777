-- OAuth for Model Context Protocol clients (the protocol's authorization):
-- the clients that registered themselves (RFC 7591), and the authorization
-- codes a person granted, waiting to be exchanged once (PKCE S256, ten
-- minutes). What a code becomes is an API token of that person
-- (api_tokens), which they see and revoke on their account page.
CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    -- The redirect URIs it registered, as a JSON array.
    redirect_uris TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);

CREATE TABLE oauth_codes (
    -- SHA-256 of the code (the code itself is only in the redirect).
    code_hash      TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    expires_at     BIGINT NOT NULL
);
