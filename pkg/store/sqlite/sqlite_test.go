package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/storetest"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) storetest.Opener {
		path := filepath.Join(t.TempDir(), "sub", "convo.db")
		return func() (store.Store, error) { return Open(context.Background(), path) }
	})
}

// A store that is not there is not created by OpenExisting, and the error
// says it does not exist.
func TestOpenExistingCreatesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "convo.db")
	if _, err := OpenExisting(context.Background(), path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenExisting of a missing store: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenExisting created the directory: %v", err)
	}
}

// A new store, its -wal and -shm files and a new directory are private to
// their owner, whatever the umask lets through; an existing file keeps its
// mode.
func TestOpenCreatesPrivateFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "convo")
	path := filepath.Join(dir, "convo.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	one := []transcript.Record{{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"hi"}}}}
	if _, err := s.Append(context.Background(), "c", transcript.NewIDs(), transcript.Slice(one...)); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600}
	for name, mode := range want {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %o, want %o", filepath.Base(name), got, mode)
		}
	}
	s.Close()

	shared := filepath.Join(t.TempDir(), "shared.db")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	s, err = Open(context.Background(), shared)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o640 {
		t.Errorf("an existing store's mode became %o, want 640 kept", fi.Mode().Perm())
	}
}

type codedError int

func (e codedError) Error() string { return "sqlite error" }
func (e codedError) Code() int     { return int(e) }

func TestBusy(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{codedError(5), true},
		{fmt.Errorf("open: %w", codedError(517)), true}, // SQLITE_BUSY_SNAPSHOT
		{codedError(1), false},
		{errors.New("database is locked"), false}, // by type, never by text
		{nil, false},
	} {
		if got := busy(tt.err); got != tt.want {
			t.Errorf("busy(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// A prune that frees more than a quarter of the file runs VACUUM and says
// how many bytes it gave back.
func TestPruneVacuums(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	long := strings.Repeat("x", 4000)
	for _, conv := range []string{"keep", "drop"} {
		recs := make([]transcript.Record, 200)
		for i := range recs {
			recs[i] = transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[i%2], Contents: []string{long}}}
		}
		if _, err := s.Append(ctx, conv, transcript.NewIDs(), transcript.Slice(recs...)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Prune(ctx, store.PruneOptions{Glob: "dr*"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 1 || !res.Vacuumed || res.FreedBytes < 200*4000/2 {
		t.Fatalf("prune: %+v", res)
	}
	// VACUUM keeps the rowids search's index is keyed by (SQLite may renumber
	// the rows of a table without an INTEGER PRIMARY KEY; it copies them whole).
	q, _ := search.Parse("xxx*") // a word of 4,000 x is indexed by its first 128
	hits := 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(h store.SearchHit) error {
		if h.Conversation != "keep" {
			return fmt.Errorf("hit in %q", h.Conversation)
		}
		hits++
		return nil
	}); err != nil || hits != 200 {
		t.Fatalf("search after VACUUM: %d hits, %v; want the 200 records kept", hits, err)
	}
}

func BenchmarkConcurrentAppend(b *testing.B) {
	storetest.BenchmarkConcurrentAppend(b, func(t testing.TB) storetest.Opener {
		path := filepath.Join(t.TempDir(), "convo.db")
		return func() (store.Store, error) { return Open(context.Background(), path) }
	})
}

func sqliteBackend(t testing.TB) storetest.Opener {
	path := filepath.Join(t.TempDir(), "convo.db")
	return func() (store.Store, error) { return Open(context.Background(), path) }
}

func BenchmarkSearch(b *testing.B)     { storetest.BenchmarkSearch(b, sqliteBackend) }
func BenchmarkBulkAppend(b *testing.B) { storetest.BenchmarkBulkAppend(b, sqliteBackend) }

// A store made before the per-conversation figures (migration 6) gets its
// record counts filled when opened; its token counts are made by the first
// list.
func TestMigrationFillsRecordCounts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "convo.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ids := transcript.NewIDs()
	for _, conv := range []string{"a", "b"} {
		n := map[string]int{"a": 3, "b": 40}[conv]
		for i := range n {
			r := transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[i%2], Contents: []string{"x"}}}
			if _, err := s.Append(ctx, conv, ids, transcript.Slice(r)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Back to version 5, as a store of the release before would be.
	for _, q := range []string{`DROP TABLE import_deleted`, `DROP TABLE search_cursor`, `DROP TABLE search_pending`, `DROP TABLE records_fts`, `DROP TABLE import_cursors`, `DROP TRIGGER batch_pending_clear`, `DROP TABLE batch_pending`, `DROP TABLE export_files`, `DROP TRIGGER view_tokens_clear`, `DROP TABLE view_tokens`,
		`ALTER TABLE conversations DROP COLUMN deletions`, `ALTER TABLE conversations DROP COLUMN record_count`, `ALTER TABLE conversations DROP COLUMN shape`, `ALTER TABLE conversations DROP COLUMN last_created`,
		`PRAGMA user_version = 5`} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := map[string]int64{}
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error { got[c.ID] = c.Records; return nil }); err != nil {
		t.Fatal(err)
	}
	if got["a"] != 3 || got["b"] != 40 {
		t.Fatalf("records after the migration: %v, want a:3 b:40", got)
	}
	// The last activity is filled from the records: the newest's creation.
	var newest int64
	if err := s.DB().QueryRowContext(ctx, `SELECT max(created) FROM records WHERE conversation = 'b'`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if err := s.Figures(ctx, "o200k_base", func(c store.ConversationFigures) error {
		if c.ID == "b" && c.LastActivity != newest {
			t.Errorf("last activity of b after the migration: %d, want %d", c.LastActivity, newest)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The search migration indexed what the older store held.
	q, _ := search.Parse("x")
	hits := 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(store.SearchHit) error { hits++; return nil }); err != nil {
		t.Fatal(err)
	}
	if hits != 43 {
		t.Fatalf("search after the migration found %d records, want 43", hits)
	}
	// 0010 indexed them, 0011 made the index again: its entries are the
	// records', and one deleted with its record goes.
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Clear(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatalf("after clear: %v", err)
	}
}
