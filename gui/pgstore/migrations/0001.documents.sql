-- SeqDesk's documents in jsonb, with the fields the pages filter and sort on beside them (indexed).
-- `doc` holds the record; `raw` holds its JSON text instead when jsonb cannot (a NUL or a lone
-- surrogate a tool's output carried). Ids sort as Python sorts them (COLLATE "C": code points).

CREATE TABLE sequences (
    name text COLLATE "C" PRIMARY KEY,
    identity text,
    doc jsonb NOT NULL
);

CREATE TABLE runs (
    run_id text COLLATE "C" PRIMARY KEY,
    status text NOT NULL,
    sequence text COLLATE "C" NOT NULL,
    created_at double precision NOT NULL,
    finished boolean NOT NULL,
    resumed_by text,
    doc jsonb,
    raw text,
    CHECK ((doc IS NULL) <> (raw IS NULL))
);
CREATE INDEX runs_page ON runs (created_at DESC, run_id DESC);
CREATE INDEX runs_status_page ON runs (status, created_at DESC, run_id DESC);
CREATE INDEX runs_sequence_page ON runs (sequence, created_at DESC, run_id DESC);
CREATE INDEX runs_running ON runs (run_id) WHERE NOT finished;
CREATE INDEX runs_id_prefix ON runs (run_id text_pattern_ops);

CREATE TABLE interactions (
    interaction_id text COLLATE "C" PRIMARY KEY,
    status text NOT NULL,
    kind text,
    run_id text COLLATE "C",
    sequence text COLLATE "C",
    tool_name text,
    created_at bigint NOT NULL,
    doc jsonb,
    raw text,
    CHECK ((doc IS NULL) <> (raw IS NULL))
);
CREATE INDEX interactions_page ON interactions (created_at DESC, interaction_id DESC);
CREATE INDEX interactions_status_page ON interactions (status, created_at DESC, interaction_id DESC);
CREATE INDEX interactions_ended_page ON interactions (created_at DESC, interaction_id DESC)
    WHERE status <> 'pending';
CREATE INDEX interactions_run_page ON interactions (run_id, created_at DESC, interaction_id DESC);
CREATE INDEX interactions_sequence_page ON interactions (sequence, created_at DESC, interaction_id DESC);
CREATE INDEX interactions_tool_page ON interactions (tool_name, created_at DESC, interaction_id DESC);
CREATE INDEX interactions_kind_page ON interactions (kind, created_at DESC, interaction_id DESC);

CREATE TABLE approval_modes (
    tool_name text PRIMARY KEY,
    mode text NOT NULL
);

CREATE TABLE approval_rules (
    rule_id text PRIMARY KEY,
    position bigserial,
    doc jsonb NOT NULL
);

CREATE TABLE schedules (
    schedule_id text COLLATE "C" PRIMARY KEY,
    created_at double precision NOT NULL,
    doc jsonb NOT NULL
);

CREATE TABLE mcp_servers (
    name text COLLATE "C" PRIMARY KEY,
    doc jsonb NOT NULL
);

-- Secrets are Fernet tokens made with SEQDESK_SECRET_KEY, which is never stored here; `key_check`
-- holds one token of a known text, so a wrong key is found at start, before anything is written.
CREATE TABLE secrets (
    key text PRIMARY KEY,
    token text NOT NULL
);
CREATE TABLE key_check (
    id int PRIMARY KEY CHECK (id = 1),
    token text NOT NULL
);
