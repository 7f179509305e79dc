package llm

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/retry"
)

// SlotLimit is an Options.Limit that paces requests by reserved slots:
// reserve books the next request slot (for instance in a store every
// process shares, so that N processes together keep one rate) and returns
// when it starts; the request waits until then, by sleep (nil:
// retry.Sleep). Called before every attempt, retries included, so a retry
// counts against the rate too.
func SlotLimit(reserve func(context.Context) (time.Time, error), now func() time.Time, sleep func(context.Context, time.Duration) error) func(context.Context) error {
	if sleep == nil {
		sleep = retry.Sleep
	}
	return func(ctx context.Context) error {
		slot, err := reserve(ctx)
		if err != nil {
			return err
		}
		if d := slot.Sub(now()); d > 0 {
			return sleep(ctx, d)
		}
		return nil
	}
}

// LocalSlots is a SlotLimit's reserve that no other process shares: slots
// interval apart in this process's memory, the first at once, and a slot
// never earlier than now (a pause saves no slots up); none once ctx ended.
func LocalSlots(interval time.Duration, now func() time.Time) func(context.Context) (time.Time, error) {
	var mu sync.Mutex
	var next time.Time
	return func(ctx context.Context) (time.Time, error) {
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
		mu.Lock()
		defer mu.Unlock()
		slot := next
		if t := now(); t.After(slot) {
			slot = t
		}
		next = slot.Add(interval)
		return slot, nil
	}
}

// RateKey is the key of a provider's quota among the shared rate slots
// (store.Store's RateSlot): provider/model, the registry's default model
// when model is empty; for a summarizer the registry does not know, its
// name, with the model when one is given. ask and summarize use it, so one
// quota paces both.
func RateKey(provider, model string) string {
	if p, ok := format.Lookup(provider); ok {
		return provider + "/" + cmp.Or(model, p.DefaultModel)
	}
	if model != "" {
		return provider + "/" + model
	}
	return provider
}

// ParseRate reads a rate N/PERIOD ("10/1s", "60/m", "500/1h"): at most N
// requests per PERIOD, spaced evenly, as the interval between two
// requests (PERIOD/N). "" means no limit: 0. An error quotes v.
func ParseRate(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	n, per, ok := strings.Cut(v, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count <= 0 {
		return 0, fmt.Errorf("%q: want N/PERIOD, e.g. 10/1s or 60/m", v)
	}
	switch per {
	case "s", "sec":
		per = "1s"
	case "m", "min":
		per = "1m"
	case "h":
		per = "1h"
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: bad period %q", v, per)
	}
	interval := d / time.Duration(count)
	if interval == 0 {
		// An interval of 0 would be no limit at all.
		return 0, fmt.Errorf("%q: more than one request a nanosecond", v)
	}
	return interval, nil
}
