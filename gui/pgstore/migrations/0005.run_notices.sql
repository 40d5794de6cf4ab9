-- depends: 0004.leases
-- Every process hears of a run started or finished by another (LISTEN seqdesk_runs; payload as for
-- requests: the writer's application_name, a space, the run's id). Records imported whole (finished
-- runs, ended requests) are no news: only a run that starts running, a request that starts pending,
-- and their endings are told.

CREATE FUNCTION notice_run() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('seqdesk_runs', current_setting('application_name') || ' ' || NEW.run_id);
    RETURN NULL;
END
$$;

CREATE TRIGGER runs_started AFTER INSERT ON runs FOR EACH ROW WHEN (NOT NEW.finished)
    EXECUTE FUNCTION notice_run();
CREATE TRIGGER runs_finished AFTER UPDATE ON runs FOR EACH ROW WHEN (NEW.finished AND NOT OLD.finished)
    EXECUTE FUNCTION notice_run();

DROP TRIGGER interactions_asked ON interactions;
CREATE TRIGGER interactions_asked AFTER INSERT ON interactions FOR EACH ROW WHEN (NEW.status = 'pending')
    EXECUTE FUNCTION notice_interaction();
