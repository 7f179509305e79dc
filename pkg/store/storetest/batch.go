package storetest

// Tests of the pending batch requests (summarize --batch-out's record of
// what each request asked, which --batch-in applies): written, listed,
// dropped when applied or by age, and handled by copy, clear, prune and
// fork.

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// batchReq is a pending request of conv written at created.
func batchReq(id, conv string, created int64) store.BatchRequest {
	return store.BatchRequest{CustomID: id, Conversation: conv, ReadSeq: 4, FirstID: "r1", LastID: "r3", Covered: 3,
		Summarizer: "anthropic", Model: "claude-haiku-4-5", Options: []byte(`{"keepLast":1}`), Created: created}
}

// batchList is every pending request, as "custom_id conversation created".
func batchList(t testing.TB, s store.Store) []string {
	t.Helper()
	var out []string
	lcMust(t, s.BatchRequests(context.Background(), func(r store.BatchRequest) error {
		out = append(out, fmt.Sprintf("%s %s %d", r.CustomID, r.Conversation, r.Created))
		return nil
	}))
	return out
}

func batchWant(t testing.TB, s store.Store, what string, want ...string) {
	t.Helper()
	if got := batchList(t, s); !slices.Equal(got, want) {
		t.Fatalf("%s: pending %q, want %q", what, got, want)
	}
}

// TestBatchPending: requests are recorded as written (every field read
// back), oldest first; written again they replace their record; one of a
// conversation that is gone is not recorded; a summary that answers one
// drops it in its transaction; DropBatchRequests drops by id and by age.
func (x suite) TestBatchPending(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	lcAppend(t, s, ids, "a", msg("user", "one"), msg("assistant", "two"), msg("user", "three"), msg("assistant", "four"))
	lcAppend(t, s, ids, "b", msg("user", "one"))
	batchWant(t, s, "empty store")

	full := batchReq("a1_x", "a", 300)
	lcMust(t, s.AddBatchRequests(ctx, []store.BatchRequest{full, batchReq("a1_y", "b", 100), batchReq("a1_z", "gone", 100)}))
	batchWant(t, s, "written", "a1_y b 100", "a1_x a 300")
	var got store.BatchRequest
	lcMust(t, s.BatchRequests(ctx, func(r store.BatchRequest) error {
		if r.CustomID == "a1_x" {
			got = r
		}
		return nil
	}))
	if jsonText(t, got) != jsonText(t, full) {
		t.Fatalf("read back %s, want %s", jsonText(t, got), jsonText(t, full))
	}
	// Written again (a second --batch-out of the same request): replaced.
	lcMust(t, s.AddBatchRequests(ctx, []store.BatchRequest{batchReq("a1_x", "a", 50)}))
	batchWant(t, s, "written again", "a1_x a 50", "a1_y b 100")
	lcMust(t, s.AddBatchRequests(ctx, nil))

	// Applied: the summary and the drop are one transaction; a summary
	// that fails drops nothing.
	recs := readAll(t, s, "a", store.ReadOptions{})
	sum := transcript.Record{ID: ids.New(1744815823058), Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"gist"}},
		Metadata: transcript.Metadata{SummaryIDs: []string{recs[0].ID, recs[1].ID}, Timing: transcript.Timing{Creation: 1744815823058}}}
	bad := sum
	if err := s.WriteSummary(ctx, "a", store.SummaryWrite{Anchor: "no-such-record", Summary: &bad, BatchRequest: "a1_x"}); err == nil {
		t.Fatal("a summary after a missing anchor: no error")
	}
	batchWant(t, s, "a failed summary", "a1_x a 50", "a1_y b 100")
	lcMust(t, s.WriteSummary(ctx, "a", store.SummaryWrite{Anchor: recs[1].ID, Summary: &sum, BatchRequest: "a1_x"}))
	batchWant(t, s, "applied", "a1_y b 100")

	// Dropped by id (results read: changed, errored) and by age.
	lcMust(t, s.AddBatchRequests(ctx, []store.BatchRequest{batchReq("o1_1", "a", 200), batchReq("o1_2", "a", 99), batchReq("o1_3", "b", 400)}))
	n, err := s.DropBatchRequests(ctx, 0, "o1_3", "no-such-request")
	lcMust(t, err)
	if n != 1 {
		t.Fatalf("dropped %d by id, want 1", n)
	}
	batchWant(t, s, "dropped by id", "o1_2 a 99", "a1_y b 100", "o1_1 a 200")
	if n, err = s.DropBatchRequests(ctx, 101); err != nil || n != 2 {
		t.Fatalf("dropped %d by age (%v), want 2", n, err)
	}
	batchWant(t, s, "dropped by age", "o1_1 a 200")
}

