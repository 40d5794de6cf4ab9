-- depends: 0007.fencing_audit_prefs
-- The people of a team server (issue 26): each person, their personal tokens, invites and sessions.
-- Secrets are kept as their SHA-256 (`digest`), passwords as argon2 strings. A removed person's row
-- stays (removed_at), so their tokens are told apart from unknown ones; one name at a time is in use.

CREATE TABLE people (
    person_id text PRIMARY KEY,
    name text NOT NULL,
    roles text[] NOT NULL DEFAULT '{}',
    password_hash text,
    created_at bigint NOT NULL,
    removed_at bigint
);
CREATE UNIQUE INDEX people_name ON people (name) WHERE removed_at IS NULL;

CREATE TABLE person_tokens (
    digest text PRIMARY KEY,
    token_id text NOT NULL,
    person_id text NOT NULL REFERENCES people (person_id),
    label text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint
);
CREATE INDEX person_tokens_person ON person_tokens (person_id);

CREATE TABLE invites (
    digest text PRIMARY KEY,
    person_id text NOT NULL REFERENCES people (person_id),
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint
);
CREATE INDEX invites_person ON invites (person_id);

CREATE TABLE sessions (
    digest text PRIMARY KEY,
    person_id text NOT NULL REFERENCES people (person_id),
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);
CREATE INDEX sessions_person ON sessions (person_id);
