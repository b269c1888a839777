-- Reviews of change requests (approved, changes requested), with the
-- comment a review may carry, and the reviews requested of people.

CREATE TABLE change_request_reviews (
    id                TEXT PRIMARY KEY,
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    reviewer_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by      TEXT REFERENCES users(id) ON DELETE SET NULL,
    status            TEXT NOT NULL,
    revision_id       TEXT NOT NULL,
    comment_id        TEXT REFERENCES comments(id) ON DELETE SET NULL,
    created_at        BIGINT NOT NULL
);
CREATE INDEX change_request_reviews_by_change_request ON change_request_reviews (change_request_id, created_at);

CREATE TABLE change_request_reviewers (
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    user_id           TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    revision_id       TEXT NOT NULL,
    created_at        BIGINT NOT NULL,
    PRIMARY KEY (change_request_id, user_id)
);
