DROP TRIGGER interactions_ended ON interactions;
DROP TRIGGER interactions_asked ON interactions;
DROP FUNCTION notice_interaction();
