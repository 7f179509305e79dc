package sqlite

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestSearchLargeMatches: a range holds a few MiB of matching bodies at a
// time while it waits for the merge, and goes on from the last one read:
// 40 matches of 256 KiB, in both ranges (in order, and older ones in
// their slots), are all found, newest first.
func TestSearchLargeMatches(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := appender(t, s, func(created int64) string {
		return fmt.Sprintf("needle %d %s", created, strings.Repeat("hay ", 64<<10))
	})
	var inOrder, older []int64
	for i := range 20 {
		inOrder = append(inOrder, 1_000_000+int64(i)*1000)
		older = append(older, 500+int64(i)*100_000) // between and before them
	}
	add(inOrder...)
	add(older...)
	q, err := search.Parse("needle")
	if err != nil {
		t.Fatal(err)
	}
	last, hits := int64(1)<<62, 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(h store.SearchHit) error {
		if h.Created > last {
			return fmt.Errorf("created %d after %d: not newest first", h.Created, last)
		}
		last = h.Created
		hits++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if hits != 40 {
		t.Fatalf("%d hits, want 40", hits)
	}
}

// TestSearchCursorMigration: a store of the version before the index
// cursor (every record indexed by its write) gets one that says so, and
// goes on: what is written after is found before the index catches up,
// by a handle that cannot write (it reads what the index lacks) and by a
// read-only open that can (it brings the index up to date first).
func TestSearchCursorMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "convo.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	add := appender(t, s, func(created int64) string { return fmt.Sprintf("needle %d", created) })
	add(1_000_000, 1_001_000, 1_002_000)
	add(500) // an older record: a slot docid
	if _, err := s.IndexSearch(ctx, nil); err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE search_cursor`, `DROP TABLE search_pending`, fmt.Sprintf(`PRAGMA user_version = %d`, len(names)-1)} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, err := s.IndexBehind(ctx); err != nil || st.Behind() != 0 {
		t.Fatalf("after the migration the index lacks %+v (%v), want nothing", st, err)
	}
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	q, _ := search.Parse("needle")
	count := func(s *sqlstore.Store) int {
		t.Helper()
		n := 0
		if err := s.Search(ctx, store.SearchOptions{Query: q}, func(store.SearchHit) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(s); n != 4 {
		t.Fatalf("%d hits after the migration, want 4", n)
	}
	add = appender(t, s, func(created int64) string { return fmt.Sprintf("needle %d", created) })
	add(2_000_000, 2_001_000, 700)
	ro, err := OpenRead(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ro.SetReadOnly()
	if n := count(ro); n != 7 {
		t.Fatalf("read-only: %d hits, want 7", n)
	}
	if st, _ := s.IndexBehind(ctx); st.Behind() == 0 {
		t.Fatal("a read-only search brought the index up to date")
	}
	rw, err := OpenRead(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if n := count(rw); n != 7 {
		t.Fatalf("a read-only open that can write: %d hits, want 7", n)
	}
	if st, _ := s.IndexBehind(ctx); st.Behind() != 0 {
		t.Fatalf("the index lacks %+v after a search that could write", st)
	}
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestIndexCatchesUpInPages: a catch-up of many pages (their entries made
// on another goroutine while the next page is read) indexes every record,
// in order and out of it, and tells its progress.
func TestIndexCatchesUpInPages(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := appender(t, s, func(created int64) string { return fmt.Sprintf("hay %d", created%7) })
	var inOrder, older []int64
	for i := range 10000 {
		inOrder = append(inOrder, 10_000_000+int64(i))
	}
	for i := range 5000 {
		older = append(older, 1_000_000+int64(i)*3)
	}
	add(inOrder...)
	add(older...)
	var last, total int64
	n, err := s.IndexSearch(ctx, func(done, of int64) { last, total = done, of })
	if err != nil {
		t.Fatal(err)
	}
	if n != 15000 || last != 15000 || total != 15000 {
		t.Fatalf("indexed %d, progress %d of %d; want 15000", n, last, total)
	}
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	q, _ := search.Parse("3")
	hits := 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(store.SearchHit) error { hits++; return nil }); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range append(inOrder, older...) {
		if c%7 == 3 {
			want++
		}
	}
	if hits != want {
		t.Fatalf("%d hits, want %d", hits, want)
	}
}

// TestSearchWhileAnotherWrites: a search whose index is behind while
// another writer holds the store's lock does not queue behind it: it
// reads what the index lacks, and finds every record committed.
func TestSearchWhileAnotherWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "convo.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := appender(t, s, func(created int64) string { return fmt.Sprintf("needle %d", created) })
	add(1_000_000, 1_001_000, 500)
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c, err := other.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	q, _ := search.Parse("needle")
	hits := 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(store.SearchHit) error { hits++; return nil }); err != nil {
		t.Fatal(err)
	}
	if hits != 3 {
		t.Fatalf("%d hits while another writes, want 3", hits)
	}
	if _, err := c.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.IndexBehind(ctx); st.Behind() == 0 {
		t.Fatal("the index caught up under another writer's lock")
	}
	if _, err := s.IndexSearch(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMergeSearchIndex: catch-ups leave the index in a segment each;
// MergeSearchIndex merges more than most into one, and a search finds
// the same records after, none of a conversation cleared before.
func TestMergeSearchIndex(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	segments := func() int {
		t.Helper()
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM records_fts_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	add := appender(t, s, func(created int64) string { return fmt.Sprintf("needle %d", created) })
	ids := transcript.NewIDs()
	for round := range 12 {
		base := int64(1_000_000 + round*100)
		add(base, base+1, base+2)
		add(int64(round + 1)) // an older one: a slot docid, pending
		gone := transcript.Record{Message: transcript.Message{Role: "user", Contents: []string{"needle gone"}}}
		gone.Metadata.Timing.Creation = base + 3
		if _, err := s.Append(ctx, fmt.Sprintf("gone%d", round), ids, transcript.Slice(gone)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.IndexSearch(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if round%2 == 0 {
			if _, err := s.Clear(ctx, fmt.Sprintf("gone%d", round)); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := segments()
	if before <= 8 {
		t.Fatalf("%d segments before the merge, want more than 8", before)
	}
	if n, err := s.MergeSearchIndex(ctx, before); err != nil || n != 0 {
		t.Fatalf("MergeSearchIndex(%d) of %d segments = %d, %v; want 0 (left as it is)", before, before, n, err)
	}
	if n, err := s.MergeSearchIndex(ctx, 8); err != nil || n != before {
		t.Fatalf("MergeSearchIndex = %d, %v; want %d", n, err, before)
	}
	if n := segments(); n != 1 {
		t.Fatalf("%d segments after the merge, want 1", n)
	}
	if n, err := s.MergeSearchIndex(ctx, 8); err != nil || n != 0 {
		t.Fatalf("MergeSearchIndex of one segment = %d, %v; want 0", n, err)
	}
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	q, _ := search.Parse("needle")
	hits := map[string]int{}
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(h store.SearchHit) error {
		hits[strings.TrimRight(h.Conversation, "0123456789")]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if hits["c"] != 12*4 || hits["gone"] != 6 {
		t.Fatalf("hits %v, want c:48 gone:6", hits)
	}
}
