package summarize

import (
	"math"
	"strings"
	"testing"
)

func TestOptionsCheck(t *testing.T) {
	ok := Options{KeepLast: 4, MaxSummaryTokens: DefaultMaxSummaryTokens, SummaryRatio: DefaultSummaryRatio, LedgerSize: DefaultLedgerSize}
	if err := ok.Check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.KeepLast = -1 }, "--keep-last -1"},
		{func(o *Options) { o.KeepLastTokens = -1 }, "--keep-last-tokens -1"},
		{func(o *Options) { o.MaxSummaryTokens = 0 }, "--max-summary-tokens 0"},
		{func(o *Options) { o.LedgerSize = 0 }, "--ledger-size 0"},
		{func(o *Options) { o.SummaryRatio = 1.5 }, "--summary-ratio"},
		{func(o *Options) { o.SummaryRatio = math.NaN() }, "--summary-ratio"},
	} {
		o := ok
		tc.change(&o)
		if err := o.Check(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %q...", err, tc.want)
		}
	}
}

func TestBatchCheck(t *testing.T) {
	batch := BatchProviders()[0]
	for _, tc := range []struct {
		b    Batch
		want string // "" for none
	}{
		{Batch{}, ""},
		{Batch{Out: "f", All: true, Summarizer: batch}, ""},
		{Batch{In: "f"}, ""},
		{Batch{Status: true}, ""},
		{Batch{Status: true, Rate: true}, "--batch-status takes no other mode"},
		{Batch{Out: "f", In: "g"}, "give --batch-out or --batch-in, not both"},
		{Batch{Out: "f", Summarizer: batch}, "--batch-out needs --all"},
		{Batch{Out: "f", All: true, Summarizer: "extractive"}, "--batch-out needs --summarizer"},
		{Batch{In: "f", Conversation: "c"}, "--batch-in takes no -c or --all"},
		{Batch{In: "f", DryRun: true}, "--batch-out and --batch-in take no --dry-run or --rate"},
	} {
		err := tc.b.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.b, err, tc.want)
		}
	}
}
