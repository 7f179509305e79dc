package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

var errFlaky = errors.New("connection refused")

// TestBackoff: a transient failure is tried again, each wait twice the
// one before (give or take a quarter) up to Max, until the call succeeds
// or Attempts calls were made; any other failure, or ctx's end, stops it
// at once. The waits are counted, not taken.
func TestBackoff(t *testing.T) {
	var waits []time.Duration
	b := Backoff{Attempts: 5, First: 100 * time.Millisecond, Max: 300 * time.Millisecond,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	transient := func(err error) bool { return errors.Is(err, errFlaky) }
	ctx := context.Background()

	calls := 0
	err := b.Do(ctx, transient, nil, func() error {
		if calls++; calls < 3 {
			return errFlaky
		}
		return nil
	})
	if err != nil || calls != 3 || len(waits) != 2 {
		t.Fatalf("two failures then success: err %v, %d calls, %d waits", err, calls, len(waits))
	}

	calls, waits = 0, nil
	var heard []int
	err = b.Do(ctx, transient, func(attempt int, _ error) { heard = append(heard, attempt) }, func() error { calls++; return errFlaky })
	if !errors.Is(err, errFlaky) || calls != 5 || len(heard) != 4 {
		t.Fatalf("failing for good: err %v, %d calls (want 5), retries heard %v", err, calls, heard)
	}
	for i, base := range []time.Duration{100, 200, 300, 300} {
		base *= time.Millisecond
		if w := waits[i]; w < base*3/4 || w > base*5/4 {
			t.Errorf("wait %d = %v, want %v give or take a quarter", i+1, w, base)
		}
	}

	calls = 0
	other := errors.New("syntax error")
	if err := b.Do(ctx, transient, nil, func() error { calls++; return other }); err != other || calls != 1 {
		t.Fatalf("a failure that is not transient: err %v after %d calls, want it after 1", err, calls)
	}

	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	err = b.Do(cctx, transient, nil, func() error { calls++; cancel(); return errFlaky })
	if !errors.Is(err, errFlaky) || calls != 1 {
		t.Fatalf("ctx ended: err %v after %d calls, want the failure after 1", err, calls)
	}
}

// TestDefaultBackoffBridgesSeconds: the default tries for longer than a
// server takes to restart (a second or two), and not for ever.
func TestDefaultBackoffBridgesSeconds(t *testing.T) {
	var total time.Duration
	b := DefaultBackoff
	b.Sleep = func(_ context.Context, d time.Duration) error { total += d; return nil }
	b.Do(context.Background(), func(error) bool { return true }, nil, func() error { return errFlaky })
	if total < 5*time.Second || total > 15*time.Second {
		t.Errorf("the default waits %v in all, want between 5 and 15 s", total)
	}
}

// askingErr is a failure whose server said when to come back.
type askingErr struct{ after time.Duration }

func (e askingErr) Error() string             { return "429" }
func (e askingErr) RetryAfter() time.Duration { return e.after }

// TestBackoffTakesRetryAfter: an error that says how long to wait sets the
// wait, wrapped or not; one that says 0 leaves the backoff's own.
func TestBackoffTakesRetryAfter(t *testing.T) {
	var waits []time.Duration
	b := Backoff{Attempts: 3, First: 100 * time.Millisecond, Max: time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	errs := []error{fmt.Errorf("send: %w", askingErr{7 * time.Second}), askingErr{0}}
	calls := 0
	b.Do(context.Background(), func(error) bool { return true }, nil, func() error {
		calls++
		if calls > len(errs) {
			return nil
		}
		return errs[calls-1]
	})
	if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] < 150*time.Millisecond || waits[1] > 250*time.Millisecond {
		t.Fatalf("waits %v, want 7s (asked) then about 200ms (the backoff's second)", waits)
	}
}
