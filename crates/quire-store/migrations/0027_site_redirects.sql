-- Redirects of a site (the official site redirects): a path of the site
-- (`source`, as the official pattern allows: `/old/page`, or ending in `/*`
-- or `*` for every path under it) sent to a destination, the official
-- `SiteRedirectDestination` as JSON (a section, site space or page of the
-- site, or an external URL). A draft redirect is prepared, not live, and
-- may stand beside the live one of the same source, so sources are unique
-- per site and draft state. Flags are 0/1; times are Unix milliseconds;
-- `updated_at` stays NULL until the redirect is first changed.
CREATE TABLE site_redirects (
    id               TEXT PRIMARY KEY,
    site_id          TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    source           TEXT NOT NULL,
    draft            BIGINT NOT NULL,
    capture_wildcard BIGINT NOT NULL,
    permanent        BIGINT NOT NULL,
    destination      TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT
);
CREATE UNIQUE INDEX site_redirects_by_source ON site_redirects (site_id, draft, source);
CREATE INDEX site_redirects_by_creation ON site_redirects (site_id, draft, created_at, id);
