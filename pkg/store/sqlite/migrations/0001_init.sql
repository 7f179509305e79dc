-- Conversations carry the counters every write needs, so an append reads one
-- row instead of scanning its records.
CREATE TABLE conversations (
    id       TEXT PRIMARY KEY,
    created  INTEGER NOT NULL, -- ms since the epoch
    updated  INTEGER NOT NULL, -- ms since the epoch: last write
    next_pos INTEGER NOT NULL DEFAULT 1, -- transcript position of the next appended record
    next_seq INTEGER NOT NULL DEFAULT 1  -- change sequence of the next insert or update
) WITHOUT ROWID;

-- One row per record. Transcript order is (pos, sub): appends take a new pos,
-- a summary placed after a record takes that record's pos and a higher sub.
-- seq is the change sequence of the last insert or update: export reads it.
CREATE TABLE records (
    conversation TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    pos          INTEGER NOT NULL,
    sub          INTEGER NOT NULL DEFAULT 0,
    role         TEXT    NOT NULL,
    created      INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    body         TEXT    NOT NULL, -- the canonical JSON record
    PRIMARY KEY (conversation, id)
);
CREATE UNIQUE INDEX records_order ON records (conversation, pos, sub);
CREATE INDEX records_seq ON records (conversation, seq);

-- Ids of incoming records that were merged into another record, so that a
-- retry carrying the same id stays a no-op.
CREATE TABLE absorbed (
    conversation TEXT NOT NULL,
    id           TEXT NOT NULL,
    target       TEXT NOT NULL,
    PRIMARY KEY (conversation, id)
) WITHOUT ROWID;

-- Export cursors: the change sequence already sent to a sink.
CREATE TABLE export_cursors (
    conversation TEXT    NOT NULL,
    sink         TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    updated      INTEGER NOT NULL,
    PRIMARY KEY (conversation, sink)
) WITHOUT ROWID;

-- System prompts and summaries are few; a partial index finds the latest of
-- each without walking a long transcript.
CREATE INDEX records_special ON records (conversation, role, pos, sub) WHERE role IN ('system', 'summary');
