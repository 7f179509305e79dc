package summarize

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Store is what summarizing stored conversations reads and writes.
// store.Store satisfies it.
type Store interface {
	// Read calls fn for each record of conv opt selects, in transcript
	// order; a missing conversation is store.ErrNotFound (wrapped).
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
	// WriteSummary stores a summary in one transaction; with sw.Check, a
	// conversation changed since it was read is store.ErrConflict and
	// nothing is written.
	WriteSummary(ctx context.Context, conv string, sw store.SummaryWrite) error
	// Conversations calls fn for every conversation (All only).
	Conversations(ctx context.Context, fn func(store.ConversationInfo) error) error
}

// Runner summarizes a conversation by one policy: Options decide whether
// and what to cover, Summarizer writes the summary.
type Runner struct {
	Options Options
	// Summarizer writes the summaries; it may be nil under DryRun.
	Summarizer Summarizer
	// DryRun makes the summarizer's input text the result; nothing is
	// sent or written.
	DryRun bool
	// DeleteOriginals deletes the covered records in the transaction that
	// stores the summary.
	DeleteOriginals bool
	// Wait, when set, is called before each summarizer request: the rate
	// hook (--rate). It delays; its error ends the summarization.
	Wait func(context.Context) error
	// IDs and Now make the summary record's id and creation time (nil:
	// a fresh generator and the system clock).
	IDs *transcript.IDs
	Now func() time.Time
	// Logger hears one line per summary made (nil: none).
	Logger *slog.Logger
	// LongWrite, when set, is called before the summary of a span of more
	// than LongSpan records is written, and what it returns once it is:
	// such a summary holds tens of megabytes of ids, and the process's
	// memory policy around it is the caller's, not a library's.
	LongWrite func() (done func())

	// slots, when set (by All), bounds the summarizer requests in flight;
	// the store reads and writes around them run in more workers, so they
	// overlap with the waits instead of adding to them.
	slots chan struct{}
}

// Result is what summarizing one conversation came to: a summary made, a
// reason to make none, or (DryRun) the text the summarizer would receive.
type Result struct {
	Conversation string
	// Summary is the summary record written (placed, in Transform).
	Summary *transcript.Record
	// Skip says why nothing was summarized.
	Skip Skip
	// DryRun is the summarizer's input, under Runner.DryRun when there is
	// something to summarize.
	DryRun string
}

// Run summarizes the stored conversation conv. It reads the records from
// the latest summary on, runs the summarizer and stores the summary right
// after the last record it covers. A summarizer failure writes nothing; a
// conversation changed by another writer meanwhile is store.ErrConflict
// and writes nothing.
func (r *Runner) Run(ctx context.Context, s Store, conv string) (Result, error) {
	// A span is read once and held, unless it is long and the summarizer
	// reads records: then it is streamed from the store, read again as the engine needs
	// (runStored), in bounded memory.
	streams := readsRecords(r.Summarizer) && !r.DryRun
	var recs []transcript.Record
	var readSeq int64
	held := 0
	err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		if held += len(row.Body); streams && held > maxHeldBytes {
			return errTooLong
		}
		var rec transcript.Record
		if err := transcript.DecodeStored(row.Body, &rec); err != nil {
			return fmt.Errorf("stored record is corrupt: %w", err)
		}
		rec.Conversation = conv
		readSeq = max(readSeq, row.Seq)
		recs = append(recs, rec)
		return nil
	})
	if errors.Is(err, errTooLong) {
		recs = nil
		return r.runStored(ctx, s, conv)
	}
	if err != nil {
		return Result{Conversation: conv}, err
	}
	sum, res, err := r.summarize(ctx, recs)
	res.Conversation = conv
	if err != nil || sum == nil {
		return res, err
	}
	return r.write(ctx, s, conv, sum, res, readSeq)
}

// runStored is Run for a summarizer that reads records, not text
// (Extractive): the records are streamed from the store, never held, so a
// conversation of any length is summarized in bounded memory.
func (r *Runner) runStored(ctx context.Context, s Store, conv string) (Result, error) {
	if r.Options.Counter == nil {
		return Result{Conversation: conv}, errors.New("summarize: no token counter")
	}
	plan, skip, readSeq, err := prepareStored(ctx, s, conv, r.Options)
	if err != nil || plan == nil {
		return Result{Conversation: conv, Skip: skip}, err
	}
	long := len(plan.Span.Covered) > LongSpan
	sum, res, err := r.run(ctx, plan)
	res.Conversation = conv
	if err != nil || sum == nil {
		return res, err
	}
	if long {
		sum.span = transcript.Span{}
		if r.LongWrite != nil {
			defer r.LongWrite()()
		}
	}
	return r.write(ctx, s, conv, sum, res, readSeq)
}

