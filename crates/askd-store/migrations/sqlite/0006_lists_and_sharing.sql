-- askd schema v6 (issue 16): lists that stay flat as history grows, and each thing stored once.
--
-- 1. Indexes for every list the UI and the API ask: asks newest first, filtered by state,
--    session and kind in any combination (`GET /api/asks?state=…&session=…&kind=…`, the
--    inbox, `askd asks list`), and records newest first by kind or session
--    (`survey_records`, `GET /api/records`). Each index ends with the ordering column and,
--    implicitly, the rowid, so `ORDER BY created_at DESC, rowid DESC LIMIT n` walks the index
--    backwards and stops after n rows: no scan of all asks, no sort. The store builds each
--    list's WHERE from the filters present (no `?1 IS NULL OR …`, which no index can serve);
--    `sqlite.rs` tests every query's plan.
DROP INDEX asks_by_session;
CREATE INDEX asks_by_session ON asks(session_id, state, created_at);
CREATE INDEX asks_by_session_time ON asks(session_id, created_at);
CREATE INDEX asks_by_kind ON asks(kind, state, created_at);
CREATE INDEX asks_by_kind_time ON asks(kind, created_at);
CREATE INDEX asks_by_time ON asks(created_at);
CREATE INDEX records_by_kind ON records(kind, settled_at);
CREATE INDEX records_by_session ON records(session_id, settled_at);

-- 2. Stored once. A settled ask's record copies the ask's payload (`spec`) and its result's
--    `answers` and `skipped`; `ask.settled` copies the result's `answers`, `path` and
--    `skipped`. Such a member is now kept as `null` in place, and `shared` says which members
--    are the ask's own (bits, see `sqlite.rs` `Shared`); reads put them back, so every read
--    returns what was written. Rows written before this migration keep their copies
--    (`shared = 0`: nothing to put back), so the upgrade is instant however large the
--    database; only new writes are packed.
ALTER TABLE records ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;

-- 3. Long texts kept once: a result's top-level string members of 64 characters or more (the
--    handling text every answered ask carries, a drift card's instruction) are kept in
--    `texts`, the result holds `null` in their place and `result_texts` maps each member to
--    its text's id (`{"handling": 1}`); reading the ask puts them back. Existing results stay
--    as they are (`result_texts` NULL).
CREATE TABLE texts (
    id    INTEGER PRIMARY KEY,
    text  TEXT NOT NULL UNIQUE
);
ALTER TABLE asks ADD COLUMN result_texts TEXT;
