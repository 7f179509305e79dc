-- The search index again, cheaper to write (docs/search.md, "What the index
-- costs a write"): 0010's contentless_delete kept a size row for every
-- record so that an entry could be deleted by its rowid alone; this table
-- keeps none (columnsize = 0), and an entry is deleted with the text it
-- was written with, made again from the record's body by the function
-- convo_index_text, which convo registers on the connections it opens.
-- convo deletes the entries before their records, newest first (a trigger
-- would delete them in the order the records go, and FTS5 writes a
-- segment each time a key is not above the last). The Go step of this
-- migration writes the entry of every stored record again.
--
-- hashsize: FTS5 holds new entries in memory up to this before it writes a
-- segment; 8 MiB is well above what one statement of convo's writes (see
-- maxHeldEntries), so each makes one segment, not several. automerge: a
-- level's segments are merged when 16 of them are there, not 4, which
-- rewrites each entry half as often while a bulk append writes; a search
-- reads the few more segments at no cost it shows (docs/search.md).
DROP TRIGGER records_fts_delete;
DROP TABLE records_fts;

CREATE VIRTUAL TABLE records_fts USING fts5(
    terms, content = '', columnsize = 0, detail = none,
    tokenize = 'ascii tokenchars ''.-_+@/:\~%#=?&'''
);
INSERT INTO records_fts (records_fts, rank) VALUES ('hashsize', 8388608);
INSERT INTO records_fts (records_fts, rank) VALUES ('automerge', 16);
