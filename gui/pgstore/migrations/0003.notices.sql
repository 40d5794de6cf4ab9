-- depends: 0002.tallies
-- Every process on the database hears of a request asked or ended by any other (LISTEN
-- seqdesk_interactions): the payload is the writer's application_name, a space, the request's id.

CREATE FUNCTION notice_interaction() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('seqdesk_interactions', current_setting('application_name') || ' ' || NEW.interaction_id);
    RETURN NULL;
END
$$;

CREATE TRIGGER interactions_asked AFTER INSERT ON interactions FOR EACH ROW EXECUTE FUNCTION notice_interaction();
CREATE TRIGGER interactions_ended AFTER UPDATE ON interactions FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION notice_interaction();
