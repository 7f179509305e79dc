package summarize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	syncatomic "sync/atomic"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
)

// seedMany stores n conversations c-00, c-01... of turns records each.
func seedMany(t *testing.T, n, turns int) (store.Store, []string) {
	t.Helper()
	s := openStore(t)
	var ids []string
	for i := range n {
		id := fmt.Sprintf("c-%02d", i)
		seed(t, s, id, turns)
		ids = append(ids, id)
	}
	return s, ids
}

// TestAllBoundsConcurrency: with -j 3, at most 3 summarizer calls are in
// flight, and 3 are reached. The calls are held until the test releases
// them, so a fourth would be counted while three wait.
func TestAllBoundsConcurrency(t *testing.T) {
	const jobs, n = 3, 12
	s, _ := seedMany(t, n, 6)
	entered, release := make(chan string), make(chan struct{})
	f := &fake{entered: entered, release: release}
	type ran struct {
		tally Tally
		err   error
	}
	r := newRunner(t, f)
	var waits syncatomic.Int32
	r.Wait = func(context.Context) error { waits.Add(1); return nil }
	done := make(chan ran)
	go func() {
		tally, err := All(context.Background(), s, r, AllOptions{Jobs: jobs})
		done <- ran{tally, err}
	}()
	for range jobs {
		<-entered
	}
	// Wait until every worker is past the rate hook, where nothing but the
	// bound keeps the other three from entering, and let them run.
	for waits.Load() < 2*jobs {
		runtime.Gosched()
	}
	for range 100 {
		runtime.Gosched()
	}
	for range n - jobs {
		release <- struct{}{}
		<-entered
	}
	for range jobs {
		release <- struct{}{}
	}
	got := <-done
	if got.err != nil || got.tally.Summarized != n {
		t.Fatalf("tally %+v, err %v", got.tally, got.err)
	}
	if p := f.peak.Load(); p != jobs {
		t.Errorf("peak concurrency %d, want %d", p, jobs)
	}
}

// TestAllFailureReported: one conversation's failure is reported and
// counted; the rest are summarized, and the error says something failed.
func TestAllFailureReported(t *testing.T) {
	s, ids := seedMany(t, 6, 6)
	before := dump(t, s, "c-02")
	f := &fake{fail: func(in Input) bool { return in.Records[0].Conversation == "c-02" }}
	var started int
	var reported []string
	var inDone syncatomic.Int32
	tally, err := All(context.Background(), s, newRunner(t, f), AllOptions{
		Jobs:  2,
		Start: func(total int) { started = total },
		Done: func(res Result, err error) {
			if inDone.Add(1) != 1 {
				t.Error("Done calls overlap")
			}
			defer inDone.Add(-1)
			if err != nil {
				reported = append(reported, res.Conversation+": "+err.Error())
			}
		},
	})
	if !errors.Is(err, ErrFailed) || err.Error() != "1 of 6 conversations failed to summarize" {
		t.Fatalf("err = %v", err)
	}
	if started != len(ids) || tally.Conversations != 6 || tally.Summarized != 5 || tally.Failed != 1 ||
		len(tally.Failures) != 1 || tally.Failures[0].Conversation != "c-02" {
		t.Fatalf("start %d, tally %+v", started, tally)
	}
	if len(reported) != 1 || reported[0] != "c-02: summarizer fake: provider down" {
		t.Errorf("reported %q", reported)
	}
	if dump(t, s, "c-02") != before {
		t.Errorf("the failed conversation changed")
	}
	for _, id := range ids {
		if want := map[bool]int{true: 0, false: 1}[id == "c-02"]; strings.Count(dump(t, s, id), `"role":"summary"`) != want {
			t.Errorf("%s: want %d summaries", id, want)
		}
	}
}

