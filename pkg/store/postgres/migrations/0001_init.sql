-- The SQLite schema (pkg/store/sqlite/migrations 0001-0004) in PostgreSQL's
-- terms: BIGINT times and counters (INTEGER is 32-bit here), ids in byte
-- order (COLLATE "C") so listing and prefix completion order them as SQLite
-- does, and ON DELETE CASCADE where SQLite uses a trigger.

-- Conversations carry the counters every write needs; a write locks its
-- conversation's row (SELECT ... FOR UPDATE) before reading them.
CREATE TABLE conversations (
    id       TEXT COLLATE "C" PRIMARY KEY,
    created  BIGINT NOT NULL, -- ms since the epoch
    updated  BIGINT NOT NULL, -- ms since the epoch: last write
    next_pos BIGINT NOT NULL DEFAULT 1, -- transcript position of the next appended record
    next_seq BIGINT NOT NULL DEFAULT 1  -- change sequence of the next insert or update
);

-- One row per record; transcript order is (pos, sub), seq the change
-- sequence of the last insert or update, body the canonical JSON record.
CREATE TABLE records (
    conversation TEXT COLLATE "C" NOT NULL,
    id           TEXT COLLATE "C" NOT NULL,
    pos          BIGINT NOT NULL,
    sub          BIGINT NOT NULL DEFAULT 0,
    role         TEXT   NOT NULL,
    created      BIGINT NOT NULL,
    seq          BIGINT NOT NULL,
    body         TEXT   NOT NULL,
    PRIMARY KEY (conversation, id)
);
CREATE UNIQUE INDEX records_order ON records (conversation, pos, sub);
CREATE INDEX records_seq ON records (conversation, seq);
CREATE INDEX records_special ON records (conversation, role, pos, sub) WHERE role IN ('system', 'summary');

-- Ids of incoming records merged into another record.
CREATE TABLE absorbed (
    conversation TEXT COLLATE "C" NOT NULL,
    id           TEXT COLLATE "C" NOT NULL,
    target       TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (conversation, id)
);

-- Export cursors: the change sequence already sent to a sink, and the one
-- an --exclude-last export held back (0: none).
CREATE TABLE export_cursors (
    conversation TEXT COLLATE "C" NOT NULL,
    sink         TEXT COLLATE "C" NOT NULL,
    seq          BIGINT NOT NULL,
    updated      BIGINT NOT NULL,
    held         BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (conversation, sink)
);

-- Rate limiters shared by every process on the store: the next free slot,
-- in microseconds since the epoch.
CREATE TABLE rate_limits (
    key  TEXT PRIMARY KEY,
    next BIGINT NOT NULL
);

-- ask --set-schema, deleted with its conversation.
CREATE TABLE conversation_schemas (
    conversation TEXT COLLATE "C" PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
    name         TEXT   NOT NULL,
    body         TEXT   NOT NULL,
    updated      BIGINT NOT NULL
);

-- summarize --all claims: one owner per conversation until expires (ms).
CREATE TABLE claims (
    conversation TEXT COLLATE "C" PRIMARY KEY,
    owner        TEXT   NOT NULL,
    expires      BIGINT NOT NULL
);