// TestBatchPendingLifecycle: a conversation's pending requests go with it
// (clear, prune), a trim keeps them, prune drops those past an age (not
// in a dry run), and a fork inherits none.
func (x suite) TestBatchPendingLifecycle(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	for _, c := range []string{"cleared", "pruned", "trimmed", "kept"} {
		lcAppend(t, s, ids, c, msg("user", "one"), msg("assistant", "two"), msg("user", "three"), msg("assistant", "four"))
	}
	lcSummarize(t, s, ids, "trimmed", 1, false)
	lcAppend(t, s, ids, "trimmed", msg("user", "five"), msg("assistant", "six"))
	lcMust(t, s.AddBatchRequests(ctx, []store.BatchRequest{
		batchReq("c", "cleared", 500), batchReq("p", "pruned", 500), batchReq("t", "trimmed", 500),
		batchReq("k", "kept", 500), batchReq("old", "kept", 10),
	}))

	if _, err := s.Clear(ctx, "cleared"); err != nil {
		t.Fatal(err)
	}
	batchWant(t, s, "clear", "old kept 10", "k kept 500", "p pruned 500", "t trimmed 500")

	if _, err := s.Fork(ctx, "kept", "forked", store.ForkOptions{}, ids); err != nil {
		t.Fatal(err)
	}
	batchWant(t, s, "fork", "old kept 10", "k kept 500", "p pruned 500", "t trimmed 500")

	dry, err := s.Prune(ctx, store.PruneOptions{Glob: "pruned", DryRun: true, BatchBefore: 11})
	lcMust(t, err)
	if dry.BatchDropped != 1 {
		t.Errorf("a dry run would drop %d by age, want 1", dry.BatchDropped)
	}
	batchWant(t, s, "prune --dry-run", "old kept 10", "k kept 500", "p pruned 500", "t trimmed 500")
	res, err := s.Prune(ctx, store.PruneOptions{Glob: "pruned", BatchBefore: 11})
	lcMust(t, err)
	if res.Deleted != 1 || res.BatchDropped != 1 {
		t.Errorf("prune: %+v, want 1 deleted, 1 dropped by age", res)
	}
	batchWant(t, s, "prune", "k kept 500", "t trimmed 500")
	res, err = s.Prune(ctx, store.PruneOptions{Glob: "trimmed", KeepSummaries: true})
	lcMust(t, err)
	if res.Trimmed != 1 {
		t.Errorf("prune --keep-summaries: %+v, want 1 trimmed", res)
	}
	batchWant(t, s, "prune --keep-summaries", "k kept 500", "t trimmed 500")
}

// TestBatchPendingCopy: copy (Dump, Load) carries a conversation's pending
// requests, and only its own; a replaced conversation's requests in the
// target go with it.
func (x suite) TestBatchPendingCopy(t *testing.T) {
	src, dst := x.open(t), x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	lcAppend(t, src, ids, "c", msg("user", "one"), msg("assistant", "two"))
	lcAppend(t, src, ids, "other", msg("user", "one"))
	lcMust(t, src.AddBatchRequests(ctx, []store.BatchRequest{batchReq("a1_c", "c", 100), batchReq("o1_c", "c", 200), batchReq("a1_o", "other", 100)}))

	lcAppend(t, dst, ids, "c", msg("user", "the target's own"))
	lcMust(t, dst.AddBatchRequests(ctx, []store.BatchRequest{batchReq("r1_stale", "c", 50)}))
	pieces := dumpPieces(t, src, "c")
	n := 0
	for _, d := range pieces {
		if d.Batch != nil {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("the dump holds %d pending requests, want 2:\n%s", n, dumpText(t, pieces))
	}
	lcMust(t, dst.Load(ctx, true, dumpFeed(pieces)))
	if got, want := dumpText(t, dumpPieces(t, dst, "c")), dumpText(t, pieces); !slices.Equal(got, want) {
		t.Fatalf("loaded:\n%s\nwant:\n%s", got, want)
	}
	batchWant(t, dst, "copied", "a1_c c 100", "o1_c c 200")
}
