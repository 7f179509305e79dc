-- summarize --batch-out's requests not yet applied: see the SQLite
-- migration 0008 for what each column means.
CREATE TABLE batch_pending (
    custom_id    TEXT COLLATE "C" PRIMARY KEY,
    conversation TEXT COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    read_seq     BIGINT NOT NULL,
    first_id     TEXT COLLATE "C" NOT NULL,
    last_id      TEXT COLLATE "C" NOT NULL,
    covered      BIGINT NOT NULL,
    summarizer   TEXT   NOT NULL,
    model        TEXT   NOT NULL,
    options      TEXT   NOT NULL,
    created      BIGINT NOT NULL
);
CREATE INDEX batch_pending_conversation ON batch_pending (conversation);
CREATE INDEX batch_pending_created ON batch_pending (created);
