-- When a claim's last holder finished its work (ms; 0: never), so that
-- runners sharing one summarize --all pass over what another already did
-- since they started, without reading it again.
ALTER TABLE claims ADD COLUMN finished INTEGER NOT NULL DEFAULT 0;
