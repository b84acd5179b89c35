-- askd schema v5: delivering results (clients.md §2.5). A result settled while no agent call
-- waited for it is undelivered (delivered_at NULL) until a call returns it; an identical
-- repeat call in the same session gets it back instead of creating a new ask. Results
-- settled before this version count as delivered.
ALTER TABLE asks ADD COLUMN delivered_at TEXT;
UPDATE asks SET delivered_at = settled_at WHERE state = 'settled';
CREATE INDEX asks_undelivered ON asks(session_id, kind, payload_key)
    WHERE state = 'settled' AND delivered_at IS NULL;
