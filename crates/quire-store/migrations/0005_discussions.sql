-- Discussions: comments on a space or on one of its change requests, the
-- replies under each comment, and emoji reactions on either.
--
-- A space comment has no change_request_id. revision_id is the revision the
-- comment was posted on (the space's, or the change request's head);
-- page_document is the hash of the commented page's document at that time,
-- so a later change to the page marks the comment outdated. A comment is
-- open while resolved_at is NULL.

CREATE TABLE comments (
    id                TEXT PRIMARY KEY,
    space_id          TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    change_request_id TEXT REFERENCES change_requests(id) ON DELETE CASCADE,
    posted_by         TEXT NOT NULL,
    posted_at         BIGINT NOT NULL,
    edited_at         BIGINT,
    body              TEXT NOT NULL,
    revision_id       TEXT NOT NULL,
    page_id           TEXT,
    page_document     TEXT,
    node_id           TEXT,
    table_record      TEXT,
    table_definition  TEXT,
    resolved_at       BIGINT,
    resolved_by       TEXT
);
CREATE INDEX comments_in_discussion ON comments (space_id, change_request_id, posted_at, id);
CREATE INDEX comments_in_change_request ON comments (change_request_id, resolved_at);

CREATE TABLE comment_replies (
    id         TEXT PRIMARY KEY,
    comment_id TEXT NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
    posted_by  TEXT NOT NULL,
    posted_at  BIGINT NOT NULL,
    edited_at  BIGINT,
    body       TEXT NOT NULL
);
CREATE INDEX comment_replies_in_comment ON comment_replies (comment_id, posted_at, id);

-- One row per (comment or reply, emoji, user): the same user adding the same
-- emoji twice counts once. comment_id is the comment itself or the comment a
-- reply belongs to, so a comment's removal takes every reaction of its thread.
CREATE TABLE comment_reactions (
    target_id  TEXT NOT NULL,
    emoji      TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    comment_id TEXT NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
    reacted_at BIGINT NOT NULL,
    PRIMARY KEY (target_id, emoji, user_id)
);
CREATE INDEX comment_reactions_in_comment ON comment_reactions (comment_id);
