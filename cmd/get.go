package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/store"
)

// getOptions are the flags of `convo get`.
type getOptions struct {
	f            *Factory
	conversation string
	limit        int
	before       string
	read         store.ReadOptions // what --limit and --before select
}

// newCmdGet builds `convo get`. runF replaces getRun in tests that check
// flag parsing alone.
func newCmdGet(f *Factory, runF func(context.Context, *getOptions) error) *cobra.Command {
	o := &getOptions{f: f}
	cmd := &cobra.Command{
		Use:   "get -c ID [--limit N] [--before ID|TIME]",
		Short: "Print a conversation's records as canonical JSONL, oldest first",
		Example: `  convo get -c demo
  convo get -c demo --limit 10                 # the newest 10, oldest first
  convo get -c demo --before 2026-01-01        # also 2026-01-01T09:30, 36h, 7d, ms or a record id
  convo get -c demo | convo render --provider openai`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagvalue.Conversation(o.conversation); err != nil {
				return err
			}
			if o.limit < 0 {
				return exitcode.Usagef("--limit %d: want 0 (every record) or more", o.limit)
			}
			o.read = store.ReadOptions{Limit: o.limit}
			var err error
			if o.read.BeforeID, o.read.BeforeTime, err = flagvalue.Before(o.before, f.Now()); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return getRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to print")
	cmd.Flags().IntVar(&o.limit, "limit", 0, "only the newest N records (still oldest first)")
	cmd.Flags().StringVar(&o.before, "before", "", "only records before this record id, or created before this TIME: "+flagvalue.TimeHelp)
	return cmd
}

func getRun(ctx context.Context, o *getOptions) error {
	return printStored(ctx, o.f, o.conversation, o.read)
}
