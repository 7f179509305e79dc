-- summarize --batch-out: each request written and not yet applied, so that
-- --batch-in needs nothing but the result file. custom_id is the request's
-- (it names the API, the conversation's hash, read_seq and the covered ids'
-- hash); read_seq the store's change sequence when the conversation was
-- read; first_id, last_id and covered the span the summary will stand for;
-- options the summarize options that shape the summary (JSON, summarize's
-- to read); created ms since the epoch. A row goes when a result for it is
-- read, 30 days after created, or with its conversation.
CREATE TABLE batch_pending (
    custom_id    TEXT PRIMARY KEY,
    conversation TEXT    NOT NULL,
    read_seq     INTEGER NOT NULL,
    first_id     TEXT    NOT NULL,
    last_id      TEXT    NOT NULL,
    covered      INTEGER NOT NULL,
    summarizer   TEXT    NOT NULL,
    model        TEXT    NOT NULL,
    options      TEXT    NOT NULL,
    created      INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX batch_pending_conversation ON batch_pending (conversation);
CREATE INDEX batch_pending_created ON batch_pending (created);

CREATE TRIGGER batch_pending_clear AFTER DELETE ON conversations
BEGIN
    DELETE FROM batch_pending WHERE conversation = OLD.id;
END;
