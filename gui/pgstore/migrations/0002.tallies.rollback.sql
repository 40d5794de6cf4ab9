DROP INDEX runs_sequence_text;
DROP TRIGGER interactions_tally_change ON interactions;
DROP TRIGGER interactions_tally ON interactions;
DROP TRIGGER runs_tally_change ON runs;
DROP TRIGGER runs_tally ON runs;
DROP FUNCTION tally_rows();
DROP FUNCTION tally(text, text, text, bigint);
DROP TABLE tallies;
