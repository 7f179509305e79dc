-- Per-conversation figures kept up to date by the transactions that change
-- them, so that list costs O(conversations), not O(records).
-- record_count: the records stored; shape: bumped by every change other than
-- an append or a merge into the last record (a summary, rewind, prune,
-- annotation), which is what lets a cached token count of the LLM view be
-- brought up to date from the records changed since (see view_tokens).
ALTER TABLE conversations ADD COLUMN record_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN shape INTEGER NOT NULL DEFAULT 0;
UPDATE conversations SET record_count = (SELECT count(*) FROM records r WHERE r.conversation = conversations.id);

-- The tokens of a conversation's LLM view per tokenizer, as of change
-- sequence seq (every record changed since has seq >= it) and the
-- conversation's (created, shape) then. Counting tokens is slow next to an
-- insert, so appends leave it alone: the next list counts only the records
-- changed since, minus the old version of last_id (the only record a merge
-- updates), and stores the result. Filled by the first list after this
-- migration; a row whose created or shape no longer match is recounted.
CREATE TABLE view_tokens (
    conversation TEXT    NOT NULL,
    tokenizer    TEXT    NOT NULL,
    created      INTEGER NOT NULL,
    shape        INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    tokens       INTEGER NOT NULL,
    last_id      TEXT    NOT NULL, -- the last non-system record then ('' if none)
    last_tokens  INTEGER NOT NULL, -- its tokens then
    PRIMARY KEY (conversation, tokenizer)
) WITHOUT ROWID;

CREATE TRIGGER view_tokens_clear AFTER DELETE ON conversations
BEGIN
    DELETE FROM view_tokens WHERE conversation = OLD.id;
END;
