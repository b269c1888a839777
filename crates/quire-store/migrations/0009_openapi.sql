-- OpenAPI specifications of an organization and their versions. A spec
-- comes from a URL (fetched by a job) or from a document given as text; a
-- version is kept each time the document's content changes.
CREATE TABLE openapi_specs (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    slug              TEXT NOT NULL,
    source_url        TEXT,
    source_text       TEXT,
    visibility        TEXT NOT NULL,
    processing_state  TEXT NOT NULL,
    last_version_id   TEXT,
    last_processed_at BIGINT,
    last_error_code   TEXT,
    last_error        TEXT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE UNIQUE INDEX openapi_specs_by_slug ON openapi_specs (organization_id, slug);

CREATE TABLE openapi_spec_versions (
    id           TEXT PRIMARY KEY,
    spec_id      TEXT NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    content      TEXT NOT NULL,
    format       TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX openapi_spec_versions_of_spec ON openapi_spec_versions (spec_id, created_at);
