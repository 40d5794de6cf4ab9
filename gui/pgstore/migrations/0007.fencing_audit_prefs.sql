-- depends: 0006.tallies_by_statement
-- Fencing: each run's lease has an epoch, 1 at its first save and one more at every takeover; a
-- process writes a run it holds only at the epoch it holds (gui/pgstore/runs.py).
-- Stops across processes: a Stop claimed on a running run (`stop_request`: its cause and where it was
-- pressed, set once) is told to the run's holder (LISTEN seqdesk_stops; payload: holder, space, run id).
-- The record of decisions (gui/pgstore/audit.py): entries only ever appended, in the order of their
-- position; the chain's head (the last position and hash) kept beside them, so that cutting off the
-- newest entries is seen. Updates, deletes and TRUNCATE of the entries are refused by triggers.
-- A decision on a request is appended to the record only while the request is pending and nobody
-- else is deciding it: the appending transaction claims the request (`interaction_claims`: the
-- entry's id; a table of its own, so a claim does not run the tallies' triggers), and only the
-- claimant's end of it is kept (a claim older than 30 s is void: its process died in between).
-- Preferences (gui/pgstore/preferences.py): each small settings object by name.

ALTER TABLE runs ADD COLUMN epoch bigint NOT NULL DEFAULT 1, ADD COLUMN stop_request jsonb;

CREATE FUNCTION notice_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.holder IS DISTINCT FROM current_setting('application_name') THEN  -- the holder pressed it: it knows
        PERFORM pg_notify('seqdesk_stops', coalesce(NEW.holder, '') || ' ' || NEW.run_id);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER runs_stop_requested AFTER UPDATE ON runs FOR EACH ROW
    WHEN (OLD.stop_request IS NULL AND NEW.stop_request IS NOT NULL) EXECUTE FUNCTION notice_stop();

CREATE TABLE interaction_claims (
    interaction_id text COLLATE "C" PRIMARY KEY,
    claim text NOT NULL,
    claimed_at timestamptz NOT NULL
);

CREATE TABLE audit_log (
    position bigint PRIMARY KEY CHECK (position > 0),
    entry_id text NOT NULL UNIQUE,
    prev text NOT NULL,
    hash text NOT NULL,
    at bigint NOT NULL,
    entry text NOT NULL  -- the entry's JSON exactly as it was hashed and stored
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE TABLE audit_head (
    id int PRIMARY KEY CHECK (id = 1),
    position bigint NOT NULL,
    hash text NOT NULL
);
INSERT INTO audit_head (id, position, hash) VALUES (1, 0, repeat('0', 64));

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the record of decisions is append-only: its entries are never changed or removed';
END
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW
    EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_log_never_emptied BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT
    EXECUTE FUNCTION audit_append_only();

CREATE TABLE preferences (
    name text PRIMARY KEY,
    doc jsonb NOT NULL
);
