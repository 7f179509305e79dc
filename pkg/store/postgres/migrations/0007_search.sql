-- Full-text search (docs/search.md), as in SQLite's 0008_search: the terms
-- are pkg/search's, the same Go tokenizer's, stored as a tsvector of those
-- exact lexemes (PostgreSQL's own parsers would split ORD-55821 apart), no
-- positions (phrases are checked in Go), under a GIN index. NULL: not
-- indexed yet; the Go step of this migration fills every row.
--
-- docid orders matches newest first: the creation time in ms shifted left
-- 20 bits, plus a sequence (mod 2^20) so that records of one millisecond
-- keep the order they were stored in. Writers on several machines take
-- sequence values without waiting for each other; two records of one
-- millisecond a multiple of 2^20 values apart may share a docid, which the
-- search's paging allows for (the index is not unique).
CREATE SEQUENCE records_docid;
ALTER TABLE records ADD COLUMN docid BIGINT;
ALTER TABLE records ADD COLUMN terms tsvector;
CREATE INDEX records_docid_order ON records (docid);
CREATE INDEX records_terms ON records USING gin (terms);
