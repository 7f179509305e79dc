package ask

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/convo-cli/convo/pkg/llm"
)

// callKey keys the *call of a Run in the context it gives Send.
type callKey struct{}

// call is what Limit needs of the Run whose request is being sent.
type call struct {
	s        Store
	key      string // llm.RateKey: the limiter every process shares
	interval time.Duration
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	start    atomic.Int64 // ms when the first attempt began, 0 before
}

// Limit is the rate hook of the transports ask sends through: give it to
// llm.Options.Limit. The transport calls it before every attempt, retries
// included, with the context Run passed to Send; it then waits for the
// next slot of the turn's limiter (Turn.Rate, one slot an attempt, shared
// with every process on the store through Store.RateSlot: requests are
// delayed, never failed) and notes when the first attempt began, the user
// record's timing.llmStart. With any other context it does nothing. A
// transport that never calls it sends at once, whatever Turn.Rate says.
func Limit(ctx context.Context) error {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok {
		return nil
	}
	if c.interval > 0 {
		reserve := func(ctx context.Context) (time.Time, error) { return c.s.RateSlot(ctx, c.key, c.interval) }
		if err := llm.SlotLimit(reserve, c.now, c.sleep)(ctx); err != nil {
			return err
		}
	}
	c.start.CompareAndSwap(0, c.now().UnixMilli())
	return nil
}
