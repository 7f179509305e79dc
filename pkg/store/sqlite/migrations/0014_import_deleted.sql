-- Records of imported conversations that convo deleted (summarize
-- --delete-originals, rewind, prune, clear): their ids, which import
-- derives from the source (tool, session, entry), so that the same entry
-- read again, from whatever path, is not imported again. A row is about 70
-- bytes with its index; import --again forgets a conversation's.
CREATE TABLE import_deleted (
    id           TEXT    NOT NULL PRIMARY KEY,
    conversation TEXT    NOT NULL,
    deleted      INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX import_deleted_conversation ON import_deleted (conversation);

-- How many times records of the conversation were deleted (rewind, trim,
-- summarize --delete-originals): an import whose next chunk finds it
-- moved since its last one stops (a deletion came between them).
ALTER TABLE conversations ADD COLUMN deletions INTEGER NOT NULL DEFAULT 0;
