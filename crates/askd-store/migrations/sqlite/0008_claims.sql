-- askd schema v8: claims (team mode, issue 17). A member may say they are on a pending ask
-- ("Ana is on it"); others can still answer, settle-once decides. `claim` is JSON
-- `{id, name, at}` of the member, NULL when nobody claimed the ask or the claim was released.
ALTER TABLE asks ADD COLUMN claim TEXT;
