package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestDumpLoadBatches loads a conversation of more records than two of
// the bulk path's full batches (a prepared statement, then a shorter last
// one; on PostgreSQL a COPY of 4,096 records each) with a summary between
// them: it reads back as dumped, and search finds records of every batch
// in the target.
func (x suite) TestDumpLoadBatches(t *testing.T) {
	src := x.open(t)
	dst := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	const n = 2*4096 + 300
	recs := make([]transcript.Record, 0, n)
	for i := range n {
		role := transcript.RoleUser
		if i%2 == 1 {
			role = transcript.RoleAssistant
		}
		recs = append(recs, exportMsg(role, fmt.Sprintf("turn%d word", i)))
	}
	exportAppend(t, src, ids, "big", recs...)
	var covered []string
	for _, d := range dumpPieces(t, src, "big") {
		if d.Record != nil && len(covered) < 2 {
			covered = append(covered, d.Record.ID)
		}
	}
	exportInsertSummary(t, src, ids, "big", covered[1], covered, false)

	want := dumpPieces(t, src, "big")
	if r, _, _, _ := dumpCount(want); r != n+1 {
		t.Fatalf("the dump holds %d records, want %d", r, n+1)
	}
	lcMust(t, dst.Load(ctx, false, dumpFeed(want)))
	if got := dumpText(t, dumpPieces(t, dst, "big")); !slices.Equal(got, dumpText(t, want)) {
		t.Fatalf("loaded %d pieces unlike the %d dumped", len(got), len(want))
	}
	for _, i := range []int{0, 1023, 1024, 2047, 2048, 4095, 4096, 8191, 8192, n - 1} {
		var hits int
		err := dst.Search(ctx, store.SearchOptions{Query: mustQuery(t, fmt.Sprintf("turn%d", i))}, func(store.SearchHit) error {
			hits++
			return nil
		})
		lcMust(t, err)
		if hits != 1 {
			t.Fatalf("search turn%d in the loaded store: %d hits, want 1", i, hits)
		}
	}
	lcMust(t, dst.IntegrityCheck(ctx))
}
