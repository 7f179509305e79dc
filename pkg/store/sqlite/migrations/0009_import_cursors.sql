-- How far convo import read each source into each conversation: the file
-- (its size and mtime, nanoseconds, when read; an unchanged file is skipped
-- unread), the entries imported along its active branch and the source's
-- id of the last one (a moved branch or a rewrite shows there), and a hash
-- of the file's head (a file rewritten in place shows there). It moves in
-- the transaction that appends the records it covers.
CREATE TABLE import_cursors (
    source       TEXT    NOT NULL,
    conversation TEXT    NOT NULL,
    tool         TEXT    NOT NULL,
    size         INTEGER NOT NULL,
    mtime        INTEGER NOT NULL,
    entries      INTEGER NOT NULL,
    last_entry   TEXT    NOT NULL,
    head         TEXT    NOT NULL,
    updated      INTEGER NOT NULL,
    PRIMARY KEY (source, conversation)
) WITHOUT ROWID;
CREATE INDEX import_cursors_conversation ON import_cursors (conversation);
