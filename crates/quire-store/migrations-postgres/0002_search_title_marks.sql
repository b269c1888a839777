-- Search rows now carry a `^` lexeme for every term of the title and the
-- headings (quire_store::search::title_lexemes), so the part of a query
-- that looks only there is answered by the GIN index alone. Rows indexed
-- before have none: re-index every live space once (a durable job each;
-- until it ran, a space's title matches are found among its text matches
-- as before).
INSERT INTO jobs (id, kind, payload, run_at, state, attempts, created_at)
SELECT 'reindex-marks-' || id, 'reindex_space', '{"space_id":"' || id || '"}', 0, 'queued', 0, 0
FROM spaces WHERE deleted_at IS NULL
ON CONFLICT (id) DO NOTHING;
