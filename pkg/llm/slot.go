package llm

import (
	"context"
	"time"

	"github.com/convo-cli/convo/pkg/retry"
)

// SlotLimit is an Options.Limit that paces requests by reserved slots:
// reserve books the next request slot (for instance in a store every
// process shares, so that N processes together keep one rate) and returns
// when it starts; the request waits until then. Called before every
// attempt, retries included, so a retry counts against the rate too.
func SlotLimit(reserve func(context.Context) (time.Time, error), now func() time.Time) func(context.Context) error {
	return func(ctx context.Context) error {
		slot, err := reserve(ctx)
		if err != nil {
			return err
		}
		if d := slot.Sub(now()); d > 0 {
			return retry.Sleep(ctx, d)
		}
		return nil
	}
}
