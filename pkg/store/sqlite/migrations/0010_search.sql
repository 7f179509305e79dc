-- Full-text search (docs/search.md). The tokenizer is Go's (pkg/search),
-- the same for every backend: the engine writes each record's entry into
-- records_fts as its terms, space-separated, plus its role and conversation
-- as terms no word makes (#r ROLE, #c HEX: a word never starts with #), so
-- that -c and --role narrow inside the index. FTS5 only splits at the
-- spaces: its ascii tokenizer with every character a term may hold made a
-- token character. The Go step of this migration indexes every stored
-- record, in the migration's transaction.
--
-- A record's rowid is its docid: its creation time in ms shifted left 20
-- bits, plus its rank among the records stored in that millisecond; its
-- entry's rowid is the docid negated. The index so walks matches newest
-- first in its own (forward, lazy) order, and --since and --until are
-- rowid ranges.
--
-- contentless: the index keeps no copy of the text; contentless_delete
-- deletes by rowid, which the trigger below does with every deleted record
-- (clear, prune, rewind, summaries deleting what they cover); detail=none:
-- no positions (phrases are checked in Go), the smallest index and the
-- cheapest writes.
CREATE VIRTUAL TABLE records_fts USING fts5(
    terms, content = '', contentless_delete = 1, detail = none,
    tokenize = 'ascii tokenchars ''.-_+@/:\~%#=?&'''
);

CREATE TRIGGER records_fts_delete AFTER DELETE ON records
BEGIN
    DELETE FROM records_fts WHERE rowid = -old.rowid;
END;
