package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	syncatomic "sync/atomic"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/sqlitetest"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/transcript"
)

// fake is a Summarizer stub: it counts calls and the calls in flight,
// fails on demand, and can block until released or cancelled.
type fake struct {
	calls, inFlight, peak syncatomic.Int32
	// fail, when set, says whether the call for in fails.
	fail func(in Input) bool
	// entered, when set, hears each call as it starts; release, when set,
	// is waited on (or ctx) before the call answers.
	entered chan string
	release chan struct{}
	// during, when set, runs inside the call (another writer at work).
	during func()
}

func (f *fake) Name() string { return "fake" }

func (f *fake) Summarize(ctx context.Context, in Input) (Output, error) {
	f.calls.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
	}
	conv := in.Records[0].Conversation
	if f.entered != nil {
		f.entered <- conv
	}
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}
	if f.during != nil {
		f.during()
	}
	if f.fail != nil && f.fail(in) {
		return Output{}, errors.New("provider down")
	}
	return Output{Text: "- the gist of " + conv, Model: "fake-1"}, nil
}

// openStore opens a fresh SQLite store in t.TempDir.
func openStore(t *testing.T) store.Store {
	s := sqlitetest.Open(t)
	s.Now = func() time.Time { return time.UnixMilli(1744815823058) }
	return s
}

