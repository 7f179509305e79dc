package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/sqlitetest"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// spy watches a store's Dump and Load: how far the dump ran ahead of the
// load, and whether the dump ended before Copy returned.
type spy struct {
	store.Store
	dumped       int // pieces Dump has handed out
	dumpReturned bool
	loads        int
	// pulled checks each piece Load pulls against the pieces dumped.
	pulled func(n int)
}

func (s *spy) Dump(ctx context.Context, conv string, fn func(store.Dumped) error) error {
	s.dumpReturned = false
	s.dumped = 0
	err := s.Store.Dump(ctx, conv, func(d store.Dumped) error {
		s.dumped++
		return fn(d)
	})
	s.dumpReturned = true
	return err
}

func (s *spy) Load(ctx context.Context, replace bool, next func() (store.Dumped, error)) error {
	s.loads++
	n := 0
	return s.Store.Load(ctx, replace, func() (store.Dumped, error) {
		d, err := next()
		if err == nil {
			n++
			if s.pulled != nil {
				s.pulled(n)
			}
		}
		return d, err
	})
}

// openSQLite opens a SQLite store of the test's own.
func openSQLite(t testing.TB) store.Store { return sqlitetest.Open(t) }

func appendTurns(t *testing.T, s store.Store, conv string, n int) {
	t.Helper()
	recs := make([]transcript.Record, n)
	for i := range recs {
		role := []transcript.Role{transcript.RoleUser, transcript.RoleAssistant}[i%2]
		recs[i] = transcript.Record{Message: transcript.Message{Role: role, Contents: []string{fmt.Sprint(conv, " ", i+1)}}}
	}
	_, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

func getAll(t *testing.T, s store.Store, conv string) string {
	t.Helper()
	var b strings.Builder
	if err := s.Read(context.Background(), conv, store.ReadOptions{}, func(r store.Row) error {
		fmt.Fprintf(&b, "%d.%d.%d %s\n", r.Pos, r.Sub, r.Seq, r.Body)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Copy streams: when the target pulls a piece, the source has handed out
// exactly that many, never the whole conversation ahead of it.
func TestCopyStreams(t *testing.T) {
	ctx := context.Background()
	src := &spy{Store: openSQLite(t)}
	dst := &spy{Store: openSQLite(t)}
	appendTurns(t, src, "c", 50)
	dst.pulled = func(n int) {
		if src.dumped != n {
			t.Fatalf("the target pulled piece %d while the source had dumped %d", n, src.dumped)
		}
	}
	n, err := store.Copy(ctx, src, dst, "c", false)
	if err != nil || n != 50 {
		t.Fatalf("copied %d records, %v; want 50", n, err)
	}
	if a, b := getAll(t, src, "c"), getAll(t, dst, "c"); a != b {
		t.Fatalf("copy:\n%s\nwant\n%s", b, a)
	}
}

// An existing conversation is refused and kept, the source's dump is ended
// before Copy returns; replace copies over it.
func TestCopyExisting(t *testing.T) {
	ctx := context.Background()
	src := &spy{Store: openSQLite(t)}
	dst := &spy{Store: openSQLite(t)}
	appendTurns(t, src, "c", 4)
	appendTurns(t, dst, "c", 2)
	before := getAll(t, dst, "c")
	n, err := store.Copy(ctx, src, dst, "c", false)
	if !errors.Is(err, store.ErrExists) || n != 0 {
		t.Fatalf("copy onto an existing conversation: %d, %v; want ErrExists", n, err)
	}
	if !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("the error names neither the conversation nor --force: %v", err)
	}
	if !src.dumpReturned {
		t.Fatal("Copy returned with the source's dump still open")
	}
	if got := getAll(t, dst, "c"); got != before {
		t.Fatalf("a refused copy changed the target:\n%s", got)
	}
	if n, err := store.Copy(ctx, src, dst, "c", true); err != nil || n != 4 {
		t.Fatalf("copy with replace: %d, %v", n, err)
	}
	if a, b := getAll(t, src, "c"), getAll(t, dst, "c"); a != b {
		t.Fatalf("replaced:\n%s\nwant\n%s", b, a)
	}
}

// A conversation the source does not have is ErrNotFound, and the target is
// not written to at all.
func TestCopyMissing(t *testing.T) {
	ctx := context.Background()
	src := &spy{Store: openSQLite(t)}
	dst := &spy{Store: openSQLite(t)}
	_, err := store.Copy(ctx, src, dst, "nope", false)
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("copy of a missing conversation: %v", err)
	}
	if dst.loads != 0 {
		t.Fatal("the target's Load ran for a missing conversation")
	}
}

// CopyAll goes on past a refused conversation and tallies both.
func TestCopyAll(t *testing.T) {
	ctx := context.Background()
	src, dst := openSQLite(t), openSQLite(t)
	appendTurns(t, src, "a", 3)
	appendTurns(t, src, "b", 2)
	appendTurns(t, src, "c", 1)
	appendTurns(t, dst, "b", 1)
	var done []string
	tally, err := store.CopyAll(ctx, src, dst, false, func(conv string, records int, err error) {
		done = append(done, fmt.Sprintf("%s %d %v", conv, records, errors.Is(err, store.ErrExists)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a 3 false", "b 0 true", "c 1 false"}; !slices.Equal(done, want) {
		t.Fatalf("done %q, want %q", done, want)
	}
	if tally != (store.CopyTally{Copied: 2, Failed: 1, Records: 4}) {
		t.Fatalf("tally %+v", tally)
	}
	for _, conv := range []string{"a", "c"} {
		if a, b := getAll(t, src, conv), getAll(t, dst, conv); a != b {
			t.Fatalf("%s:\n%s\nwant\n%s", conv, b, a)
		}
	}
}
