-- Where the next import of a source may start reading: see the SQLite
-- migration 0012.
ALTER TABLE import_cursors ADD COLUMN resume TEXT NOT NULL DEFAULT '';
