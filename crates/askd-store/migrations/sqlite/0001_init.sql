-- askd schema v1: sessions, asks, banked answers, records, the event log.
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    client      TEXT NOT NULL,
    workspace   TEXT,
    created_at  TEXT NOT NULL
);

CREATE TABLE asks (
    id                 TEXT PRIMARY KEY,
    session_id         TEXT NOT NULL REFERENCES sessions(id),
    kind               TEXT NOT NULL,
    title              TEXT,
    state              TEXT NOT NULL CHECK (state IN ('pending', 'settled')),
    outcome            TEXT,
    payload            TEXT NOT NULL,
    payload_key        TEXT NOT NULL,
    fingerprint        TEXT,
    created_at         TEXT NOT NULL,
    settled_at         TEXT,
    awaited            INTEGER NOT NULL DEFAULT 1,
    autosave           TEXT,
    autosave_revision  INTEGER NOT NULL DEFAULT 0,
    autosave_saved_at  TEXT,
    result             TEXT,
    CHECK ((state = 'pending') = (outcome IS NULL))
);
CREATE INDEX asks_by_state ON asks(state, created_at);
CREATE INDEX asks_by_session ON asks(session_id, state);
CREATE INDEX asks_reattach ON asks(session_id, kind, payload_key) WHERE state = 'pending';

CREATE TABLE banked (
    ask_id       TEXT NOT NULL REFERENCES asks(id),
    seq          INTEGER NOT NULL,
    question_id  TEXT NOT NULL,
    entry        TEXT NOT NULL,
    banked_at    TEXT NOT NULL,
    PRIMARY KEY (ask_id, question_id)
);

CREATE TABLE records (
    ask_id      TEXT PRIMARY KEY REFERENCES asks(id),
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    kind        TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    settled_at  TEXT NOT NULL,
    record      TEXT NOT NULL
);
CREATE INDEX records_by_time ON records(settled_at);

CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL,
    ask_id      TEXT,
    payload     TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
