-- askd schema v13: more than one approver (issue 35, team mode). `approvals` is
-- `{required, from, votes: [{answered_by, voted_at, rejects, answer}]}`: the votes are kept with
-- the ask (a handful per ask) and written by a compare-and-set on this column, in the same
-- transaction as the settle a deciding vote makes.
ALTER TABLE asks ADD COLUMN approvals TEXT;
