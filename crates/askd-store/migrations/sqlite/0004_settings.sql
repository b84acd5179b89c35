-- askd schema v4: saved settings (review.md §7.3): the values the web UI's Settings page
-- saved, one row per key the user changed. A key without a row falls back to the config
-- file, env, flags and the built-in default. `value` is JSON.
CREATE TABLE settings (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
