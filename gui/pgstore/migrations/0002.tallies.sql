-- depends: 0001.documents
-- How many runs and requests there are, in all, by status and by sequence, kept by triggers as rows
-- change: the total of a page of the commonest lists is one row read, not a count of all history.
-- The text search of runs by the sequence's name uses a trigram index.

CREATE TABLE tallies (
    tbl text NOT NULL,
    field text NOT NULL,
    value text NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (tbl, field, value)
);

CREATE FUNCTION tally(t text, f text, v text, d bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO tallies (tbl, field, value, n) VALUES (t, f, coalesce(v, ''), d)
    ON CONFLICT (tbl, field, value) DO UPDATE SET n = tallies.n + d
$$;

CREATE FUNCTION tally_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM tally(TG_TABLE_NAME, '*', '', -1);
        PERFORM tally(TG_TABLE_NAME, 'status', OLD.status, -1);
        PERFORM tally(TG_TABLE_NAME, 'sequence', OLD.sequence, -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        PERFORM tally(TG_TABLE_NAME, '*', '', 1);
        PERFORM tally(TG_TABLE_NAME, 'status', NEW.status, 1);
        PERFORM tally(TG_TABLE_NAME, 'sequence', NEW.sequence, 1);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER runs_tally AFTER INSERT OR DELETE ON runs FOR EACH ROW EXECUTE FUNCTION tally_rows();
CREATE TRIGGER runs_tally_change AFTER UPDATE ON runs FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.sequence IS DISTINCT FROM NEW.sequence)
    EXECUTE FUNCTION tally_rows();
CREATE TRIGGER interactions_tally AFTER INSERT OR DELETE ON interactions FOR EACH ROW EXECUTE FUNCTION tally_rows();
CREATE TRIGGER interactions_tally_change AFTER UPDATE ON interactions FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.sequence IS DISTINCT FROM NEW.sequence)
    EXECUTE FUNCTION tally_rows();

INSERT INTO tallies (tbl, field, value, n)
    SELECT 'runs', '*', '', count(*) FROM runs
    UNION ALL SELECT 'runs', 'status', status, count(*) FROM runs GROUP BY status
    UNION ALL SELECT 'runs', 'sequence', sequence, count(*) FROM runs GROUP BY sequence
    UNION ALL SELECT 'interactions', '*', '', count(*) FROM interactions
    UNION ALL SELECT 'interactions', 'status', status, count(*) FROM interactions GROUP BY status
    UNION ALL SELECT 'interactions', 'sequence', coalesce(sequence, ''), count(*) FROM interactions
        GROUP BY coalesce(sequence, '');

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX runs_sequence_text ON runs USING gin (lower(sequence) gin_trgm_ops);
