package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/sqlitetest"
	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// bulk is n records of alternating roles, except that each record at an
// index in same has the role of the one before it (a merge into it).
func bulk(n int, same ...int) []transcript.Record {
	recs := make([]transcript.Record, n)
	role := transcript.Role("assistant")
	for i := range recs {
		if !slices.Contains(same, i) {
			role = map[transcript.Role]transcript.Role{"user": "assistant", "assistant": "user"}[role]
		}
		recs[i] = transcript.Record{Message: transcript.Message{Role: role, Contents: []string{fmt.Sprintf("line%d", i)}}}
	}
	return recs
}

// A bulk append's full batches are inserted behind it (sqlstore's
// overlap.go): a record merging into one of a batch already handed over
// must find it stored, and the index must hold the merged text.
func TestBulkAppendMergesIntoBatchInFlight(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	// The batches are 256 records: 256 and 512 merge into the last
	// record of the batch before them.
	res, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(bulk(1000, 256, 512)...))
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 998 || res.Merged != 2 {
		t.Fatalf("append: %+v; want 998 inserted, 2 merged", res)
	}
	var got []string
	err = s.Read(ctx, "c", store.ReadOptions{}, func(r store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(r.Body, &rec); err != nil {
			return err
		}
		got = append(got, strings.Join(rec.Message.Contents, "+"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 998 || got[255] != "line255+line256" || got[510] != "line511+line512" || got[997] != "line999" {
		t.Fatalf("read back %d records; 255: %q, 510: %q, last: %q", len(got), got[255], got[510], got[len(got)-1])
	}
	q, err := search.Parse("line256")
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(store.SearchHit) error { hits++; return nil }); err != nil || hits != 1 {
		t.Fatalf("search line256: %d hits, %v; want the merged record", hits, err)
	}
}

// A batch inserted behind the append that fails fails the append, and
// the store is as it was: nothing of it stored.
func TestBulkAppendFailingBatchStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(bulk(10)...)); err != nil {
		t.Fatal(err)
	}
	// The second batch (positions 256 to 511, after the 10 stored) holds
	// the refused row; a third batch follows it.
	if _, err := s.DB().ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON records WHEN NEW.pos = 300
		BEGIN SELECT RAISE(ABORT, 'the test refuses pos 300'); END`); err != nil {
		t.Fatal(err)
	}
	_, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(bulk(1000)[10:]...))
	if err == nil || !strings.Contains(err.Error(), "the test refuses pos 300") {
		t.Fatalf("append: %v; want the refused batch's error", err)
	}
	n := 0
	if err := s.Read(ctx, "c", store.ReadOptions{}, func(store.Row) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Fatalf("%d records stored after the failed append; want the 10 before it", n)
	}
}

// A record whose id a batch in flight holds is already stored: the append
// skips it, as it would once that batch is in, rather than insert it
// twice (the id's lookup waits for the batch).
func TestBulkAppendSkipsIdOfBatchInFlight(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	for round := range 20 {
		conv := fmt.Sprintf("c%d", round)
		recs := bulk(600)
		ids := transcript.NewIDs()
		for i := range recs {
			recs[i].ID = ids.New(int64(1_700_000_000_000 + i))
		}
		// The first record after the first batch repeats one of it.
		dup := recs[255]
		dup.Message.Contents = []string{"again"}
		recs = append(recs[:256], append([]transcript.Record{dup}, recs[256:]...)...)
		res, err := s.Append(ctx, conv, transcript.NewIDs(), transcript.Slice(recs...))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if res.Inserted != 600 || res.Skipped != 1 {
			t.Fatalf("round %d: %+v; want 600 inserted, 1 skipped", round, res)
		}
	}
}
