-- A conversation's last activity is its newest record's creation time, one
-- meaning for list (shown and sorted by it) and prune --older-than, kept by
-- every transaction that writes records (append, import, summarize, rewind,
-- prune, annotate, fork, copy), so that list reads it with the other
-- figures and scans no record. A conversation without records has its own
-- creation time.
ALTER TABLE conversations ADD COLUMN last_created INTEGER NOT NULL DEFAULT 0;
UPDATE conversations SET last_created = coalesce((SELECT max(created) FROM records r WHERE r.conversation = conversations.id), created);
