-- How far convo import read each source into each conversation: see the
-- SQLite migration 0009 for what each column means.
CREATE TABLE import_cursors (
    source       TEXT COLLATE "C" NOT NULL,
    conversation TEXT COLLATE "C" NOT NULL,
    tool         TEXT    NOT NULL,
    size         BIGINT  NOT NULL,
    mtime        BIGINT  NOT NULL,
    entries      BIGINT  NOT NULL,
    last_entry   TEXT    NOT NULL,
    head         TEXT    NOT NULL,
    updated      BIGINT  NOT NULL,
    PRIMARY KEY (source, conversation)
);
CREATE INDEX import_cursors_conversation ON import_cursors (conversation);
