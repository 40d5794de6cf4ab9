-- depends: 0008.people
-- Wrong passwords counted across every process of a team (issue 26): one row per wrong password and
-- key (a name, an address) within the last minute, and the keys slowed until a time (epoch seconds).

CREATE TABLE sign_in_failures (
    key text NOT NULL,
    at double precision NOT NULL
);
CREATE INDEX sign_in_failures_key ON sign_in_failures (key, at);
CREATE INDEX sign_in_failures_at ON sign_in_failures (at);

CREATE TABLE sign_in_slow (
    key text PRIMARY KEY,
    until double precision NOT NULL
);
