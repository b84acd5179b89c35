-- askd PostgreSQL schema v2 (SQLite v8): claims (team mode). `claim` is JSON text
-- `{id, name, at}` of the member on a pending ask, NULL when nobody is.
ALTER TABLE asks ADD COLUMN claim TEXT;
