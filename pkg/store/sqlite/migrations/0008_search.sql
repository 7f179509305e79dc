-- Full-text search (docs/search.md). The tokenizer is Go's (pkg/search),
-- the same for every backend: terms holds a record's distinct search terms
-- as it made them, space-separated (NULL: not indexed yet; the Go step of
-- this migration fills every row, and every write sets it), and FTS5 only
-- splits them at the spaces: the ascii tokenizer with every character a
-- term may hold made a token character.
--
-- A record's rowid is its docid: its creation time in ms shifted left 20
-- bits, plus its rank among the records stored in that millisecond. The
-- index so walks matches newest first from its own order, and --since and
-- --until are rowid ranges.
--
-- contentless: the index keeps no copy of the text; contentless_delete
-- deletes by rowid; detail=none: no positions (phrases are checked in Go),
-- the smallest index and the cheapest writes. Each row also carries two
-- terms no word makes (a word never starts with #): its role and its
-- conversation, so that -c and --role narrow inside the index.
ALTER TABLE records ADD COLUMN terms TEXT;

CREATE VIRTUAL TABLE records_fts USING fts5(
    terms, content = '', contentless_delete = 1, detail = none,
    tokenize = 'ascii tokenchars ''.-_+@/:\~%#=?&'''
);

CREATE TRIGGER records_fts_insert AFTER INSERT ON records WHEN new.terms IS NOT NULL
BEGIN
    INSERT INTO records_fts (rowid, terms)
    VALUES (new.rowid, new.terms || ' #r' || new.role || ' #c' || hex(new.conversation));
END;

CREATE TRIGGER records_fts_delete AFTER DELETE ON records
BEGIN
    DELETE FROM records_fts WHERE rowid = old.rowid;
END;

-- A merge changes terms; an annotation that moves a record's creation time
-- moves its rowid (and sets terms to itself, so that this fires).
CREATE TRIGGER records_fts_update AFTER UPDATE OF terms ON records
BEGIN
    DELETE FROM records_fts WHERE rowid = old.rowid;
    INSERT INTO records_fts (rowid, terms)
    SELECT new.rowid, new.terms || ' #r' || new.role || ' #c' || hex(new.conversation)
    WHERE new.terms IS NOT NULL;
END;
