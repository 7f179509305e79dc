package summarize

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

var errUnreachable = errors.New("connection refused")

// flakyStore fails the listing, reads and writes of given conversations
// with errUnreachable a given number of times, as a restarting server
// would.
type flakyStore struct {
	Store
	mu            sync.Mutex
	list          int
	reads, writes map[string]int
	readsTried    map[string]int
}

func (s *flakyStore) fail(left map[string]int, conv string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if left[conv] > 0 {
		left[conv]--
		return true
	}
	return false
}

func (s *flakyStore) Conversations(ctx context.Context, fn func(store.ConversationInfo) error) error {
	s.mu.Lock()
	fail := s.list > 0
	if fail {
		s.list--
	}
	s.mu.Unlock()
	if fail {
		return errUnreachable
	}
	return s.Store.Conversations(ctx, fn)
}

func (s *flakyStore) Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error {
	s.mu.Lock()
	s.readsTried[conv]++
	s.mu.Unlock()
	if s.fail(s.reads, conv) {
		return errUnreachable
	}
	return s.Store.Read(ctx, conv, opt, fn)
}

func (s *flakyStore) WriteSummary(ctx context.Context, conv string, sw store.SummaryWrite) error {
	if s.fail(s.writes, conv) {
		return errUnreachable
	}
	return s.Store.WriteSummary(ctx, conv, sw)
}

// TestAllRetriesStoreOutOfReach: a store that cannot be reached for a
// while (its listing, a read, a write) fails no conversation: each is
// tried again, paced by the backoff, whose waits are counted here; a
// failure the store does not call transient fails at once, and so does a
// summarizer's failure whatever Transient would say of it: a provider
// retries on its own, and is paid per call.
func TestAllRetriesStoreOutOfReach(t *testing.T) {
	base, ids := seedMany(t, 6, 6)
	s := &flakyStore{Store: base, list: 2,
		reads:      map[string]int{"c-00": 3, "c-01": 1},
		writes:     map[string]int{"c-03": 2},
		readsTried: map[string]int{}}
	f := &fake{fail: func(in Input) bool { return in.Records[0].Conversation == "c-05" }}
	waits := 0
	var mu sync.Mutex
	opt := AllOptions{Jobs: 2,
		Transient: func(err error) bool { return true }, // even the summarizer's: it must not be asked
		Backoff: store.Backoff{Attempts: 5, First: time.Millisecond, Max: time.Millisecond,
			Sleep: func(context.Context, time.Duration) error { mu.Lock(); waits++; mu.Unlock(); return nil }}}
	tally, err := All(context.Background(), s, newRunner(t, f), opt)
	if !errors.Is(err, ErrFailed) || tally.Summarized != 5 || tally.Failed != 1 || tally.Failures[0].Conversation != "c-05" {
		t.Fatalf("tally %+v, err %v; want 5 summarized and c-05 failed", tally, err)
	}
	if want := 2 + 3 + 1 + 2; waits != want {
		t.Errorf("%d waits, want one per failure to reach the store (%d)", waits, want)
	}
	if n := f.calls.Load(); n != int32(len(ids))+2 {
		// c-03's write failed twice: its summary was made three times;
		// c-05's summarizer failure was not tried again.
		t.Errorf("%d summarizer calls, want %d", n, len(ids)+2)
	}
	for _, id := range ids {
		if got := strings.Count(dump(t, base, id), `"role":"summary"`); got != map[bool]int{true: 0, false: 1}[id == "c-05"] {
			t.Errorf("%s holds %d summaries", id, got)
		}
	}

	// Without Transient, or for a failure it does not accept, no retry.
	base2, _ := seedMany(t, 2, 6)
	s2 := &flakyStore{Store: base2, reads: map[string]int{"c-00": 1}, writes: map[string]int{}, readsTried: map[string]int{}}
	opt.Transient = func(err error) bool { return false }
	tally, err = All(context.Background(), s2, newRunner(t, &fake{}), opt)
	if !errors.Is(err, ErrFailed) || tally.Failed != 1 || !errors.Is(tally.Failures[0].Err, errUnreachable) || s2.readsTried["c-00"] != 1 {
		t.Fatalf("tally %+v, err %v, reads of c-00 %d; want it failed after one read", tally, err, s2.readsTried["c-00"])
	}
}

// leaseClaimer is a claimer whose claims are leases: it says until when
// the held ones last.
type leaseClaimer struct {
	*claimer
	until time.Time
	asked []string
}

func (c *leaseClaimer) HeldUntil(_ context.Context, convs []string) (time.Time, error) {
	c.asked = slices.Sorted(slices.Values(convs))
	return c.until, nil
}

// TestAllHeldUntil: the tally says until when the conversations held
// throughout are claimed at most, asking about those alone.
func TestAllHeldUntil(t *testing.T) {
	s, _ := seedMany(t, 4, 6)
	until := time.UnixMilli(1_744_815_853_000)
	c := &leaseClaimer{claimer: &claimer{always: map[string]bool{"c-01": true, "c-02": true}, once: map[string]bool{"c-03": true}, tries: map[string]int{}}, until: until}
	tally, err := All(context.Background(), s, newRunner(t, &fake{}), AllOptions{Jobs: 2, Claims: c, Owner: "me"})
	if err != nil || tally.Held != 2 || !tally.HeldUntil.Equal(until) {
		t.Fatalf("tally %+v, err %v; want 2 held until %v", tally, err, until)
	}
	if !slices.Equal(c.asked, []string{"c-01", "c-02"}) {
		t.Errorf("asked HeldUntil of %v, want the two held", c.asked)
	}
}
