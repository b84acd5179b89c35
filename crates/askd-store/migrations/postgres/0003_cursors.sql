-- askd PostgreSQL schema v3 (SQLite v9): named cursors over the event log (issue 32): how far
-- a team role has read the events (the notifier's, for its handover).
CREATE TABLE cursors (
    name TEXT PRIMARY KEY,
    seq BIGINT NOT NULL,
    updated_at TEXT NOT NULL
);
