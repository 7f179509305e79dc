package cmd

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
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
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireConversation(o.conversation); err != nil {
				return err
			}
			if o.limit < 0 {
				return usageErrorf("--limit %d: want a positive number", o.limit)
			}
			o.read = store.ReadOptions{Limit: o.limit}
			if err := parseBefore(o.before, &o.read); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return getRun(cmd.Context(), o)
		},
	}
	f.conversationFlag(cmd, &o.conversation, "conversation to print")
	cmd.Flags().IntVar(&o.limit, "limit", 0, "only the newest N records (still oldest first)")
	cmd.Flags().StringVar(&o.before, "before", "", "only records before this record id, or created before this time (RFC 3339 or ms since the epoch)")
	return cmd
}

func getRun(ctx context.Context, o *getOptions) error {
	return printStored(ctx, o.f, o.conversation, o.read)
}

// parseBefore reads --before: a record id, ms since the epoch, or RFC 3339.
func parseBefore(v string, opt *store.ReadOptions) error {
	switch {
	case v == "":
	case transcript.IsID(v):
		opt.BeforeID = strings.ToUpper(v)
	default:
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
			opt.BeforeTime = ms
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return usageErrorf("--before %q: want a record id, ms since the epoch, or an RFC 3339 time", v)
		}
		opt.BeforeTime = t.UnixMilli()
	}
	return nil
}
