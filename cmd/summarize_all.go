package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/otel"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/transcript"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// summarizeAll runs --all with a progress bar on a terminal's stderr,
// printing each summary and failure as it comes, and the tally at the end.
// At a terminal (no --json) each summary is one line for a person instead
// of its record: above the bar when there is one, so that the bar's redraws
// never cut into it, else on stdout.
func summarizeAll(ctx context.Context, o *summarizeOptions, r *summarize.Runner, enc *transcript.Encoder) error {
	f := o.f
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	rep := &allReport{o: o, enc: enc, readable: f.IO.StdoutIsTerminal() && !o.json && !o.dryRun}
	if !o.dryRun {
		// The live spans of a run of many calls: nil, at no cost, when no
		// endpoint is set.
		if rep.live, err = otel.NewLiveBatch(os.Getenv, otelResource()); err != nil {
			f.warnf("otel: no span will be sent: %v", err)
		}
	}
	opts := summarize.AllOptions{Jobs: o.jobs, Start: func(total int) { rep.begin(ctx, total) }, Done: func(res summarize.Result, err error) { rep.done(ctx, res, err) }}
	if t, ok := s.(interface{ Transient(error) bool }); ok {
		// A store out of reach for a moment (a restart, too many clients)
		// fails no conversation: it is tried again, paced.
		opts.Transient = t.Transient
	}
	if !o.dryRun {
		// Runners sharing the store (a CI matrix on one PostgreSQL) split
		// the conversations between them by claims; a dry run writes nothing.
		opts.Claims, opts.Owner, opts.ClaimSince = s, runnerID(f), f.Now().UnixMilli()
		// Each worker gives its claim up as it returns; should convo exit
		// without waiting for them (a second signal), this does.
		defer signals.AtForcedExit(ctx, func(ctx context.Context) { s.ReleaseClaims(ctx, opts.Owner) })()
	}
	tally, err := summarize.All(ctx, s, r, opts)
	return rep.finish(ctx, tally, err)
}

// allReport says what summarize --all does as it goes: the bar, each
// summary and failure, the live spans, and the tally at the end.
type allReport struct {
	o        *summarizeOptions
	enc      *transcript.Encoder
	readable bool // a line for a person per summary, not its record
	progress *mpb.Progress
	bar      *mpb.Bar
	start    time.Time
	printErr error // the first failure to print a summary (it is stored)
	stored   int
	live     *otel.LiveBatch // nil: no OTEL_EXPORTER_OTLP_ENDPOINT, nothing gathered
	liveErr  error           // the first batch of spans that failed; said once, at the end
}

func (a *allReport) begin(ctx context.Context, total int) {
	f := a.o.f
	a.start = time.Now()
	// No bar for nothing to do: a bar of 0 never completes, and
	// waiting for it would hang.
	if f.IO.StderrIsTerminal() && !f.quiet && !a.o.dryRun && total > 0 {
		// AutoRefresh: mpb would draw nothing on a test's buffer.
		a.progress = mpb.NewWithContext(ctx, mpb.WithOutput(f.IO.ErrOut), mpb.WithWidth(40), mpb.WithAutoRefresh())
		a.bar = a.progress.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name("summarize "), decor.CountersNoUnit("%d/%d")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)))
	}
}

func (a *allReport) done(ctx context.Context, res summarize.Result, err error) {
	f, o := a.o.f, a.o
	cancelled := err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
	// Lines for people go above a running bar, through it.
	var people io.Writer = f.IO.ErrOut
	if a.progress != nil {
		people = a.progress
	}
	switch {
	case err != nil && !cancelled: // the interruption is said once, at the end
		fmt.Fprintf(people, "convo: summarize %s: %s\n", res.Conversation, exitcode.Message(err))
	case a.readable && err == nil && res.Summary != nil && !f.quiet:
		if a.progress == nil {
			people = f.IO.Out
		}
		if _, werr := io.WriteString(people, res.Line()); a.printErr == nil && a.progress == nil {
			a.printErr = werr
		}
	case a.printErr == nil:
		a.printErr = res.Print(f.IO.Out, a.enc, f.quiet)
	}
	if err == nil && res.Summary != nil && !o.dryRun {
		a.stored++
		signals.NotePartial(ctx, "%d summaries were stored before that; the other conversations are as they were", a.stored)
		if _, llm := res.Summary.Metadata.Aux["model"]; llm && a.live != nil {
			a.liveErr = cmp.Or(a.liveErr, a.live.Add(ctx, transcript.AppendJSON(nil, res.Summary)))
		}
	}
	if a.bar != nil {
		a.bar.Increment()
	}
}

// finish ends the bar and the spans, says the tally and how the run
// ended: err (what stands, when interrupted), else what could not be
// printed.
func (a *allReport) finish(ctx context.Context, tally summarize.Tally, err error) error {
	f, o := a.o.f, a.o
	if a.progress != nil {
		a.progress.Wait()
	}
	if a.liveErr = cmp.Or(a.liveErr, a.live.Close(ctx)); a.liveErr != nil {
		f.warnf("otel: the spans of this run were not all sent: %v", a.liveErr)
	}
	printErr := errors.Join(a.printErr, a.enc.Flush())
	if a.start.IsZero() { // the listing failed: nothing was summarized
		return err
	}
	if !o.dryRun {
		f.warnf("summarize --all: %s", tally.Text(time.Since(a.start)))
	}
	switch {
	case err != nil:
		if printErr != nil {
			fmt.Fprintf(f.IO.ErrOut, "convo: the summaries stored were not all printed: %s\n", exitcode.Message(printErr))
		}
		if ctx.Err() != nil && tally.Summarized > 0 {
			// Each conversation is its own transaction: say what stands.
			return &exitcode.PartialError{Err: err, Stored: fmt.Sprintf("%d summaries were stored before that; the other conversations are as they were", tally.Summarized)}
		}
		return err
	case tally.Summarized > 0:
		return exitcode.AfterCommit(printErr)
	}
	return printErr
}
