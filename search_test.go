package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A store an older convo made has no search index: search, which only
// reads, refuses it (exit 1) pointing at convo migrate and changes nothing;
// migrate indexes every record already stored, and search finds them.
func TestSearchOnOutdatedStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	in := `{"role":"user","content":"Where is ORD-55821?"}` + "\n" + `{"role":"assistant","content":"It left the depot."}` + "\n"
	if _, errOut, code := run(t, in, "--db", db, "append", "-q", "-c", "old"); code != 0 {
		t.Fatalf("append: exit %d: %s", code, errOut)
	}
	// Back to schema 9, as the release before search left stores.
	sqliteExec(t, db, `DROP TABLE import_deleted`, `ALTER TABLE conversations DROP COLUMN deletions`, `ALTER TABLE conversations DROP COLUMN last_created`, `DROP TABLE search_cursor`, `DROP TABLE search_pending`, `DROP TABLE records_fts`, `ALTER TABLE import_cursors DROP COLUMN resume`, `PRAGMA user_version = 9`)
	before := files(t, dir)
	_, errOut, code := run(t, "", "--db", db, "search", "55821")
	if code != 1 || !strings.Contains(errOut, "convo migrate") {
		t.Fatalf("search on an older store: exit %d, %q; want 1 pointing at convo migrate", code, errOut)
	}
	if files(t, dir)["convo.db"] != before["convo.db"] {
		t.Fatal("search changed the store")
	}
	if _, errOut, code := run(t, "", "--db", db, "migrate"); code != 0 || !strings.Contains(errOut, "up to date") {
		t.Fatalf("migrate: exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, "", "--db", db, "search", "55821", "--json")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"snippet":"Where is ORD-55821?"`) {
		t.Fatalf("search after migrate: exit %d, %q, %s", code, out, errOut)
	}
	if _, _, code := run(t, "", "--db", filepath.Join(dir, "none.db"), "migrate"); code != 4 {
		t.Errorf("migrate of no store: exit %d, want 4", code)
	}
	if out, _, code := run(t, "", "--db", filepath.Join(dir, "none.db"), "search", "x"); code != 0 || out != "" {
		t.Errorf("search of no store: exit %d, %q; want 0, nothing", code, out)
	}
}

// convo index brings the search index up to date (what the first search
// after writes does); a store up to date has nothing to index, and no
// store is exit 4.
func TestIndexCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	in := `{"role":"user","content":"Where is ORD-55821?"}` + "\n" + `{"role":"assistant","content":"It left the depot."}` + "\n"
	if _, errOut, code := run(t, in, "--db", db, "append", "-q", "-c", "c"); code != 0 {
		t.Fatalf("append: exit %d: %s", code, errOut)
	}
	if out, errOut, code := run(t, "", "--db", db, "index"); code != 0 || out != "" || !strings.Contains(errOut, "indexed 2 records") {
		t.Fatalf("index: exit %d, %q, %q; want 0, nothing on stdout, 2 records indexed", code, out, errOut)
	}
	if _, errOut, code := run(t, "", "--db", db, "index"); code != 0 || !strings.Contains(errOut, "indexed 0 records") {
		t.Fatalf("index again: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "--db", db, "index", "-q"); code != 0 || errOut != "" {
		t.Fatalf("index -q: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, "y\n", "--db", db, "append", "-q", "-c", "c", "--role", "user", "depot again"); code != 0 {
		t.Fatalf("append: exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, "", "--db", db, "search", "depot", "--json")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Fatalf("search after an append: exit %d, %q, %s", code, out, errOut)
	}
	if _, _, code := run(t, "", "--db", filepath.Join(dir, "none.db"), "index"); code != 4 {
		t.Errorf("index of no store: exit %d, want 4", code)
	}
}
