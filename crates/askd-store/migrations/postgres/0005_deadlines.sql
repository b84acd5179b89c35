-- Deadlines (issue 35; SQLite's migration 11): when a pending ask stops waiting, and what
-- happens then. `asks_expiring` holds only pending asks that have a deadline.
ALTER TABLE asks ADD COLUMN expires_at TEXT;
ALTER TABLE asks ADD COLUMN deadline TEXT;
CREATE INDEX asks_expiring ON asks (expires_at) WHERE state = 'pending' AND expires_at IS NOT NULL;
