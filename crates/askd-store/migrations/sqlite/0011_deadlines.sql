-- askd schema v11: deadlines (issue 35). `expires_at` (UTC, RFC 3339 with milliseconds, so
-- it sorts as text) is when a pending ask stops waiting; `deadline` what happens then
-- (`{then, default?, set_at}`: `default` is the submit body the agent's default stands for).
-- Every daemon looks for due asks through `asks_expiring`, which holds only pending asks
-- that have a deadline.
ALTER TABLE asks ADD COLUMN expires_at TEXT;
ALTER TABLE asks ADD COLUMN deadline TEXT;
CREATE INDEX asks_expiring ON asks (expires_at) WHERE state = 'pending' AND expires_at IS NOT NULL;
