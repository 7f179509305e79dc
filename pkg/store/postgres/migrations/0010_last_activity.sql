-- A conversation's last activity: its newest record's creation time, kept
-- by every transaction that writes records (see the SQLite migration 0015).
ALTER TABLE conversations ADD COLUMN last_created BIGINT NOT NULL DEFAULT 0;
UPDATE conversations c SET last_created = coalesce((SELECT max(created) FROM records r WHERE r.conversation = c.id), c.created);
