package retry

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

var errFlaky = errors.New("flaky")

// waits is a Sleep that notes each wait instead of taking it.
type waits []time.Duration

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	*w = append(*w, d)
	return nil
}

func flaky(err error) bool { return errors.Is(err, errFlaky) }

// TestDo: a retryable failure is tried again after the policy's wait until
// fn succeeds or Attempts calls were made; any other failure stops at
// once; fn hears its call's number and retried each failure with its wait.
// The waits are counted, not taken.
func TestDo(t *testing.T) {
	ctx := context.Background()
	var w waits
	p := Policy{Attempts: 4, Wait: func(attempt int, _ error) time.Duration { return time.Duration(attempt) * time.Second }, Sleep: w.sleep}

	var calls []int
	err := p.Do(ctx, flaky, nil, func(attempt int) error {
		if calls = append(calls, attempt); attempt < 3 {
			return errFlaky
		}
		return nil
	})
	if err != nil || !slices.Equal(calls, []int{1, 2, 3}) || !slices.Equal(w, waits{time.Second, 2 * time.Second}) {
		t.Fatalf("two failures then success: err %v, calls %v, waits %v", err, calls, w)
	}

	w, calls = nil, nil
	var heard []time.Duration
	err = p.Do(ctx, flaky, func(attempt int, err error, d time.Duration) {
		if !errors.Is(err, errFlaky) || d != time.Duration(attempt)*time.Second {
			t.Errorf("retried(%d, %v, %v)", attempt, err, d)
		}
		heard = append(heard, d)
	}, func(attempt int) error { calls = append(calls, attempt); return errFlaky })
	if !errors.Is(err, errFlaky) || len(calls) != 4 || !slices.Equal(heard, []time.Duration(w)) || len(w) != 3 {
		t.Fatalf("failing for good: err %v, calls %v (want 4), retried heard %v, waits %v", err, calls, heard, w)
	}

	for _, retryable := range []func(error) bool{flaky, nil} {
		n := 0
		other := errors.New("syntax error")
		if err := p.Do(ctx, retryable, nil, func(int) error { n++; return other }); err != other || n != 1 {
			t.Errorf("a failure not retryable: err %v after %d calls, want it after 1", err, n)
		}
	}

	for _, attempts := range []int{1, 0, -1} {
		n := 0
		one := Policy{Attempts: attempts, Sleep: w.sleep}
		if err := one.Do(ctx, flaky, nil, func(int) error { n++; return errFlaky }); !errors.Is(err, errFlaky) || n != 1 {
			t.Errorf("Attempts %d: err %v after %d calls, want one call", attempts, err, n)
		}
	}
}

// TestDoStopsWhenSleepFails: a wait cut short (ctx ended) ends Do with
// Sleep's error, and fn is not called again.
func TestDoStopsWhenSleepFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	p := Policy{Attempts: 5, Wait: func(int, error) time.Duration { return time.Hour }}
	if err := p.Do(ctx, flaky, nil, func(int) error { n++; return errFlaky }); !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("ctx ended: err %v after %d calls, want context.Canceled after 1", err, n)
	}
}

func TestExponential(t *testing.T) {
	for _, tc := range []struct {
		first, max time.Duration
		want       []time.Duration
	}{
		{100, 300, []time.Duration{100, 200, 300, 300}},
		{5, 1000, []time.Duration{5, 10, 20, 40, 80, 160, 320, 640}},
		{500, 300, []time.Duration{500, 300, 300}}, // a first above max is kept once
		{1, 0, []time.Duration{1, 0}},
		{1 << 62, 1<<63 - 1, []time.Duration{1 << 62, 1<<63 - 1, 1<<63 - 1}}, // no overflow
	} {
		wait := Exponential(tc.first, tc.max)
		var got []time.Duration
		for n := range tc.want {
			got = append(got, wait(n+1, nil))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Exponential(%d, %d) = %v, want %v", tc.first, tc.max, got, tc.want)
		}
	}
}

func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := Sleep(ctx, 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep after ctx ended = %v, want context.Canceled", err)
	}
}
