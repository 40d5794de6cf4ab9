DROP TRIGGER audit_append_only ON audit;
DROP FUNCTION audit_append_only();
DROP TABLE audit;
