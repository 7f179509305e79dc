package sqlite

// Issue 27 (Hardening II): what opening a SQLite store may do to the file.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

var opens = map[string]func(context.Context, string) (*sqlstore.Store, error){
	"Open": Open, "OpenExisting": OpenExisting, "OpenRead": OpenRead,
}

// makeDB runs stmts on a new SQLite file at path in rollback-journal mode,
// as most programs leave theirs.
func makeDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// dirState is every file of dir with its bytes.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Another program's database, or a file that is none, is refused by every
// open, store.ErrNotAStore naming what it holds, and left byte for byte as
// it was: no table added, no WAL switch, no -wal or -shm file.
func TestForeignFileRefused(t *testing.T) {
	for _, tt := range []struct {
		name  string
		make  func(path string)
		names string
	}{
		{"tables", func(p string) {
			makeDB(t, p, `CREATE TABLE photos (id INTEGER PRIMARY KEY)`, `CREATE TABLE albums (id INTEGER)`, `INSERT INTO photos VALUES (1)`)
		}, "albums, photos"},
		{"application id", func(p string) { makeDB(t, p, `PRAGMA application_id = 42`) }, "application_id is 0x0000002a"},
		{"convo's tables and another's", func(p string) {
			makeDB(t, p, `CREATE TABLE conversations (id TEXT)`, `CREATE TABLE records (id TEXT)`, `CREATE TABLE invoices (id TEXT)`)
		}, "invoices"},
		{"not sqlite", func(p string) { os.WriteFile(p, []byte("just some notes\n"), 0o600) }, "not a SQLite database"},
		{"empty, another's version", func(p string) { makeDB(t, p, `PRAGMA user_version = 3`) }, "user_version 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "theirs.db")
			tt.make(path)
			before := dirState(t, dir)
			for name, open := range opens {
				s, err := open(context.Background(), path)
				if err == nil {
					s.Close()
				}
				if !errors.Is(err, store.ErrNotAStore) || !strings.Contains(err.Error(), tt.names) {
					t.Errorf("%s: %v, want ErrNotAStore naming %q", name, err, tt.names)
				}
				if after := dirState(t, dir); !sameState(before, after) {
					t.Fatalf("%s changed the directory: %d files before, %d after", name, len(before), len(after))
				}
			}
		})
	}
}

func appID(t *testing.T, path string) uint32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 100 {
		t.Fatalf("read %s: %v (%d bytes)", path, err, len(b))
	}
	return binary.BigEndian.Uint32(b[68:72])
}

