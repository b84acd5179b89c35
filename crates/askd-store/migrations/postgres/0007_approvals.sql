-- More than one approver (issue 35; SQLite's migration 13): `{required, from, votes: […]}`,
-- the votes kept with the ask and written by a compare-and-set on this column, in the same
-- transaction as the settle a deciding vote makes.
ALTER TABLE asks ADD COLUMN approvals TEXT;