// seed stores conv with n alternating user/assistant messages.
func seed(t *testing.T, s store.Store, conv string, n int) {
	t.Helper()
	recs := make([]transcript.Record, n)
	for j := range recs {
		i := j + 1
		role := []transcript.Role{"user", "assistant"}[j%2]
		recs[j] = transcript.Record{Message: transcript.Message{Role: role, Contents: []string{
			fmt.Sprintf("turn %d of %s: we talked about order #%d and the Lisbon trip.", i, conv, 4000+i)}}}
	}
	_, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

// dump is every stored line of conv.
func dump(t *testing.T, s store.Store, conv string) string {
	t.Helper()
	var b strings.Builder
	err := s.Read(context.Background(), conv, store.ReadOptions{}, func(r store.Row) error {
		b.Write(r.Body)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func newRunner(t *testing.T, sum Summarizer) *Runner {
	return &Runner{
		Options:    Options{KeepLast: 1, Counter: counter(t)},
		Summarizer: sum,
		IDs:        transcript.NewIDs(),
		Now:        func() time.Time { return time.UnixMilli(1744815900000) },
	}
}

var _ Store = (store.Store)(nil)

func TestRunWritesSummary(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	f := &fake{}
	res, err := newRunner(t, f).Run(context.Background(), s, "c")
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary == nil || res.Skip != "" || res.Conversation != "c" {
		t.Fatalf("result %+v", res)
	}
	if got := res.Summary.Message.Contents[0]; !strings.HasPrefix(got, "- the gist of c") {
		t.Errorf("summary text %q", got)
	}
	if len(res.Summary.Metadata.SummaryIDs) != 8 || string(res.Summary.Metadata.Aux["summarizer"]) != `"fake"` ||
		string(res.Summary.Metadata.Aux["model"]) != `"fake-1"` || res.Summary.Metadata.Timing.Creation != 1744815900000 {
		t.Errorf("summary record %+v", res.Summary.Metadata)
	}
	stored := dump(t, s, "c")
	if strings.Count(stored, `"role":"summary"`) != 1 || !strings.Contains(stored, res.Summary.ID) {
		t.Fatalf("stored:\n%s", stored)
	}
	// The summary stands right after the last record it covers.
	lines := strings.Split(strings.TrimSpace(stored), "\n")
	if !strings.Contains(lines[8], `"role":"summary"`) {
		t.Errorf("summary at line %d, want 8:\n%s", slicesIndex(lines, `"role":"summary"`), stored)
	}
	if f.calls.Load() != 1 {
		t.Errorf("%d summarizer calls, want 1", f.calls.Load())
	}

	// Again at once: only the previous summary could be covered.
	res, err = newRunner(t, f).Run(context.Background(), s, "c")
	if err != nil || !res.Skip.NothingToCover() || res.Summary != nil {
		t.Fatalf("second run: %+v, %v", res, err)
	}
}

func slicesIndex(lines []string, sub string) int {
	for i, l := range lines {
		if strings.Contains(l, sub) {
			return i
		}
	}
	return -1
}

func TestRunSkips(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	tests := []struct {
		name string
		opt  Options
		want Skip
	}{
		{"under --if-over", Options{IfOver: 100000}, SkipTrigger},
		{"under --every", Options{Every: 50}, SkipTrigger},
		{"keep-last covers all", Options{KeepLast: 10}, SkipNothing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			r := newRunner(t, f)
			tt.opt.Counter = r.Options.Counter
			r.Options = tt.opt
			before := dump(t, s, "c")
			res, err := r.Run(context.Background(), s, "c")
			if err != nil || !strings.HasPrefix(string(res.Skip), string(tt.want)) || res.Summary != nil {
				t.Fatalf("got %+v, %v; want skip %q", res, err, tt.want)
			}
			if f.calls.Load() != 0 || dump(t, s, "c") != before {
				t.Errorf("a skip called the summarizer or wrote")
			}
		})
	}
}

func TestRunDryRunWritesNothing(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	before := dump(t, s, "c")
	r := newRunner(t, nil) // a dry run needs no summarizer
	r.DryRun = true
	res, err := r.Run(context.Background(), s, "c")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.DryRun, DefaultPrompt) || !strings.Contains(res.DryRun, "Messages to fold in:\n[user] turn 1 of c") ||
		strings.Contains(res.DryRun, "turn 10 of c") || res.Summary != nil {
		t.Errorf("dry run result %+v", res)
	}
	if dump(t, s, "c") != before {
		t.Errorf("a dry run wrote")
	}
}

func TestRunProviderFailureLeavesConversation(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	before := dump(t, s, "c")
	_, err := newRunner(t, &fake{fail: func(Input) bool { return true }}).Run(context.Background(), s, "c")
	if err == nil || !strings.Contains(err.Error(), "summarizer fake: provider down") {
		t.Fatalf("err = %v", err)
	}
	if dump(t, s, "c") != before {
		t.Errorf("a failed summarize changed the store")
	}
}

// TestRunConversationChanged: another writer stores a summary while the
// summarizer runs; the late summary is refused and nothing of it is stored.
func TestRunConversationChanged(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	var other Result
	f := &fake{during: func() {
		var err error
		if other, err = newRunner(t, &extractive.Summarizer{Counter: counter(t)}).Run(context.Background(), s, "c"); err != nil {
			t.Error(err)
		}
	}}
	_, err := newRunner(t, f).Run(context.Background(), s, "c")
	// The caller names the conversation (--all prints it beside each
	// failure), so the error does not name it again.
	if !errors.Is(err, store.ErrConflict) || strings.Contains(err.Error(), "summarize c") {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	stored := dump(t, s, "c")
	if strings.Count(stored, `"role":"summary"`) != 1 || other.Summary == nil || !strings.Contains(stored, other.Summary.ID) {
		t.Fatalf("want only the other writer's summary:\n%s", stored)
	}
}

func TestRunDeleteOriginals(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	r := newRunner(t, &fake{})
	r.DeleteOriginals = true
	if _, err := r.Run(context.Background(), s, "c"); err != nil {
		t.Fatal(err)
	}
	stored := dump(t, s, "c")
	if n := strings.Count(stored, "\n"); n != 3 || !strings.Contains(stored, `"role":"summary"`) || strings.Contains(stored, "turn 8 of c") {
		t.Fatalf("want the summary and the last turn:\n%s", stored)
	}
}

func TestRunWaitsForRate(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	r := newRunner(t, &fake{})
	r.Wait = func(ctx context.Context) error { return errors.New("rate closed") }
	before := dump(t, s, "c")
	if _, err := r.Run(context.Background(), s, "c"); err == nil || err.Error() != "rate closed" {
		t.Fatalf("err = %v, want the rate hook's", err)
	}
	if dump(t, s, "c") != before {
		t.Errorf("wrote after the rate hook failed")
	}
}

func TestRunMissingConversation(t *testing.T) {
	_, err := newRunner(t, &fake{}).Run(context.Background(), openStore(t), "nobody")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

// TestRunConcurrentOnOneConversation: several runners at once on one
// conversation store one summary; the others are refused or find nothing.
func TestRunConcurrentOnOneConversation(t *testing.T) {
	s := openStore(t)
	seed(t, s, "c", 10)
	var wg sync.WaitGroup
	var written syncatomic.Int32
	for range 4 {
		wg.Go(func() {
			res, err := newRunner(t, &fake{}).Run(context.Background(), s, "c")
			switch {
			case err == nil && res.Summary != nil:
				written.Add(1)
			case err != nil && !errors.Is(err, store.ErrConflict):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if strings.Count(dump(t, s, "c"), `"role":"summary"`) != 1 || written.Load() != 1 {
		t.Fatalf("%d written:\n%s", written.Load(), dump(t, s, "c"))
	}
}
