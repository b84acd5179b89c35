-- askd schema v10: what settled an answered ask (issue 32). `submission` is the daemon's
-- digest of the submit that settled it (who, and the body), so a submit repeated after an
-- unknown commit outcome is answered with the saved result instead of a 409.
ALTER TABLE asks ADD COLUMN submission TEXT;
