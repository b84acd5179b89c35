-- askd schema v9: named cursors over the event log (issue 32). `seq` is how far a team role
-- has read the events: the notifier's, so the daemon that takes the role over announces the
-- asks its predecessor had not announced yet, and none twice.
CREATE TABLE cursors (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
