-- The log files export --to file:// appends to, per host and path: the
-- file (dev, inode; their bits) and its length. writing = 1: an export was
-- appending past size and has not completed, so a torn last line past size
-- is its own, which the next export may cut off; writing = 0: size is where
-- the last export to complete left the file. A torn line anywhere else is
-- not convo's, and never cut.
CREATE TABLE export_files (
    host    TEXT    NOT NULL,
    path    TEXT    NOT NULL,
    dev     INTEGER NOT NULL,
    inode   INTEGER NOT NULL,
    size    INTEGER NOT NULL,
    writing INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    PRIMARY KEY (host, path)
) WITHOUT ROWID;
