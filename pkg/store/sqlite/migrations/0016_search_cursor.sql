-- The search index catches up instead of being written by every write
-- (docs/search.md, "How"). search_cursor.indexed is
-- the highest docid of the in-order range (from 2^62) the index holds:
-- every record above it is not indexed yet. search_pending holds the
-- other records not indexed yet: those with slot docids (older records,
-- written out of order) and indexed records whose text changed (their old
-- entry is deleted when they change). Every record stored now is indexed.
CREATE TABLE search_cursor (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    indexed INTEGER NOT NULL
);
INSERT INTO search_cursor (one, indexed)
    SELECT 1, coalesce(max(rowid), 4611686018427387903) FROM records WHERE rowid >= 4611686018427387904;
CREATE TABLE search_pending (docid INTEGER PRIMARY KEY);
