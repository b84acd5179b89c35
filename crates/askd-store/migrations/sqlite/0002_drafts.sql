-- askd schema v2: the question builder's draft manifest (survey.md §10.2): one row per draft
-- and the active draft of each session. The draft files hold the content; these rows hold
-- the status, the active pointer and the launched ask.
CREATE TABLE drafts (
    slug               TEXT PRIMARY KEY,
    session_id         TEXT NOT NULL,
    title              TEXT NOT NULL,
    status             TEXT NOT NULL
        CHECK (status IN ('building', 'launched', 'answered', 'reopened', 'discarded')),
    file               TEXT NOT NULL,
    workspace          TEXT,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    revision           INTEGER NOT NULL DEFAULT 0,
    ready              INTEGER NOT NULL DEFAULT 0,
    progress_questions INTEGER NOT NULL DEFAULT 0,
    progress_complete  INTEGER NOT NULL DEFAULT 0,
    progress_missing   INTEGER NOT NULL DEFAULT 0,
    grounding          TEXT NOT NULL DEFAULT 'standard',
    ask_id             TEXT REFERENCES asks(id)
);
CREATE INDEX drafts_by_ask ON drafts(ask_id) WHERE ask_id IS NOT NULL;
CREATE INDEX drafts_by_session ON drafts(session_id, updated_at);

CREATE TABLE draft_active (
    session_id  TEXT PRIMARY KEY,
    slug        TEXT NOT NULL REFERENCES drafts(slug)
);
CREATE INDEX draft_active_by_slug ON draft_active(slug);
