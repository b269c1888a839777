-- Customization a site space overrides (a language variant, a version):
-- the settings set on it, applied over the site's own.
CREATE TABLE site_space_customizations (
    site_space_id TEXT PRIMARY KEY REFERENCES site_spaces(id) ON DELETE CASCADE,
    site_id       TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    settings      TEXT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX site_space_customizations_of_site ON site_space_customizations (site_id);
