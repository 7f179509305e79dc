package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// forkOptions are the flags of `convo fork`.
type forkOptions struct {
	f        *Factory
	src, dst string
	at       string
	force    bool
	yes      bool           // consent, accepted on every destructive command; --force replaces
	ref      transcript.Ref // what --at names; empty: everything
}

// newCmdFork builds `convo fork`. runF replaces forkRun in tests that
// check flag parsing alone.
func newCmdFork(f *Factory, runF func(context.Context, *forkOptions) error) *cobra.Command {
	o := &forkOptions{f: f}
	cmd := &cobra.Command{
		Use:   "fork -c SRC --to DST [--at RECORD] [--force]",
		Short: "Copy a conversation, or its beginning, into a new one",
		Long: `Copy the records of SRC up to and including RECORD (default: all) into a new
conversation DST. Each copy gets a new id and keeps the original one under
metadata.aux.forkedFrom; summaries list the new ids of what they cover.
SRC is left as it is. An existing DST is an error unless --force, which
replaces it (its records, summaries and export cursors go).

RECORD is ` + transcript.RefHelp + `.`,
		Example: `  convo fork -c demo --to demo-b --at 01JRZJ166J2WRMF990535EVSQS
  convo fork -c demo --to demo-retry --at last-user`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagvalue.Conversation(o.src); err != nil {
				return err
			}
			if o.dst == "" {
				return exitcode.Usagef("missing --to: the conversation to create")
			}
			if err := flagvalue.ConversationID(o.dst); err != nil {
				return err
			}
			if o.dst == o.src {
				return exitcode.Usagef("--to %q is the conversation forked from", o.dst)
			}
			if o.at != "" {
				var err error
				if o.ref, err = flagvalue.Ref("--at", o.at); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return forkRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.src, "conversation to copy")
	fl := cmd.Flags()
	fl.StringVar(&o.dst, "to", "", "the new conversation")
	fl.StringVar(&o.at, "at", "", "the last record copied: "+transcript.RefHelp)
	fl.BoolVar(&o.force, "force", false, "replace DST when it exists")
	fl.BoolVar(&o.yes, "yes", false, "accepted as on every destructive command (--force is what replaces)")
	return cmd
}

func forkRun(ctx context.Context, o *forkOptions) error {
	s, err := o.f.ExistingStore(ctx)
	if err != nil {
		return err
	}
	res, err := s.Fork(ctx, o.src, o.dst, store.ForkOptions{At: string(o.ref), Force: o.force}, o.f.IDs)
	if err != nil {
		return err
	}
	signals.NoteStored(ctx, "forking %q into %q", o.src, o.dst)
	if res.Replaced > 0 {
		o.f.warnf("replaced %q (%d record(s) deleted)", o.dst, res.Replaced)
	}
	o.f.warnf("forked %q into %q: %d record(s)", o.src, o.dst, res.Records)
	return nil
}
