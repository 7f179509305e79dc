package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestInOrderDocIDs: a record created at or after the newest of the
// in-order range takes the docid after it (consecutive docids: FTS5 writes
// their differences); an older one takes its slot's, below the range, and
// so does one created more than a day from now.
func TestInOrderDocIDs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "convo.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := appender(t, s, func(int64) string { return "hello" })
	add(1000, 2000, 2000)
	add(1500, 3000) // an import's old time, then in order again
	add(2500)
	future := time.Now().Add(48 * time.Hour).UnixMilli() // a clock gone wrong
	add(future, 3500)

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT rowid FROM records ORDER BY pos`)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	rows.Close()
	const base = int64(1) << 62
	want := []int64{base, base + 1, base + 2, sqlstore.DocSlot(1500), base + 3, sqlstore.DocSlot(2500),
		sqlstore.DocSlot(future), base + 4} // the future, kept out of the range, sends nothing after it to the slots
	if !slices.Equal(got, want) {
		t.Fatalf("docids %v, want %v", got, want)
	}
}

// TestCheckInOrder: CheckSearchIndex finds an in-order range that goes
// back in time (search's binary search of --since would miss records).
func TestCheckInOrder(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := appender(t, s, func(int64) string { return "hello" })
	add(1000, 2000, 3000)
	if err := s.CheckSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE records SET created = 1500 WHERE rowid = ?`, int64(1)<<62+2); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSearchIndex(ctx); err == nil || !strings.Contains(err.Error(), "back in time") {
		t.Fatalf("CheckSearchIndex = %v, want the range going back in time", err)
	}
}

// appender returns a function appending to conversation c of s a record
// created at each time given, with text(created) its text, the roles
// alternating over every call (no record merges into the one before).
func appender(t *testing.T, s *sqlstore.Store, text func(created int64) string) func(created ...int64) {
	ids := transcript.NewIDs()
	n := 0
	return func(created ...int64) {
		t.Helper()
		var recs []transcript.Record
		for _, c := range created {
			r := transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[n%2], Contents: []string{text(c)}}}
			r.Metadata.Timing.Creation = c
			recs = append(recs, r)
			n++
		}
		if _, err := s.Append(context.Background(), "c", ids, transcript.Slice(recs...)); err != nil {
			t.Fatal(err)
		}
	}
}
