DROP TABLE sessions;
DROP TABLE invites;
DROP TABLE person_tokens;
DROP TABLE people;
