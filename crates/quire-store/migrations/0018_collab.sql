-- Real-time co-editing: the shared (Yjs) document of a page of a change
-- request, kept as the updates people's editors sent, in order per page,
-- plus which revision the shared document agrees with and which node saves
-- it. Updates are Yjs v1 updates as base64 text (both backends store text
-- alike); a saved page's older updates are folded into one.

CREATE TABLE collab_rooms (
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    page_id           TEXT NOT NULL,
    -- The revision whose page the shared document holds (seeded from it or
    -- saved into it); NULL until an editor has seeded it.
    base_revision     TEXT,
    -- The last update the saved revision holds (later ones are not saved yet).
    saved_seq         BIGINT NOT NULL DEFAULT 0,
    -- The node that saves the shared document, and until when its lease runs.
    saver_node        TEXT,
    saver_until       BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    PRIMARY KEY (change_request_id, page_id)
);

CREATE TABLE collab_updates (
    change_request_id TEXT NOT NULL,
    page_id           TEXT NOT NULL,
    seq               BIGINT NOT NULL,
    body              TEXT NOT NULL,
    user_id           TEXT,
    created_at        BIGINT NOT NULL,
    PRIMARY KEY (change_request_id, page_id, seq),
    FOREIGN KEY (change_request_id, page_id) REFERENCES collab_rooms (change_request_id, page_id) ON DELETE CASCADE
);
