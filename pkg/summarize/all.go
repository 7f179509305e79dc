package summarize

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

// AllOptions shape a run over every stored conversation.
type AllOptions struct {
	// Jobs bounds the summarizer requests in flight (-j); below 1 means 1.
	Jobs int
	// Start, when set, is called once the conversations are listed, with
	// their number, before any is summarized.
	Start func(total int)
	// Done, when set, is called as each conversation finishes, with its
	// result or failure; calls never overlap.
	Done func(Result, error)
	// Claims, when set, makes runs that share the store split the work: a
	// conversation is summarized only under a claim, as Owner, and one
	// another runner holds is passed over, then tried once more at the end
	// (its holder may have died).
	Claims Claimer
	Owner  string
	// ClaimSince is when this run began (ms, the store's clock): what
	// another runner finished since is passed over without being read.
	ClaimSince int64
	// Transient, when set, reports a failure of the store that may pass
	// (a connection lost or refused, too many clients): a conversation
	// that failed so is claimed and summarized again, paced by Backoff,
	// before it counts as failed; so is the listing. Only the store's own
	// failures are asked about, never a summarizer's.
	Transient func(error) bool
	// Backoff paces those tries; zero: store.DefaultBackoff.
	Backoff store.Backoff
}

// Claimer hands out claims on conversations; a store.Store is one.
type Claimer interface {
	Claim(ctx context.Context, conv, owner string, since int64) (release func(finished bool), ok bool, err error)
}

// heldUntil is a Claimer that tells until when other runners' claims last
// at most (a store.Store does).
type heldUntil interface {
	HeldUntil(ctx context.Context, convs []string) (time.Time, error)
}

// Failure is one conversation that failed to summarize.
type Failure struct {
	Conversation string
	Err          error
}

// Tally counts what All came to.
type Tally struct {
	Conversations int // listed
	Summarized    int
	Nothing       int // nothing to cover
	NotDue        int // under the trigger
	Held          int // claimed by another runner throughout
	Failed        int
	// HeldUntil is when the last of the Held claims lapses unless its
	// runner renews it (a lease; zero when unknown: claims that last as
	// long as their runner).
	HeldUntil time.Time
	// Interrupted counts the conversations ctx's end stopped midway: left
	// as they were, neither failed nor summarized.
	Interrupted int
	// Failures are the failed conversations, in the order they failed.
	Failures []Failure
}

// ErrFailed is All's error when some conversations failed to summarize.
var ErrFailed = errors.New("failed to summarize")

// All runs r over every conversation of s, opt.Jobs summarizer requests at
// a time. One conversation's failure is counted and reported through
// opt.Done while the rest go on. The error is the listing's (nothing was
// summarized), ctx's when it ended early, or ErrFailed (wrapped) when any
// conversation failed.
func All(ctx context.Context, s Store, r *Runner, opt AllOptions) (Tally, error) {
	if opt.Backoff.Attempts == 0 {
		opt.Backoff = store.DefaultBackoff
	}
	s = storeErrors{s}
	var ids []string
	if err := opt.Backoff.Do(ctx, opt.transient, nil, func() error {
		ids = ids[:0]
		return s.Conversations(ctx, func(c store.ConversationInfo) error {
			ids = append(ids, c.ID)
			return nil
		})
	}); err != nil {
		return Tally{}, err
	}
	if opt.Start != nil {
		opt.Start(len(ids))
	}
	// No more requests in flight than conversations: more would be idle,
	// and 2*jobs below must not overflow (-j 9223372036854775807).
	jobs := min(max(opt.Jobs, 1), max(len(ids), 1))
	a := &allRun{s: s, opt: opt, jobs: jobs, tally: Tally{Conversations: len(ids)}}
	a.run = *r
	a.run.slots = make(chan struct{}, a.jobs)
	held := a.pass(ctx, ids, false)
	if len(held) > 0 && ctx.Err() == nil {
		// Their holders may have finished or died since: look once more.
		held = a.pass(ctx, held, true)
	}
	if h, ok := opt.Claims.(heldUntil); ok && len(held) > 0 && ctx.Err() == nil {
		a.tally.HeldUntil, _ = h.HeldUntil(ctx, held) // the tally's detail; a failure loses only it
	}
	if err := ctx.Err(); err != nil {
		return a.tally, err
	}
	if a.tally.Failed > 0 {
		return a.tally, fmt.Errorf("%d of %d conversations %w", a.tally.Failed, len(ids), ErrFailed)
	}
	return a.tally, nil
}

