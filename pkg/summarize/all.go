package summarize

import (
	"context"
	"errors"
	"fmt"
	"sync"

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
	Failed        int
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
	var ids []string
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error {
		ids = append(ids, c.ID)
		return nil
	}); err != nil {
		return Tally{}, err
	}
	if opt.Start != nil {
		opt.Start(len(ids))
	}
	// No more requests in flight than conversations: more would be idle,
	// and 2*jobs below must not overflow (-j 9223372036854775807).
	jobs := min(max(opt.Jobs, 1), max(len(ids), 1))
	run := *r
	run.slots = make(chan struct{}, jobs)
	var (
		mu    sync.Mutex
		tally = Tally{Conversations: len(ids)}
		work  = make(chan string)
		wg    sync.WaitGroup
	)
	// Twice as many workers as requests in flight: while half wait on the
	// summarizer, the others read and write the store.
	for range min(2*jobs, max(len(ids), 1)) {
		wg.Go(func() {
			for conv := range work {
				res, err := run.Run(ctx, s, conv)
				mu.Lock()
				switch {
				case err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled):
					tally.Interrupted++
				case err != nil:
					tally.Failed++
					tally.Failures = append(tally.Failures, Failure{Conversation: conv, Err: err})
				case res.Skip == SkipNothing:
					tally.Nothing++
				case res.Skip == SkipTrigger:
					tally.NotDue++
				case res.Summary != nil:
					tally.Summarized++
				}
				if opt.Done != nil {
					opt.Done(res, err)
				}
				mu.Unlock()
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
	if err := ctx.Err(); err != nil {
		return tally, err
	}
	if tally.Failed > 0 {
		return tally, fmt.Errorf("%d of %d conversations %w", tally.Failed, len(ids), ErrFailed)
	}
	return tally, nil
}
