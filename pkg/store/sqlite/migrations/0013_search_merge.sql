-- The search index merges a level's segments when 64 of them are there,
-- not 16 (docs/search.md, "What the index costs a write"): each entry is
-- rewritten fewer times over a store's life, and a bulk append of a few
-- hundred thousand records merges nothing. A search reads the few more
-- segments of a word at no cost it shows. crisismerge, the count at which
-- FTS5 merges at once rather than bit by bit, goes up with it (it must not
-- be below automerge, or it merges first).
INSERT INTO records_fts (records_fts, rank) VALUES ('automerge', 64);
INSERT INTO records_fts (records_fts, rank) VALUES ('crisismerge', 64);