// A new store carries ApplicationID; an empty file and an empty database
// are no store to a command that stores nothing, and become stores when
// something is stored; a store made before the mark is known by its tables, read
// as it is, and marked by the next open to write.
func TestStoresMarked(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.db")
	s, err := Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := appID(t, fresh); got != ApplicationID {
		t.Fatalf("a new store's application_id: %#x", got)
	}

	emptyFile := filepath.Join(dir, "empty-file.db")
	os.WriteFile(emptyFile, nil, 0o600)
	emptyDB := filepath.Join(dir, "empty-db.db")
	makeDB(t, emptyDB, `CREATE TABLE t (a)`, `DROP TABLE t`)
	for _, p := range []string{emptyFile, emptyDB} {
		before, _ := os.ReadFile(p)
		for _, open := range []func(context.Context, string) (*sqlstore.Store, error){OpenRead, OpenExisting} {
			if _, err := open(ctx, p); !errors.Is(err, store.ErrNoStore) {
				t.Fatalf("%s opened to read or change: %v, want ErrNoStore", filepath.Base(p), err)
			}
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			t.Fatalf("%s changed by a command that stores nothing", filepath.Base(p))
		}
		s, err := Open(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		s.Close()
		if got := appID(t, p); got != ApplicationID {
			t.Fatalf("%s: application_id %#x", filepath.Base(p), got)
		}
	}

	// A store from before the mark.
	makeDB(t, fresh, `PRAGMA application_id = 0`)
	if got := appID(t, fresh); got != 0 {
		t.Fatalf("unmarking failed: %#x", got)
	}
	s, err = OpenRead(ctx, fresh)
	if err != nil {
		t.Fatalf("OpenRead of an unmarked store: %v", err)
	}
	s.Close()
	if got := appID(t, fresh); got != 0 {
		t.Fatal("OpenRead marked the store")
	}
	s, err = Open(ctx, fresh)
	if err != nil {
		t.Fatalf("Open of an unmarked store: %v", err)
	}
	s.Close()
	if got := appID(t, fresh); got != ApplicationID {
		t.Fatalf("Open left an unmarked store unmarked: %#x", got)
	}
}

// OpenRead is SQLite's read-only open: nothing is created, the journal
// mode stays, no migration runs, and a write through it fails.
func TestOpenReadWritesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "none", "convo.db")
	if _, err := OpenRead(ctx, missing); !errors.Is(err, store.ErrNoStore) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenRead of a missing store: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("OpenRead created the directory")
	}

	path := filepath.Join(dir, "convo.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	hi := transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"hi"}}}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(hi)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	makeDB(t, path, `PRAGMA journal_mode = DELETE`)
	before := dirState(t, dir)

	s, err = OpenRead(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`CREATE TABLE x (a)`); err == nil {
		t.Error("a write through OpenRead's handle succeeded")
	}
	if err := s.Read(ctx, "c", store.ReadOptions{}, func(store.Row) error { return nil }); err != nil {
		t.Errorf("read: %v", err)
	}
	s.Close()
	if after := dirState(t, dir); !sameState(before, after) {
		t.Fatal("OpenRead changed the store's files (journal mode, schema)")
	}

	// One migration behind: refused, not migrated.
	makeDB(t, path, `PRAGMA user_version = 6`)
	before = dirState(t, dir)
	if _, err := OpenRead(ctx, path); !errors.Is(err, store.ErrOutdated) {
		t.Fatalf("OpenRead of an older store: %v, want ErrOutdated", err)
	}
	if after := dirState(t, dir); !sameState(before, after) {
		t.Fatal("OpenRead of an older store changed it")
	}
	if !bytes.Equal([]byte(before["convo.db"])[18:20], []byte{1, 1}) {
		t.Fatal("the store is not in rollback mode any more")
	}
}

// TestPageSize: a store convo creates has PageSize pages; a store made
// with another page size keeps it, through writes and a VACUUM (what
// prune's compaction runs).
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	pageSize := func(path string) int {
		t.Helper()
		f, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The header's page size (offset 16, big-endian; 1 means 65536).
		return int(binary.BigEndian.Uint16(f[16:18]))
	}
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	s, err := Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := pageSize(fresh); got != PageSize {
		t.Fatalf("new store: %d-byte pages, want %d", got, PageSize)
	}

	old := filepath.Join(t.TempDir(), "old.db")
	makeDB(t, old, "PRAGMA page_size = 4096", "VACUUM")
	s, err = Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	appendWords(t, s, "c", 400, 200)
	if _, err := s.Clear(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "VACUUM"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if got := pageSize(old); got != 4096 {
		t.Fatalf("a 4096-byte store after writes and VACUUM: %d-byte pages", got)
	}
}

// TestStatementJournalInMemory: SQLite took the statement journal's
// size before any connection was opened (a driver that initializes
// SQLite in its own init would refuse it, and every bulk insert would
// write its journal to a temporary file again), and a statement that
// changes more pages than that still runs, spilling.
func TestStatementJournalInMemory(t *testing.T) {
	if !stmtJournalSet {
		t.Fatal("sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL) was refused")
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	appendWords(t, s, "c", 2000, 400)
	// Every record's row rewritten in one statement: 2000 rows of 2.4 KB,
	// over 4 MiB of pages journaled.
	res, err := s.DB().ExecContext(ctx, `UPDATE records SET body = body WHERE conversation = 'c'`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2000 {
		t.Fatalf("updated %d rows, want 2000", n)
	}
}

// appendWords appends n records to conv, user and assistant in turn, each
// the word "words" repeated words times.
func appendWords(t *testing.T, s *sqlstore.Store, conv string, n, words int) {
	t.Helper()
	var recs []transcript.Record
	for i := range n {
		recs = append(recs, transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[i%2],
			Contents: []string{strings.Repeat("words ", words)}}})
	}
	if _, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(recs...)); err != nil {
		t.Fatal(err)
	}
}
