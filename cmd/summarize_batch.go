package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/transcript"
)

// summarizeBatchOut writes the requests of --all for the provider's batch
// API to --batch-out, storing nothing.
func summarizeBatchOut(ctx context.Context, o *summarizeOptions, r *summarize.Runner) error {
	f := o.f
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	w, done := f.IO.Out, func() error { return nil }
	if o.batchOut != "-" {
		file, err := os.Create(o.batchOut)
		if err != nil {
			return fmt.Errorf("--batch-out: %w", err)
		}
		w, done = file, file.Close
	}
	tally, err := summarize.BatchOut(ctx, s, r.Options, summarize.BatchOutOptions{
		Provider: o.provider.name, Model: o.provider.model, DeleteOriginals: o.deleteOriginals, Now: f.Now,
		Done: func(res summarize.Result, err error) {
			if err != nil {
				fmt.Fprintf(f.IO.ErrOut, "convo: summarize %s: %s\n", res.Conversation, exitcode.Message(err))
			}
		},
	}, w)
	if cerr := done(); err == nil && cerr != nil {
		err = fmt.Errorf("--batch-out: %w", cerr)
	}
	f.warnf("summarize --batch-out: %s", tally.OutText())
	return err
}

// summarizeBatchIn stores the summaries of the --batch-in result file,
// printing each one stored and naming each result skipped.
func summarizeBatchIn(ctx context.Context, o *summarizeOptions, r *summarize.Runner, enc *transcript.Encoder) error {
	f := o.f
	in := f.IO.In
	if o.batchIn != "-" {
		file, err := os.Open(o.batchIn)
		if err != nil {
			return exitcode.Usagef("--batch-in: %v", err)
		}
		defer file.Close()
		in = file
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	var printErr error
	stored := 0
	tally, err := summarize.BatchIn(ctx, s, in, summarize.BatchInOptions{
		Options: r.Options, DeleteOriginals: o.deleteOriginals, IDs: f.IDs, Now: f.Now,
		Done: func(out summarize.BatchOutcome) {
			switch {
			case out.Summary != nil:
				stored++
				signals.NotePartial(ctx, "%d summaries were stored before that; the other conversations are as they were", stored)
				if printErr == nil {
					printErr = out.Print(f.IO.Out, enc, f.quiet)
				}
			case out.Err != nil:
				fmt.Fprintf(f.IO.ErrOut, "convo: summarize --batch-in %s: %s\n", out.Where(), exitcode.Message(out.Err))
			}
		},
	})
	printErr = errors.Join(printErr, enc.Flush())
	var ie *transcript.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("--batch-in %s: %w", o.batchIn, err)
	}
	f.warnf("summarize --batch-in: %s", tally.InText())
	if note := tally.UnrecordedText(); note != "" {
		f.warnf("summarize --batch-in: %s", note)
	}
	if err == nil && tally.Stored > 0 {
		return exitcode.AfterCommit(printErr)
	}
	if ctx.Err() != nil && tally.Stored > 0 {
		// Each summary is its own transaction: say what stands.
		return &exitcode.PartialError{Err: errors.Join(err, printErr), Stored: fmt.Sprintf("%d summaries were stored before that; the other conversations are as they were", tally.Stored)}
	}
	return errors.Join(err, printErr)
}

// summarizeBatchStatus lists the pending batch requests, oldest first: a
// table for people, or with --json one object per line.
func summarizeBatchStatus(ctx context.Context, o *summarizeOptions) error {
	f := o.f
	var reqs []store.BatchRequest
	s, err := f.ReadStore(ctx)
	switch {
	case errors.Is(err, errNoStore):
		// A store never written to has no request pending.
	case err != nil:
		return err
	default:
		if reqs, err = summarize.BatchPending(ctx, s, f.Now()); err != nil {
			return err
		}
	}
	return show.BatchStatus(f.IO.Out, reqs, summarize.BatchPendingAge, o.json)
}
