package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize"
)

// pruneOptions are the flags of `convo prune`.
type pruneOptions struct {
	f                     *Factory
	olderThan, glob       string
	keepSummaries, dryRun bool
	yes                   bool  // consent, as clear and rewind take it; prune needs none
	before                int64 // the cutoff --older-than names, in ms; 0: none
}

// newCmdPrune builds `convo prune`. runF replaces pruneRun in tests that
// check flag parsing alone.
func newCmdPrune(f *Factory, runF func(context.Context, *pruneOptions) error) *cobra.Command {
	o := &pruneOptions{f: f}
	cmd := &cobra.Command{
		Use:   "prune [--older-than TIME] [--keep-summaries] [--conversation-glob PATTERN] [--dry-run]",
		Short: "Delete old conversations, or trim them to their latest summary",
		Long: `Delete the conversations whose last activity is older than --older-than, or,
with --keep-summaries, keep only each conversation's latest summary, the
records after it and its system prompt (a conversation without a summary is
left alone; without --older-than every conversation is trimmed). Runs VACUUM
afterwards when more than a quarter of the file is free. Prints a tally:
one line per conversation, then the totals.

TIME is an age: a Go duration (36h, 90m) or a number of days (30d) or weeks
(2w); or the cutoff itself: a date (2026-01-01), a time (2026-01-01T09:30,
RFC 3339; UTC without a zone), ms since the epoch or a record id (when it
was made). PATTERN is a glob
(* any characters, ? one, [abc] a set; case-sensitive).`,
		Example: `  convo prune --older-than 90d
  convo prune --keep-summaries --conversation-glob 'support-*' --dry-run`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.olderThan == "" && !o.keepSummaries {
				return exitcode.Usagef("prune deletes conversations older than --older-than TIME, or trims them with --keep-summaries; give one")
			}
			if err := store.CheckGlob(o.glob); err != nil {
				return exitcode.Usagef("--conversation-glob %q: %v", o.glob, err)
			}
			if o.olderThan != "" {
				var err error
				if o.before, err = flagvalue.Cutoff("--older-than", o.olderThan, f.Now()); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return pruneRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.olderThan, "older-than", "", "only conversations whose last activity is older than TIME: "+flagvalue.TimeHelp)
	fl.BoolVar(&o.keepSummaries, "keep-summaries", false, "trim to the latest summary and what follows it instead of deleting")
	fl.StringVar(&o.glob, "conversation-glob", "", "only conversations whose id matches this glob")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the tally of what would go; change nothing")
	fl.BoolVar(&o.yes, "yes", false, "really delete (accepted as clear and rewind take it; prune deletes without it)")
	return cmd
}

func pruneRun(ctx context.Context, o *pruneOptions) error {
	s, err := o.f.ExistingStore(ctx)
	if errors.Is(err, errNoStore) {
		// A store never written to has nothing to prune; none is made.
		if o.f.quiet && !o.dryRun {
			return nil
		}
		return show.Prune(o.f.IO.Out, store.PruneResult{}, o.dryRun, summarize.BatchAge())
	}
	if err != nil {
		return err
	}
	res, err := s.Prune(ctx, store.PruneOptions{Before: o.before, Glob: o.glob, KeepSummaries: o.keepSummaries, DryRun: o.dryRun,
		BatchBefore: o.f.Now().Add(-summarize.BatchPendingAge).UnixMilli()})
	if err == nil && !o.dryRun && res.Deleted+res.Trimmed > 0 {
		signals.NoteStored(ctx, "pruning %s", plural(res.Deleted+res.Trimmed, "conversation"))
	}
	if err != nil || (o.f.quiet && !o.dryRun) {
		return err
	}
	err = show.Prune(o.f.IO.Out, res, o.dryRun, summarize.BatchAge())
	if !o.dryRun && res.Deleted+res.Trimmed > 0 {
		return exitcode.AfterCommit(err)
	}
	return err
}
