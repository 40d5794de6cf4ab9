-- depends: 0005.run_notices
-- The tallies are kept once per statement (from its transition tables) instead of once per row, so a
-- batch of thousands of records (an import) changes them in one step, and a save that changes no
-- status or sequence does not touch them at all.

DROP TRIGGER runs_tally ON runs;
DROP TRIGGER runs_tally_change ON runs;
DROP TRIGGER interactions_tally ON interactions;
DROP TRIGGER interactions_tally_change ON interactions;
DROP FUNCTION tally_rows();
DROP FUNCTION tally(text, text, text, bigint);

CREATE FUNCTION tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tallies (tbl, field, value, n)
    SELECT TG_TABLE_NAME, k.f, k.v, count(*)
    FROM new_rows r, LATERAL (VALUES ('*', ''), ('status', r.status), ('sequence', coalesce(r.sequence, ''))) AS k(f, v)
    GROUP BY k.f, k.v
    ON CONFLICT (tbl, field, value) DO UPDATE SET n = tallies.n + EXCLUDED.n;
    RETURN NULL;
END
$$;

CREATE FUNCTION tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tallies (tbl, field, value, n)
    SELECT TG_TABLE_NAME, k.f, k.v, -count(*)
    FROM old_rows r, LATERAL (VALUES ('*', ''), ('status', r.status), ('sequence', coalesce(r.sequence, ''))) AS k(f, v)
    GROUP BY k.f, k.v
    ON CONFLICT (tbl, field, value) DO UPDATE SET n = tallies.n + EXCLUDED.n;
    RETURN NULL;
END
$$;

-- An update moves a row from its old status and sequence to its new ones: the ids join the two tables
-- (the first argument names the id column).
CREATE FUNCTION tally_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO tallies (tbl, field, value, n)
        SELECT %L, k.f, k.v, sum(k.d)
        FROM old_rows o JOIN new_rows r USING (%I),
             LATERAL (VALUES ('status', o.status, -1), ('sequence', coalesce(o.sequence, ''), -1),
                             ('status', r.status, 1), ('sequence', coalesce(r.sequence, ''), 1)) AS k(f, v, d)
        WHERE o.status IS DISTINCT FROM r.status OR o.sequence IS DISTINCT FROM r.sequence
        GROUP BY k.f, k.v
        HAVING sum(k.d) <> 0
        ON CONFLICT (tbl, field, value) DO UPDATE SET n = tallies.n + EXCLUDED.n
    $q$, TG_TABLE_NAME, TG_ARGV[0]);
    RETURN NULL;
END
$$;

CREATE TRIGGER runs_tally_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tally_inserted();
CREATE TRIGGER runs_tally_update AFTER UPDATE ON runs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tally_updated('run_id');
CREATE TRIGGER runs_tally_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tally_deleted();
CREATE TRIGGER interactions_tally_insert AFTER INSERT ON interactions REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tally_inserted();
CREATE TRIGGER interactions_tally_update AFTER UPDATE ON interactions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tally_updated('interaction_id');
CREATE TRIGGER interactions_tally_delete AFTER DELETE ON interactions REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION tally_deleted();
