-- The redirects of a Git-synced space's `.gitbook.yaml`, as the last import
-- resolved them: JSON `{"old/path": "<page id>"}`. Published sites answer
-- an old path with a permanent redirect to the page.
ALTER TABLE git_syncs ADD COLUMN redirects TEXT;
