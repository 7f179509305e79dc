package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/convo-cli/convo/pkg/retry"
)

// Backoff is how a call that failed for a transient reason (the database
// restarting, its connections all taken) is tried again: Attempts calls in
// all, the n-th wait First·2^(n-1), at most Max, each scaled by a random
// factor between 0.75 and 1.25 so that runners refused together do not
// come back together.
type Backoff struct {
	Attempts   int
	First, Max time.Duration
	// Sleep waits d or until ctx ends (nil: a timer); tests count the
	// waits instead of taking them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultBackoff bridges a server restart or a full connection table of
// up to about 10 s: 9 calls, 8 waits of 0.1, 0.2, 0.4, 0.8, 1.6, 2, 2 and
// 2 s (9.1 s, give or take a quarter).
var DefaultBackoff = Backoff{Attempts: 9, First: 100 * time.Millisecond, Max: 2 * time.Second}

// policy is b as a retry.Policy.
func (b Backoff) policy() retry.Policy {
	exp := retry.Exponential(b.First, b.Max)
	return retry.Policy{Attempts: b.Attempts, Sleep: b.Sleep, Wait: func(attempt int, err error) time.Duration {
		// A server that said when to come back (HTTP Retry-After) is
		// taken at its word; the error caps what it asks.
		var asked interface{ RetryAfter() time.Duration }
		if errors.As(err, &asked) && asked.RetryAfter() > 0 {
			return asked.RetryAfter()
		}
		return time.Duration(float64(exp(attempt, err)) * (0.75 + rand.Float64()/2))
	}}
}

// Do calls fn until it succeeds, fails for a reason transient does not
// accept, ctx ends, or b.Attempts calls were made; it returns fn's last
// error (ctx's when ctx ended during a wait). retried, when set, hears each
// failure that will be tried again. An error with a method RetryAfter()
// time.Duration that returns more than 0 sets the wait before the next call.
func (b Backoff) Do(ctx context.Context, transient func(error) bool, retried func(attempt int, err error), fn func() error) error {
	return b.policy().Do(ctx, func(err error) bool {
		return transient != nil && transient(err) && ctx.Err() == nil
	}, func(attempt int, err error, _ time.Duration) {
		if retried != nil {
			retried(attempt, err)
		}
	}, func(int) error { return fn() })
}
