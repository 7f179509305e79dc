package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// LocalSlots books slots interval apart from the first call's now, never
// before now, and none once ctx ended; SlotLimit over it waits for each
// slot by its sleep. The clock is fake and the waits are counted.
func TestLocalSlots(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	var waits []time.Duration
	limit := SlotLimit(LocalSlots(100*time.Millisecond, clock), clock, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	ctx := context.Background()
	for range 3 {
		if err := limit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(time.Second) // a pause saves no slots up
	for range 2 {
		if err := limit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 100 * time.Millisecond}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("waits %v, want %v", waits, want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := limit(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("ctx ended: %v, want context.Canceled", err)
	}
}

func TestRateKey(t *testing.T) {
	for _, tc := range []struct{ provider, model, want string }{
		{"openai", "", "openai/gpt-4o-mini"},
		{"openai", "gpt-4o", "openai/gpt-4o"},
		{"extractive", "", "extractive"},
		{"exec", "m", "exec/m"},
	} {
		if got := RateKey(tc.provider, tc.model); got != tc.want {
			t.Errorf("RateKey(%q, %q) = %q, want %q", tc.provider, tc.model, got, tc.want)
		}
	}
}
