-- Users, API tokens, organizations, members, teams and invitations.
-- Times are Unix milliseconds (BIGINT); flags are BIGINT 0/1 (sqlx's Any driver
-- cannot read SQLite booleans); ids are TEXT.

CREATE TABLE users (
    id           TEXT PRIMARY KEY,
    email        TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    photo_url    TEXT,
    created_at   BIGINT NOT NULL
);

CREATE TABLE api_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL
);

CREATE TABLE organizations (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    hostname             TEXT UNIQUE,
    default_role         TEXT,
    default_content_site TEXT,
    logo_url             TEXT,
    sso                  BIGINT NOT NULL DEFAULT 0,
    ai                   BIGINT NOT NULL DEFAULT 0,
    invite_links         BIGINT NOT NULL DEFAULT 1,
    created_at           BIGINT NOT NULL
);

CREATE TABLE organization_email_domains (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    domain          TEXT NOT NULL,
    position        BIGINT NOT NULL,
    PRIMARY KEY (organization_id, domain)
);
CREATE INDEX organization_email_domains_by_domain ON organization_email_domains (domain);

-- role NULL means guest.
CREATE TABLE members (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role            TEXT,
    disabled        BIGINT NOT NULL DEFAULT 0,
    sso             BIGINT NOT NULL DEFAULT 0,
    joined_at       BIGINT NOT NULL,
    last_seen_at    BIGINT,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_by_joined ON members (organization_id, joined_at, user_id);
CREATE INDEX members_by_last_seen ON members (organization_id, last_seen_at, user_id);
CREATE INDEX members_by_user ON members (user_id);

CREATE TABLE teams (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    title           TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX teams_by_org ON teams (organization_id, created_at, id);

-- organization_id is repeated here so "teams of a member in an org" is one index lookup.
CREATE TABLE team_members (
    team_id         TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    role            TEXT NOT NULL,
    added_at        BIGINT NOT NULL,
    PRIMARY KEY (team_id, user_id),
    FOREIGN KEY (organization_id, user_id) REFERENCES members(organization_id, user_id) ON DELETE CASCADE
);
CREATE INDEX team_members_by_member ON team_members (organization_id, user_id);
CREATE INDEX team_members_by_team ON team_members (team_id, added_at, user_id);

-- Invitations by email for people who have no account yet.
CREATE TABLE pending_invites (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    email           TEXT NOT NULL,
    role            TEXT,
    sso             BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    UNIQUE (organization_id, email)
);
CREATE INDEX pending_invites_by_email ON pending_invites (email);

-- Shareable invite links: anyone holding the id can join with the role.
CREATE TABLE invite_links (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    role            TEXT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX invite_links_by_org ON invite_links (organization_id, created_at, id);
