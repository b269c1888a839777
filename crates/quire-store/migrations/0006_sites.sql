-- Sites: published documentation websites built from spaces.
--
-- A site holds site spaces (a space shown at a path of the site), either at
-- the site's root level or inside sections; sections may sit in section
-- groups. Defaults are ids on the parent (the site's default section and
-- root-level default site space, each section's default site space), so at
-- most one default exists per level by construction. `position` orders
-- siblings (sections of a site, groups of a site, site spaces of a section
-- or of the root). Flags are 0/1; times are Unix milliseconds.

CREATE TABLE sites (
    id                   TEXT PRIMARY KEY,
    organization_id      TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    type                 TEXT NOT NULL,
    title                TEXT NOT NULL,
    basename             TEXT NOT NULL,
    hostname             TEXT,
    proxy                TEXT,
    visibility           TEXT NOT NULL,
    published            BIGINT NOT NULL,
    agents_context       TEXT NOT NULL,
    default_level        TEXT,
    adaptive_content     BIGINT NOT NULL,
    adaptive_schema      TEXT,
    adaptive_updated_at  BIGINT,
    customization        TEXT NOT NULL,
    -- Visitor authentication: the HS256 key visitor tokens are signed
    -- with, and where to send visitors without a valid token.
    visitor_key          TEXT NOT NULL,
    visitor_fallback_url TEXT,
    visitor_logout_url   TEXT,
    default_section_id   TEXT,
    default_site_space_id TEXT,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
-- A site is served at {public URL}/{basename}/, so basenames are unique
-- across the whole instance.
CREATE UNIQUE INDEX sites_by_basename ON sites (basename);
CREATE UNIQUE INDEX sites_by_hostname ON sites (hostname);
CREATE INDEX sites_in_org ON sites (organization_id, created_at, id);

CREATE TABLE site_section_groups (
    id       TEXT PRIMARY KEY,
    site_id  TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    title    TEXT NOT NULL,
    icon     TEXT,
    position BIGINT NOT NULL
);
CREATE INDEX site_section_groups_in_site ON site_section_groups (site_id, position);

CREATE TABLE site_sections (
    id                    TEXT PRIMARY KEY,
    site_id               TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    group_id              TEXT REFERENCES site_section_groups(id) ON DELETE SET NULL,
    title                 TEXT NOT NULL,
    description           TEXT,
    icon                  TEXT,
    path                  TEXT NOT NULL,
    condition             TEXT,
    default_site_space_id TEXT,
    position              BIGINT NOT NULL
);
CREATE INDEX site_sections_in_site ON site_sections (site_id, position);
CREATE UNIQUE INDEX site_sections_by_path ON site_sections (site_id, path);

CREATE TABLE site_spaces (
    id         TEXT PRIMARY KEY,
    site_id    TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    section_id TEXT REFERENCES site_sections(id) ON DELETE CASCADE,
    space_id   TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    condition  TEXT,
    position   BIGINT NOT NULL
);
CREATE INDEX site_spaces_in_site ON site_spaces (site_id, section_id, position);
CREATE INDEX site_spaces_of_space ON site_spaces (space_id);

CREATE TABLE site_share_links (
    id         TEXT PRIMARY KEY,
    site_id    TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    share_key  TEXT NOT NULL UNIQUE,
    active     BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX site_share_links_in_site ON site_share_links (site_id, created_at, id);
