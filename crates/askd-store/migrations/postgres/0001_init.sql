-- askd's schema in PostgreSQL's dialect: the state SQLite's migrations 0001–0007 reach, in one
-- step (no PostgreSQL database predates team mode, so there is no older PostgreSQL history to
-- replay). The later migrations of both backends are written once per dialect, side by side.
--
-- Differences from the SQLite schema, each for a reason:
-- - Text columns that are compared or ordered (ids, times, states) are `COLLATE "C"`: times
--   are RFC 3339 text compared as text, byte order, as SQLite does; a database's locale
--   collation would order them by its own rules. `ILIKE` under "C" folds ASCII only, as
--   SQLite's `LIKE` does.
-- - JSON stays `TEXT`, kept verbatim (jsonb would reorder members; the store returns what was
--   written, member order included).
-- - Flags are `BOOLEAN`, counts `BIGINT`.
-- - `n` (an identity) stands in for SQLite's rowid where a list breaks ties in insert order.
-- - SQLite's space sharing (`shared` bits, `texts`, `result_texts`, migration 0006) is an
--   on-disk optimisation of that file format, not behaviour: PostgreSQL rows keep the whole
--   JSON (TOAST compresses long values).
CREATE TABLE sessions (
    id          TEXT COLLATE "C" PRIMARY KEY,
    client      TEXT NOT NULL,
    workspace   TEXT,
    created_at  TEXT COLLATE "C" NOT NULL
);

CREATE TABLE asks (
    n                  BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id                 TEXT COLLATE "C" PRIMARY KEY,
    session_id         TEXT COLLATE "C" NOT NULL REFERENCES sessions(id),
    kind               TEXT COLLATE "C" NOT NULL,
    title              TEXT,
    state              TEXT COLLATE "C" NOT NULL CHECK (state IN ('pending', 'settled')),
    outcome            TEXT COLLATE "C",
    payload            TEXT NOT NULL,
    payload_key        TEXT COLLATE "C" NOT NULL,
    fingerprint        TEXT,
    created_at         TEXT COLLATE "C" NOT NULL,
    settled_at         TEXT COLLATE "C",
    awaited            BOOLEAN NOT NULL DEFAULT TRUE,
    autosave           TEXT,
    autosave_revision  BIGINT NOT NULL DEFAULT 0,
    autosave_saved_at  TEXT,
    result             TEXT,
    delivered_at       TEXT,
    CHECK ((state = 'pending') = (outcome IS NULL))
);
CREATE INDEX asks_by_state ON asks(state, created_at, n);
CREATE INDEX asks_by_session ON asks(session_id, state, created_at, n);
CREATE INDEX asks_by_session_time ON asks(session_id, created_at, n);
CREATE INDEX asks_by_kind ON asks(kind, state, created_at, n);
CREATE INDEX asks_by_kind_time ON asks(kind, created_at, n);
CREATE INDEX asks_by_time ON asks(created_at, n);
CREATE INDEX asks_reattach ON asks(session_id, kind, payload_key) WHERE state = 'pending';
CREATE INDEX asks_undelivered ON asks(session_id, kind, payload_key)
    WHERE state = 'settled' AND delivered_at IS NULL;

CREATE TABLE banked (
    ask_id       TEXT COLLATE "C" NOT NULL REFERENCES asks(id),
    seq          BIGINT NOT NULL,
    question_id  TEXT COLLATE "C" NOT NULL,
    entry        TEXT NOT NULL,
    banked_at    TEXT NOT NULL,
    PRIMARY KEY (ask_id, question_id)
);

CREATE TABLE records (
    n           BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    ask_id      TEXT COLLATE "C" PRIMARY KEY REFERENCES asks(id),
    session_id  TEXT COLLATE "C" NOT NULL REFERENCES sessions(id),
    kind        TEXT COLLATE "C" NOT NULL,
    outcome     TEXT COLLATE "C" NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL,
    settled_at  TEXT COLLATE "C" NOT NULL,
    record      TEXT NOT NULL
);
CREATE INDEX records_by_time ON records(settled_at, n);
CREATE INDEX records_by_kind ON records(kind, settled_at, n);
CREATE INDEX records_by_session ON records(session_id, settled_at, n);

-- The event log. `seq` comes from a sequence at insert; every writing transaction takes the
-- store's transaction-level advisory lock first (`pg.rs`, `WRITE_LOCK`), so seqs are assigned
-- and committed in the same order and a reader paging by seq never skips a late commit.
CREATE TABLE events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        TEXT COLLATE "C" NOT NULL,
    ask_id      TEXT COLLATE "C",
    payload     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    session_id  TEXT COLLATE "C"
);
CREATE INDEX events_by_session ON events(session_id, seq) WHERE session_id IS NOT NULL;
CREATE INDEX events_session_log ON events(session_id, seq)
    WHERE session_id IS NOT NULL AND kind NOT LIKE 'ask.%';

CREATE TABLE drafts (
    n                  BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    slug               TEXT COLLATE "C" PRIMARY KEY,
    session_id         TEXT COLLATE "C" NOT NULL,
    title              TEXT NOT NULL,
    status             TEXT COLLATE "C" NOT NULL
        CHECK (status IN ('building', 'launched', 'answered', 'reopened', 'discarded')),
    file               TEXT NOT NULL,
    workspace          TEXT,
    created_at         TEXT COLLATE "C" NOT NULL,
    updated_at         TEXT COLLATE "C" NOT NULL,
    revision           BIGINT NOT NULL DEFAULT 0,
    ready              BOOLEAN NOT NULL DEFAULT FALSE,
    progress_questions BIGINT NOT NULL DEFAULT 0,
    progress_complete  BIGINT NOT NULL DEFAULT 0,
    progress_missing   BIGINT NOT NULL DEFAULT 0,
    grounding          TEXT NOT NULL DEFAULT 'standard',
    ask_id             TEXT COLLATE "C" REFERENCES asks(id)
);
CREATE INDEX drafts_by_ask ON drafts(ask_id) WHERE ask_id IS NOT NULL;
CREATE INDEX drafts_by_session ON drafts(session_id, updated_at);

CREATE TABLE draft_active (
    session_id  TEXT COLLATE "C" PRIMARY KEY,
    slug        TEXT COLLATE "C" NOT NULL REFERENCES drafts(slug)
);
CREATE INDEX draft_active_by_slug ON draft_active(slug);

CREATE TABLE settings (
    key         TEXT COLLATE "C" PRIMARY KEY,
    value       TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE alignment_checkpoints (
    session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id),
    last_seq   BIGINT NOT NULL,
    decisions  BIGINT NOT NULL,
    state      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE alignment_decisions (
    session_id TEXT COLLATE "C" NOT NULL,
    idx        BIGINT NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    ask_id     TEXT COLLATE "C" NOT NULL,
    decision   TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
);
CREATE INDEX alignment_decisions_by_key ON alignment_decisions(session_id, key, idx);
