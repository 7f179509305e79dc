-- Per-conversation figures kept up to date by the transactions that change
-- them, so that list costs O(conversations): see the SQLite migration 0006
-- for what each column means.
ALTER TABLE conversations ADD COLUMN record_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN shape BIGINT NOT NULL DEFAULT 0;
UPDATE conversations c SET record_count = (SELECT count(*) FROM records r WHERE r.conversation = c.id);

CREATE TABLE view_tokens (
    conversation TEXT COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    tokenizer    TEXT   NOT NULL,
    created      BIGINT NOT NULL,
    shape        BIGINT NOT NULL,
    seq          BIGINT NOT NULL,
    tokens       BIGINT NOT NULL,
    last_id      TEXT COLLATE "C" NOT NULL,
    last_tokens  BIGINT NOT NULL,
    PRIMARY KEY (conversation, tokenizer)
);
