-- Records of imported conversations that convo deleted: see the SQLite
-- migration 0014.
CREATE TABLE import_deleted (
    id           TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    conversation TEXT COLLATE "C" NOT NULL,
    deleted      BIGINT NOT NULL
);
CREATE INDEX import_deleted_conversation ON import_deleted (conversation);

-- See the SQLite migration 0014.
ALTER TABLE conversations ADD COLUMN deletions BIGINT NOT NULL DEFAULT 0;
