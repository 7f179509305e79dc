-- The version an --exclude-last export held back: the change sequence of the
-- conversation's last record when it was not sent (0: none). It is at most
-- seq, so the cursor reads "every change up to seq was sent, but held".
-- A single value suffices: an export holds back one record per conversation,
-- and the next export either sends it, holds it again, or finds it changed
-- (then its new sequence is above seq anyway).
ALTER TABLE export_cursors ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
