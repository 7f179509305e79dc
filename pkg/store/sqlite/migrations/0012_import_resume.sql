-- Where the next import of a source may start reading, instead of the
-- file's start: the importer's own JSON object (a byte offset, a hash of
-- the bytes before it, what its format needs to go on); '' for the start.
ALTER TABLE import_cursors ADD COLUMN resume TEXT NOT NULL DEFAULT '';
