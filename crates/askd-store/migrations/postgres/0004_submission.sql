-- The digest of the submit that settled an answered ask (issue 32; SQLite's migration 10):
-- a submit repeated after an unknown commit outcome gets the saved result, not a 409.
ALTER TABLE asks ADD COLUMN submission TEXT;
