-- askd schema: alignment checkpoints (issue 16). A session's alignment state is a fold of its
-- events; a checkpoint is that fold at a known seq, so a read folds only the events after it.
-- Derived data: a missing or older checkpoint only means more events to fold. The settled
-- decisions are kept one per row beside it (they grow with every answered ask), keyed by the
-- normalised question for the "asked earlier" hint. Written with IF NOT EXISTS so the
-- migration is harmless in any position of the list.
CREATE TABLE IF NOT EXISTS alignment_checkpoints (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions(id),
    last_seq   INTEGER NOT NULL,
    decisions  INTEGER NOT NULL,
    state      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS alignment_decisions (
    session_id TEXT NOT NULL,
    idx        INTEGER NOT NULL,
    key        TEXT NOT NULL,
    ask_id     TEXT NOT NULL,
    decision   TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
-- The repeat hint: the first decision of a session with this key.
CREATE INDEX IF NOT EXISTS alignment_decisions_by_key ON alignment_decisions(session_id, key, idx);
-- A session's log without its ask events (the session page's extras): a partial index of the
-- few events that are not an ask's, so reading it does not walk the ask events.
CREATE INDEX IF NOT EXISTS events_session_log ON events(session_id, seq)
    WHERE session_id IS NOT NULL AND kind NOT LIKE 'ask.%';
