// Package retry is the one loop that tries a failed call again: a Policy
// (how many calls, how long each wait), Do, and a Sleep that ends with its
// context. Each caller keeps its own parameters and its own idea of what
// is worth retrying: the store's backoff, a provider call's Retry-After,
// a transaction the database aborted, SQLite's busy open, DynamoDB's
// unprocessed items.
package retry

import (
	"context"
	"time"
)

// Policy says how often a failed call is tried and how long to wait
// between the calls.
type Policy struct {
	// Attempts counts every call, the first included; 1 or less makes one.
	Attempts int
	// Wait is the wait after the attempt-th failure, err (nil: none).
	Wait func(attempt int, err error) time.Duration
	// Sleep waits d or until ctx ends (nil: Sleep); tests count the waits
	// instead of taking them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Do calls fn until it returns nil, fails for a reason retryable does not
// accept (nil accepts none), or p.Attempts calls were made, and returns
// fn's last error; a wait that ends early (ctx ended) returns Sleep's
// error instead. fn hears which call it is, from 1; retried, when set,
// hears each failure that will be tried again and the wait before that.
func (p Policy) Do(ctx context.Context, retryable func(error) bool, retried func(attempt int, err error, wait time.Duration), fn func(attempt int) error) error {
	sleep := p.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	for attempt := 1; ; attempt++ {
		err := fn(attempt)
		if err == nil || retryable == nil || !retryable(err) || attempt >= p.Attempts {
			return err
		}
		var d time.Duration
		if p.Wait != nil {
			d = p.Wait(attempt, err)
		}
		if retried != nil {
			retried(attempt, err, d)
		}
		if serr := sleep(ctx, d); serr != nil {
			return serr
		}
	}
}

// Exponential is a Wait that doubles: first after the first failure, then
// twice the wait before, at most max (a first above max is kept once).
func Exponential(first, max time.Duration) func(attempt int, err error) time.Duration {
	return func(attempt int, _ error) time.Duration {
		d := first
		for n := 1; n < attempt; n++ {
			if d >= max-d {
				d = max
			} else {
				d *= 2
			}
		}
		return d
	}
}

// Sleep waits d or until ctx ends, whichever comes first; it returns ctx's
// error when ctx ended first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