// maxHeldBytes bounds the stored bytes of a span read once and held; a
// longer one is streamed (a var: tests shrink it).
var maxHeldBytes = 16 << 20

var errTooLong = errors.New("span too long to hold")

// LongSpan is the number of covered records past which a summary is
// written as a long span's (see Runner.LongWrite).
const LongSpan = 1 << 17

// write stores a summary made of records read at change sequence readSeq.
func (r *Runner) write(ctx context.Context, s Store, conv string, sum *placed, res Result, readSeq int64) (Result, error) {
	err := s.WriteSummary(ctx, conv, store.SummaryWrite{
		Anchor: sum.anchor, Summary: &sum.record, Placeholder: sum.placeholder, DeleteCovered: r.DeleteOriginals,
		Check: true, PreviousID: sum.previousID, ReadSeq: readSeq,
	})
	if err != nil {
		return Result{Conversation: conv}, err
	}
	res.Summary = &sum.record
	return res, nil
}

// placed is a summary record and where it goes.
type placed struct {
	record     transcript.Record
	anchor     string
	span       transcript.Span
	previousID string // the summary it follows ("" for none)
	// placeholder goes right after the summary when its cut fell inside
	// a turn (rule 2).
	placeholder *transcript.Record
}

// after is what goes right after the summary: its placeholder, if any.
func (p *placed) after() []transcript.Record {
	if p.placeholder == nil {
		return nil
	}
	return []transcript.Record{*p.placeholder}
}

// summarize plans recs (the transcript from its latest summary on), calls
// the summarizer and builds the summary record. It returns no summary when
// there is nothing to do or under DryRun; the result says why.
func (r *Runner) summarize(ctx context.Context, recs []transcript.Record) (*placed, Result, error) {
	plan, skip, err := prepare(recs, r.Options, r.DryRun || !readsRecords(r.Summarizer))
	if err != nil || plan == nil {
		return nil, Result{Skip: skip}, err
	}
	return r.run(ctx, plan)
}

// run calls the summarizer on a plan and builds the summary record.
func (r *Runner) run(ctx context.Context, plan *Plan) (*placed, Result, error) {
	if r.DryRun {
		if d, ok := r.Summarizer.(dryRunner); ok {
			text, err := d.dryRun(plan.Input)
			return nil, Result{DryRun: text}, err
		}
		return nil, Result{DryRun: plan.Input.Compose()}, nil
	}
	if r.Wait != nil {
		if err := r.Wait(ctx); err != nil {
			return nil, Result{}, err
		}
	}
	if r.slots != nil {
		select {
		case r.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, Result{}, ctx.Err()
		}
	}
	start := time.Now()
	out, err := r.Summarizer.Summarize(ctx, plan.Input)
	if r.slots != nil {
		<-r.slots
	}
	if err != nil {
		return nil, Result{}, fmt.Errorf("summarizer %s: %w", r.Summarizer.Name(), err)
	}
	if r.Logger != nil {
		r.Logger.Info("summarized", "summarizer", r.Summarizer.Name(), "model", out.Model, "covered", len(plan.Span.Covered),
			"latency_ms", time.Since(start).Milliseconds())
	}
	if plan.gatherIDs != nil {
		if err := plan.gatherIDs(); err != nil {
			return nil, Result{}, err
		}
	}
	now := r.nowMillis()
	rec, err := plan.Record(out, r.Summarizer.Name(), r.ids().New(now), now, r.Options)
	if err != nil {
		return nil, Result{}, err
	}
	sum := &placed{record: rec, anchor: plan.AnchorID(), span: plan.Span, previousID: plan.previousID}
	if plan.Span.Placeholder {
		ph := transcript.Placeholder(r.ids().New(now), now)
		sum.placeholder = &ph
	}
	return sum, Result{}, nil
}

func (r *Runner) nowMillis() int64 {
	if r.Now == nil {
		return time.Now().UnixMilli()
	}
	return r.Now().UnixMilli()
}

// defaultIDs serves Runners given no IDs; one generator keeps ids ordered.
var defaultIDs = sync.OnceValue(transcript.NewIDs)

func (r *Runner) ids() *transcript.IDs {
	if r.IDs == nil {
		return defaultIDs()
	}
	return r.IDs
}
