-- The log files export --to file:// appends to: see the SQLite migration
-- 0007 for what each column means.
CREATE TABLE export_files (
    host    TEXT COLLATE "C" NOT NULL,
    path    TEXT COLLATE "C" NOT NULL,
    dev     BIGINT  NOT NULL,
    inode   BIGINT  NOT NULL,
    size    BIGINT  NOT NULL,
    writing INTEGER NOT NULL,
    updated BIGINT  NOT NULL,
    PRIMARY KEY (host, path)
);
