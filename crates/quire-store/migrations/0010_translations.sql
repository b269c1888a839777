-- Translations of a space into another language, what each run translated
-- (so a re-run translates only pages whose source changed), and the
-- organization's glossary.
CREATE TABLE translations (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    source_space_id     TEXT NOT NULL,
    source_language     TEXT NOT NULL,
    language            TEXT NOT NULL,
    instructions        TEXT,
    status              TEXT NOT NULL,
    result_space_id     TEXT,
    result_revision_id  TEXT,
    runs                BIGINT NOT NULL,
    total_words         BIGINT NOT NULL,
    total_pages         BIGINT NOT NULL,
    total_duration      BIGINT NOT NULL,
    latest_run_duration BIGINT NOT NULL,
    latest_pages        BIGINT NOT NULL,
    latest_words        BIGINT NOT NULL,
    last_error          TEXT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX translations_of_org ON translations (organization_id, created_at);

CREATE TABLE translation_pages (
    translation_id  TEXT NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
    source_page_id  TEXT NOT NULL,
    result_page_id  TEXT NOT NULL,
    source_key      TEXT NOT NULL,
    title           TEXT NOT NULL,
    description     TEXT,
    markdown        TEXT NOT NULL,
    PRIMARY KEY (translation_id, source_page_id)
);

CREATE TABLE glossary_entries (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    translations    TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX glossary_entries_of_org ON glossary_entries (organization_id, created_at);
