-- Snooze (issue 35; SQLite's migration 12): when an ask the human put off comes back to the
-- inbox. Kept after the settle, so the record can say the ask was put off.
ALTER TABLE asks ADD COLUMN deferred_until TEXT;
