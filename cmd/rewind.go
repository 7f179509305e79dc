package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// rewindOptions are the flags of `convo rewind`.
type rewindOptions struct {
	f            *Factory
	conversation string
	to           string
	yes, dryRun  bool
	ref          transcript.Ref // what --to names
}

// newCmdRewind builds `convo rewind`. runF replaces rewindRun in tests
// that check flag parsing alone.
func newCmdRewind(f *Factory, runF func(context.Context, *rewindOptions) error) *cobra.Command {
	o := &rewindOptions{f: f}
	cmd := &cobra.Command{
		Use:   "rewind -c ID --to RECORD [--yes]",
		Short: "Remove the records after a record, printing what goes",
		Long: `Remove the records after RECORD, and any summary that covered one of them, in
one transaction, and print what was removed as canonical JSONL so a pipe can
keep it. Without --yes (or with --dry-run) nothing is removed: it prints
what would be.

RECORD is ` + transcript.RefHelp + `: --to last-user drops the answer to the
last question, so it can be asked again.`,
		Example: `  convo rewind -c demo --to last-user --yes > dropped.jsonl
  convo rewind -c demo --to 01JRZJ166J2WRMF990535EVSQS`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagvalue.Conversation(o.conversation); err != nil {
				return err
			}
			var err error
			if o.ref, err = flagvalue.Ref("--to", o.to); err != nil {
				return err
			}
			o.dryRun = o.dryRun || !o.yes
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return rewindRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to rewind")
	fl := cmd.Flags()
	fl.StringVar(&o.to, "to", "", "the last record kept: "+transcript.RefHelp)
	fl.BoolVar(&o.yes, "yes", false, "really remove the records")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print what would be removed; remove nothing (the default without --yes)")
	return cmd
}

func rewindRun(ctx context.Context, o *rewindOptions) error {
	f := o.f
	open := f.ExistingStore
	if o.dryRun { // only reads: the store opens read-only
		open = f.ReadStore
	}
	s, err := open(ctx)
	if err != nil {
		return err
	}
	opt := store.RewindOptions{DryRun: o.dryRun}
	if !f.quiet || o.dryRun {
		// Flushed before the commit: nothing is removed that was not written.
		enc := transcript.NewEncoder(f.IO.Out)
		opt.Removed = func(r store.Row) error { return enc.WriteLine(r.Body) }
		opt.Written = enc.Flush
	}
	res, err := s.Rewind(ctx, o.conversation, string(o.ref), opt)
	if err != nil {
		return err
	}
	if !o.dryRun && res.Records > 0 {
		signals.NoteStored(ctx, "rewinding %q", o.conversation)
	}
	switch {
	case res.Records == 0:
		f.warnf("rewind %q: nothing stands after %s", o.conversation, o.to)
	case o.dryRun:
		f.warnf("dry run: %d record(s) (%d summaries) would be removed from %q; add --yes to remove them", res.Records, res.Summaries, o.conversation)
	default:
		f.warnf("rewound %q to %s: %d record(s) removed (%d summaries)", o.conversation, o.to, res.Records, res.Summaries)
	}
	return nil
}
