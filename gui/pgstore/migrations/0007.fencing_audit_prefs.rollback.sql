DROP TABLE preferences;
DROP TABLE audit_head;
DROP TABLE audit_log;
DROP FUNCTION audit_append_only();
DROP TABLE interaction_claims;
DROP TRIGGER runs_stop_requested ON runs;
DROP FUNCTION notice_stop();
ALTER TABLE runs DROP COLUMN stop_request, DROP COLUMN epoch;