// allRun is one All: the runner its workers share and what they came to.
type allRun struct {
	s     Store
	run   Runner
	opt   AllOptions
	jobs  int
	mu    sync.Mutex
	tally Tally
}

// pass summarizes ids with the worker pool and returns those another
// runner held; on the last pass they count as Held too.
func (a *allRun) pass(ctx context.Context, ids []string, last bool) (held []string) {
	work := make(chan string)
	var wg sync.WaitGroup
	// Twice as many workers as requests in flight: while half wait on the
	// summarizer, the others read and write the store.
	for range min(2*a.jobs, max(len(ids), 1)) {
		wg.Go(func() {
			for conv := range work {
				res, ok, err := a.one(ctx, conv)
				a.mu.Lock()
				switch {
				case !ok:
					held = append(held, conv)
					if last {
						a.tally.Held++
					}
				default:
					a.count(ctx, res, err)
				}
				a.mu.Unlock()
			}
		})
	}
feed:
	for _, id := range ids {
		select {
		case work <- id:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return held
}

// one summarizes conv, under a claim when the run has claims; ok is false
// when another runner holds it. A failure of the store that may pass is
// tried again, claim and all, paced by opt.Backoff: the conversation is
// read afresh, so a summary that was stored after all is not made twice.
func (a *allRun) one(ctx context.Context, conv string) (res Result, ok bool, err error) {
	err = a.opt.Backoff.Do(ctx, a.opt.transient, nil, func() error {
		res, ok, err = a.once(ctx, conv)
		return err
	})
	return res, ok, err
}

// once is one try of one.
func (a *allRun) once(ctx context.Context, conv string) (res Result, ok bool, err error) {
	if a.opt.Claims != nil {
		release, ok, err := a.opt.Claims.Claim(ctx, conv, a.opt.Owner, a.opt.ClaimSince)
		if err != nil {
			return Result{Conversation: conv}, true, &storeError{err}
		}
		if !ok {
			return Result{Conversation: conv}, false, nil
		}
		// Finished unless it failed: a failure is for the others to retry.
		defer func() { release(err == nil) }()
	}
	// Read under the claim: a conversation another runner summarized
	// meanwhile is no longer due.
	res, err = a.run.Run(ctx, a.s, conv)
	res.Conversation = conv
	return res, true, err
}

// count adds one finished conversation to the tally; the caller holds mu.
func (a *allRun) count(ctx context.Context, res Result, err error) {
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled):
		a.tally.Interrupted++
	case err != nil:
		a.tally.Failed++
		a.tally.Failures = append(a.tally.Failures, Failure{Conversation: res.Conversation, Err: err})
	case res.Skip.NothingToCover():
		a.tally.Nothing++
	case res.Skip.TriggerNotMet():
		a.tally.NotDue++
	case res.Summary != nil:
		a.tally.Summarized++
	}
	if a.opt.Done != nil {
		a.opt.Done(res, err)
	}
}

// transient reports a failure of the store (marked by storeErrors) that
// opt.Transient says may pass.
func (opt *AllOptions) transient(err error) bool {
	var se *storeError
	return opt.Transient != nil && errors.As(err, &se) && opt.Transient(se.err)
}

// storeError is a failure of the store itself, not of what a read's
// callback did with a record (the summarizer, a corrupt record).
type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// storeErrors marks the store's own failures as storeErrors.
type storeErrors struct{ Store }

func (s storeErrors) Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error {
	var fnErr error
	err := s.Store.Read(ctx, conv, opt, func(r store.Row) error {
		fnErr = fn(r)
		return fnErr
	})
	return markStore(err, fnErr)
}

func (s storeErrors) WriteSummary(ctx context.Context, conv string, sw store.SummaryWrite) error {
	return markStore(s.Store.WriteSummary(ctx, conv, sw), nil)
}

func (s storeErrors) Conversations(ctx context.Context, fn func(store.ConversationInfo) error) error {
	var fnErr error
	err := s.Store.Conversations(ctx, func(c store.ConversationInfo) error {
		fnErr = fn(c)
		return fnErr
	})
	return markStore(err, fnErr)
}

// markStore marks err unless it is the callback's own fnErr.
func markStore(err, fnErr error) error {
	if err == nil || (fnErr != nil && errors.Is(err, fnErr)) {
		return err
	}
	return &storeError{err}
}
