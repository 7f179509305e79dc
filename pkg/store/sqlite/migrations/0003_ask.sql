-- ask --rate: one row per limiter key (provider/model), shared by every
-- process on the store. next is the start of the next free request slot in
-- microseconds since the epoch; a request takes max(now, next) and moves next
-- one interval on, in one write transaction (see ratelimit.go).
CREATE TABLE rate_limits (
    key  TEXT PRIMARY KEY,
    next INTEGER NOT NULL
) WITHOUT ROWID;

-- ask --set-schema: the JSON Schema every answer of a conversation must
-- match unless the call gives its own (--schema) or none (--no-schema).
CREATE TABLE conversation_schemas (
    conversation TEXT PRIMARY KEY,
    name         TEXT    NOT NULL, -- what the provider is told the schema is called
    body         TEXT    NOT NULL, -- the schema document, as given
    updated      INTEGER NOT NULL  -- ms since the epoch
) WITHOUT ROWID;

-- clear deletes a conversation and everything stored for it: its schema too.
CREATE TRIGGER conversation_schemas_clear AFTER DELETE ON conversations
BEGIN
    DELETE FROM conversation_schemas WHERE conversation = OLD.id;
END;
