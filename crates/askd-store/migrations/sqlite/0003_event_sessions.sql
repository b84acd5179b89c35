-- A session's stream (alignment.md §4.4) is read by session: the events whose payload names
-- it, indexed, instead of a scan of the whole log.
ALTER TABLE events ADD COLUMN session_id TEXT;
UPDATE events SET session_id = json_extract(payload, '$.session')
    WHERE json_valid(payload) AND json_type(payload, '$.session') = 'text';
CREATE INDEX events_by_session ON events(session_id, seq) WHERE session_id IS NOT NULL;
