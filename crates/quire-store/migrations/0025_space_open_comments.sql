-- How many open comments each space has on itself (change request comments
-- aside), kept by the comment writes in the store: a space's view shows the
-- number, and counting the rows made each read slower as comments piled up.
-- A space without a row has none.
CREATE TABLE space_open_comments (
    space_id TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
    comments BIGINT NOT NULL
);
INSERT INTO space_open_comments (space_id, comments)
SELECT space_id, COUNT(*) FROM comments
WHERE resolved_at IS NULL AND change_request_id IS NULL
GROUP BY space_id;
