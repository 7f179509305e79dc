package ask

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// fakeClock is a clock that moves only when something sleeps on it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// TestRate: with Turn.Rate, every attempt, retries included, takes the
// next slot of the provider and model's limiter in the store, shared by
// every store opened on the same file (other processes), and waits for it;
// llmStart is when the first attempt's wait ended. Slots are counted on a
// clock that moves only when a wait sleeps on it, so nothing here depends
// on how fast the machine is.
func TestRate(t *testing.T) {
	p := providers[0]
	e := newEnv(t, p, llm.Options{}, step{Answer: &answer{Text: "ok"}}, step{Answer: &answer{Text: "ok"}},
		step{Status: 500, Error: "busy"}, step{Answer: &answer{Text: "ok"}})
	clock := &fakeClock{now: time.UnixMilli(1744815823058)}
	e.s.Now = clock.Now
	e.asker.Now, e.asker.Sleep = clock.Now, clock.Sleep
	// A second store on the same file, as another process has.
	path := dbPath(t, e.s)
	s2, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	s2.Now = clock.Now

	ask := func(s Store, model string) Result {
		t.Helper()
		turn := e.turn("Hi")
		turn.Rate = 100 * time.Millisecond
		turn.Request.Model = model
		res, err := e.asker.Run(context.Background(), s, e.tr, turn)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t0 := clock.Now().UnixMilli()
	first := ask(e.s, "gpt-4o-mini")     // slot t0: no wait
	second := ask(s2, "gpt-4o-mini")     // slot t0+100ms
	third := ask(e.s, "gpt-4o-mini")     // a 500 then success: slots t0+200ms and t0+300ms
	elsewhere := ask(s2, "gpt-4.1-nano") // another model, another limiter: no wait
	if want := []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}; !slices.Equal(clock.sleeps, want) {
		t.Errorf("waits %v, want %v", clock.sleeps, want)
	}
	if len(e.delays) != 1 {
		t.Errorf("retry waits %v, want one", e.delays)
	}
	for i, tc := range []struct {
		res   Result
		start int64
	}{{first, t0}, {second, t0 + 100}, {third, t0 + 200}, {elsewhere, t0 + 300}} {
		if tc.res.LLMStart != tc.start || tc.res.User.Metadata.Timing.LLMStart == nil || *tc.res.User.Metadata.Timing.LLMStart != tc.start {
			t.Errorf("ask %d: llmStart %d, want %d", i, tc.res.LLMStart, tc.start)
		}
	}
	if n := len(e.srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
}

// Limit does nothing outside Run, and a turn without Rate takes no slot.
func TestLimitOutsideRun(t *testing.T) {
	if err := Limit(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, providers[0], llm.Options{})
	clock := &fakeClock{now: time.UnixMilli(1744815823058)}
	e.s.Now, e.asker.Now, e.asker.Sleep = clock.Now, clock.Now, clock.Sleep
	for range 3 {
		if _, err := e.run(e.turn("Hi")); err != nil {
			t.Fatal(err)
		}
	}
	if len(clock.sleeps) != 0 {
		t.Errorf("waits %v without a rate", clock.sleeps)
	}
}

// dbPath is the file s was opened on.
func dbPath(t *testing.T, s *sqlstore.Store) string {
	t.Helper()
	var seq int
	var name, file string
	if err := s.DB().QueryRow(`PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}
