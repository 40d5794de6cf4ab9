-- depends: 0003.notices
-- Each running run has a lease: the process that started it (`holder`, its connections' name) renews
-- `heartbeat` while it runs it. A run is taken over (and marked interrupted) only once its lease has
-- expired, by one process (the others skip the rows it locked).

ALTER TABLE runs ADD COLUMN holder text, ADD COLUMN heartbeat timestamptz;
CREATE INDEX runs_leases ON runs (holder, heartbeat) WHERE NOT finished;
