DROP INDEX runs_leases;
ALTER TABLE runs DROP COLUMN heartbeat, DROP COLUMN holder;
