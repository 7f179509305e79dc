package summarize

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// pending is every request s holds, as custom_id -> conversation.
func pending(t *testing.T, s BatchStore) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := s.BatchRequests(context.Background(), func(r store.BatchRequest) error {
		out[r.CustomID] = r.Conversation
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// batchRound writes the requests of opt for s's conversations at now, and
// answers them all.
func batchRound(t *testing.T, s BatchStore, opt Options, del bool, now time.Time) []byte {
	t.Helper()
	var requests bytes.Buffer
	tally, err := BatchOut(context.Background(), s, opt, BatchOutOptions{Provider: "anthropic", DeleteOriginals: del, Now: func() time.Time { return now }}, &requests)
	if err != nil || tally.Requests == 0 {
		t.Fatalf("%v %+v", err, tally)
	}
	results, err := providertest.BatchResults(requests.Bytes(), func(int, string) providertest.BatchReply {
		return providertest.BatchReply{Answer: &providertest.Answer{Text: "The gist."}}
	})
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// TestBatchInRecorded: --batch-out records what each request was (the
// span, the sequence, the summarizer, the options), so --batch-in given
// other options (here the defaults) applies the results by the recorded
// ones, --delete-originals included, and drops each request it read.
func TestBatchInRecorded(t *testing.T) {
	s := openStore(t)
	seedFixed(t, s, "c", 8)
	seedFixed(t, s, "d", 8)
	now := time.UnixMilli(1744815900000)
	opt := Options{KeepLast: 1, LedgerSize: 7, MaxSummaryTokens: 300, Counter: counter(t)}
	results := batchRound(t, s, opt, true, now)

	reqs, err := BatchPending(context.Background(), s, now)
	if err != nil || len(reqs) != 2 {
		t.Fatalf("%v %+v", err, reqs)
	}
	r := reqs[0]
	if r.Conversation != "c" {
		r = reqs[1]
	}
	if r.Conversation != "c" || r.Summarizer != "anthropic" || r.Model == "" || r.Covered != 6 ||
		r.FirstID != "01JRZJ166J2WRMF990535EVS01" || r.LastID != "01JRZJ166J2WRMF990535EVS06" || r.ReadSeq == 0 || r.Created != now.UnixMilli() {
		t.Errorf("recorded %+v", r)
	}
	if got := string(r.Options); got != `{"keepLast":1,"keepLastTokens":0,"ifOver":0,"every":0,"maxSummaryTokens":300,"summaryRatio":0,"ledgerSize":7,"tokenizer":"o200k_base","deleteOriginals":true}` {
		t.Errorf("recorded options %s", got)
	}

	// d changes (a covered record annotated): skipped, and its request
	// dropped all the same.
	if _, err := s.Annotate(context.Background(), "d", "01JRZJ166J2WRMF990535EVS02", &transcript.Annotation{Timing: map[string]int64{"creation": 1}}); err != nil {
		t.Fatal(err)
	}
	got := map[string]BatchOutcome{}
	tally, err := BatchIn(context.Background(), s, bytes.NewReader(results), BatchInOptions{
		Options: Options{KeepLast: 4, LedgerSize: 20, MaxSummaryTokens: 1000, Counter: counter(t)}, Now: func() time.Time { return now },
		Done: func(o BatchOutcome) { got[o.Conversation] = o },
	})
	if !errors.Is(err, ErrFailed) || tally.Stored != 1 || tally.Changed != 1 || tally.Unrecorded != 0 {
		t.Fatalf("%v %+v", err, tally)
	}
	if o := got["c"]; o.Status != "stored" || !o.Recorded || len(o.Summary.Metadata.SummaryIDs) != 6 {
		t.Fatalf("c: %+v", o)
	}
	if o := got["d"]; o.Status != "changed" || o.Err == nil || !o.Recorded {
		t.Fatalf("d: %+v", o)
	}
	// --delete-originals, recorded: the covered records went.
	recs := 0
	if err := s.Read(context.Background(), "c", store.ReadOptions{}, func(store.Row) error { recs++; return nil }); err != nil || recs != 3 {
		t.Errorf("c holds %d records (%v), want the summary and the 2 kept", recs, err)
	}
	if p := pending(t, s); len(p) != 0 {
		t.Errorf("still pending: %v", p)
	}
}

// TestBatchInUnrecorded: a result whose request the store does not hold
// (an older convo's file, or one past BatchPendingAge, dropped by the run)
// is applied the old way: with the options given, which must be those of
// --batch-out; other options are a change.
func TestBatchInUnrecorded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opt    Options
		stored bool
	}{
		{"same options", Options{KeepLast: 1}, true},
		{"other options", Options{KeepLast: 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			seedFixed(t, s, "c", 8)
			then := time.UnixMilli(1744815900000)
			results := batchRound(t, s, Options{KeepLast: 1, Counter: counter(t)}, false, then)
			later := then.Add(BatchPendingAge + time.Minute)
			if reqs, err := BatchPending(context.Background(), s, later); err != nil || len(reqs) != 0 {
				t.Fatalf("listed past their age: %v %+v", err, reqs)
			}
			opt := tc.opt
			opt.Counter = counter(t)
			var o BatchOutcome
			tally, err := BatchIn(context.Background(), s, bytes.NewReader(results), BatchInOptions{
				Options: opt, Now: func() time.Time { return later }, Done: func(x BatchOutcome) { o = x },
			})
			if tally.Unrecorded != 1 || o.Recorded || (tally.Stored == 1) != tc.stored || (err == nil) != tc.stored {
				t.Fatalf("%v %+v %+v", err, tally, o)
			}
			if !tc.stored && o.Status != "changed" {
				t.Fatalf("%+v", o)
			}
			if p := pending(t, s); len(p) != 0 {
				t.Errorf("not dropped past their age: %v", p)
			}
		})
	}
}
