package cmd

import (
	"context"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/spf13/cobra"
)

// clearOptions are the flags and streams of `convo clear`.
type clearOptions struct {
	f            *Factory
	conversation string
	yes          bool
}

// newCmdClear builds `convo clear`. runF replaces clearRun in tests that
// check flag parsing alone.
func newCmdClear(f *Factory, runF func(context.Context, *clearOptions) error) *cobra.Command {
	o := &clearOptions{f: f}
	cmd := &cobra.Command{
		Use:   "clear -c ID --yes",
		Short: "Delete a conversation and everything stored for it",
		Example: `  convo clear -c demo --yes
  convo list --json | jq -r 'select(.records < 2) | .conversation' | xargs -n1 convo clear --yes -c`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagvalue.Conversation(o.conversation); err != nil {
				return err
			}
			if !o.yes {
				return exitcode.Usagef("clear deletes every record, summary and export cursor of %q for good; add --yes to do it", o.conversation)
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return clearRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to delete")
	cmd.Flags().BoolVar(&o.yes, "yes", false, "really delete")
	return cmd
}

func clearRun(ctx context.Context, o *clearOptions) error {
	s, err := o.f.ExistingStore(ctx)
	if err != nil {
		return err
	}
	n, err := s.Clear(ctx, o.conversation)
	if err != nil {
		return err
	}
	signals.NoteStored(ctx, "clearing %q", o.conversation)
	o.f.warnf("cleared %q: %d record(s) deleted", o.conversation, n)
	return nil
}
