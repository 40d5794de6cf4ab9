DROP TRIGGER interactions_asked ON interactions;
CREATE TRIGGER interactions_asked AFTER INSERT ON interactions FOR EACH ROW EXECUTE FUNCTION notice_interaction();
DROP TRIGGER runs_finished ON runs;
DROP TRIGGER runs_started ON runs;
DROP FUNCTION notice_run();