// TestAllRateHook: the rate hook runs once per summarizer request, never
// for a conversation with nothing to summarize.
func TestAllRateHook(t *testing.T) {
	s, _ := seedMany(t, 5, 6)
	seed(t, s, "short-1", 2)
	seed(t, s, "short-2", 2)
	f := &fake{}
	var waits syncatomic.Int32
	r := newRunner(t, f)
	r.Wait = func(context.Context) error { waits.Add(1); return nil }
	tally, err := All(context.Background(), s, r, AllOptions{Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if tally.Summarized != 5 || tally.Nothing != 2 || waits.Load() != 5 || f.calls.Load() != 5 {
		t.Fatalf("tally %+v, %d waits, %d calls; want 5 of each", tally, waits.Load(), f.calls.Load())
	}
}

func TestAllTriggerAndDryRun(t *testing.T) {
	s, ids := seedMany(t, 3, 6)
	seed(t, s, "long", 40)
	r := newRunner(t, nil)
	r.DryRun = true
	r.Options.IfOver = 300
	var texts []string
	tally, err := All(context.Background(), s, r, AllOptions{Jobs: 2, Done: func(res Result, err error) {
		if res.DryRun != "" {
			texts = append(texts, res.Conversation)
		}
	}})
	if err != nil || tally.NotDue != 3 || tally.Summarized != 0 || len(texts) != 1 || texts[0] != "long" {
		t.Fatalf("tally %+v, dry runs %q, err %v", tally, texts, err)
	}
	for _, id := range append(ids, "long") {
		if strings.Contains(dump(t, s, id), `"role":"summary"`) {
			t.Errorf("%s: a dry run wrote", id)
		}
	}
}

// TestAllCancelled: cancelling while the summarizer runs ends the run with
// the context's error and stores nothing.
func TestAllCancelled(t *testing.T) {
	s, ids := seedMany(t, 8, 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fake{entered: make(chan string, len(ids)), release: make(chan struct{})}
	go func() {
		<-f.entered
		cancel()
	}()
	tally, err := All(ctx, s, newRunner(t, f), AllOptions{Jobs: 2})
	if !errors.Is(err, context.Canceled) || tally.Summarized != 0 {
		t.Fatalf("tally %+v, err %v", tally, err)
	}
	for _, id := range ids {
		if strings.Contains(dump(t, s, id), `"role":"summary"`) {
			t.Errorf("%s: summary stored after cancel", id)
		}
	}
}

// claimer refuses the conversations another runner "holds": always, or
// only on the first try (a holder that finished meanwhile).
type claimer struct {
	mu       sync.Mutex
	always   map[string]bool
	once     map[string]bool
	tries    map[string]int
	released int
}

func (c *claimer) Claim(_ context.Context, conv, owner string, since int64) (func(bool), bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tries[conv]++
	if owner != "me" {
		return nil, false, fmt.Errorf("owner %q", owner)
	}
	if c.always[conv] || (c.once[conv] && c.tries[conv] == 1) {
		return nil, false, nil
	}
	return func(finished bool) {
		c.mu.Lock()
		if finished {
			c.released++
		}
		c.mu.Unlock()
	}, true, nil
}

// TestAllClaims: a conversation another runner holds is passed over, tried
// once more at the end, and counted as held only when still held then;
// every claim taken is released.
func TestAllClaims(t *testing.T) {
	s, _ := seedMany(t, 6, 6)
	c := &claimer{always: map[string]bool{"c-01": true}, once: map[string]bool{"c-03": true}, tries: map[string]int{}}
	var done []string
	tally, err := All(context.Background(), s, newRunner(t, &fake{}), AllOptions{Jobs: 2, Claims: c, Owner: "me",
		Done: func(res Result, err error) { done = append(done, res.Conversation) }})
	if err != nil {
		t.Fatal(err)
	}
	if tally.Held != 1 || tally.Summarized != 5 {
		t.Fatalf("tally %+v, want 1 held and 5 summarized", tally)
	}
	if c.tries["c-01"] != 2 || c.tries["c-03"] != 2 || c.tries["c-00"] != 1 {
		t.Errorf("claims tried %v: a held conversation is tried twice, others once", c.tries)
	}
	if c.released != 5 || slices.Contains(done, "c-01") {
		t.Errorf("%d claims released, done %v", c.released, done)
	}
}

// TestAllHugeJobs: -j past the number of conversations, up to the largest
// int, summarizes them all (2*Jobs workers once overflowed to none, and
// All waited forever).
func TestAllHugeJobs(t *testing.T) {
	s, _ := seedMany(t, 3, 6)
	tally, err := All(context.Background(), s, newRunner(t, &fake{}), AllOptions{Jobs: math.MaxInt})
	if err != nil || tally.Summarized != 3 {
		t.Fatalf("tally %+v, err %v", tally, err)
	}
}
