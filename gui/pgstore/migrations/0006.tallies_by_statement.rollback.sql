DROP TRIGGER interactions_tally_delete ON interactions;
DROP TRIGGER interactions_tally_update ON interactions;
DROP TRIGGER interactions_tally_insert ON interactions;
DROP TRIGGER runs_tally_delete ON runs;
DROP TRIGGER runs_tally_update ON runs;
DROP TRIGGER runs_tally_insert ON runs;
DROP FUNCTION tally_updated();
DROP FUNCTION tally_deleted();
DROP FUNCTION tally_inserted();

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
