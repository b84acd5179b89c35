-- askd schema v12: snooze (issue 35). `deferred_until` (UTC, RFC 3339 with milliseconds) is
-- when an ask the human put off ("ask me again in …") comes back to the inbox; it is kept
-- after the settle, so the record can say the ask was put off.
ALTER TABLE asks ADD COLUMN deferred_until TEXT;
