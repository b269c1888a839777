-- Rate limits across nodes: how many requests each client (a token's hash,
-- or an address) made in a one-minute window, summed over every node. A
-- node adds its own counts once a second and reads a client's total on the
-- client's first request of a window; windows older than the previous one
-- are deleted. Written on PostgreSQL only (one SQLite server is one node).
CREATE TABLE rate_counts (
    client       TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    requests     BIGINT NOT NULL,
    PRIMARY KEY (client, window_start)
);
