-- summarize --all run by several processes at once: a conversation is
-- worked on by the one owner holding an unexpired claim (ms since the
-- epoch); a killed worker's claims expire and others take them.
CREATE TABLE claims (
    conversation TEXT PRIMARY KEY,
    owner        TEXT    NOT NULL,
    expires      INTEGER NOT NULL
) WITHOUT ROWID;
