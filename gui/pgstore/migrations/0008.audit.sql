-- depends: 0007.people
-- The record of decisions for a team (issue 26, item 5, on PostgreSQL): one chain, append-only. Each
-- row is an entry's document as the exact text its hash was made over; a trigger refuses changes.

CREATE TABLE audit (
    position bigint PRIMARY KEY,
    doc text NOT NULL
);

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the record of decisions is append-only: entries are never changed or removed';
END
$$;

CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION audit_append_only();
