package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/tokens"
)

// listOptions are the flags of `convo list`.
type listOptions struct {
	f                *Factory
	json             bool
	tokenizer        string
	since, olderThan string
	key              string          // the tokenizer's name, checked
	counter          *tokens.Counter // loaded when a figure must be counted
	from, before     int64           // the cutoffs --since and --older-than name, in ms
}

// newCmdList builds `convo list`. runF replaces listRun in tests that
// check flag parsing alone.
func newCmdList(f *Factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	o := &listOptions{f: f}
	cmd := &cobra.Command{
		Use:   "list [--since TIME] [--older-than TIME] [--json]",
		Short: "List the stored conversations: records, tokens in the LLM view, last activity",
		Long: `List the stored conversations, the most recently active first: each one's
records, the tokens of its LLM view (--tokenizer) and its last activity, the
creation time of its newest record (an import keeps the source's times, so a
session imported today and last used a month ago shows a month ago).
--since and --older-than compare the last activity, as prune --older-than
does. Every write keeps these figures in its own transaction: list reads
them and no record.`,
		Example: `  convo list
  convo list --since 7d
  convo list --older-than 2026-01-01 --json
  convo list --json | jq -r 'select(.tokens > 4000) | .conversation'   # what needs summarizing`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.key, err = tokens.Canonical(o.tokenizer); err != nil {
				return exitcode.Usagef("--tokenizer: %v", err)
			}
			if o.since != "" {
				if o.from, err = flagvalue.Cutoff("--since", o.since, f.Now()); err != nil {
					return err
				}
			}
			if o.olderThan != "" {
				if o.before, err = flagvalue.Cutoff("--older-than", o.olderThan, f.Now()); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return listRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.json, "json", false, "print one JSON object per conversation, with its summaries and export cursors")
	fl.StringVar(&o.since, "since", "", "only conversations active since TIME: "+flagvalue.TimeHelp)
	fl.StringVar(&o.olderThan, "older-than", "", "only conversations with no activity since TIME: "+flagvalue.TimeHelp)
	fl.StringVar(&o.tokenizer, "tokenizer", tokens.Default, "token encoding: o200k_base or cl100k_base")
	return cmd
}

func listRun(ctx context.Context, o *listOptions) error {
	var s show.ListStore
	st, err := o.f.ReadStore(ctx)
	switch {
	case errors.Is(err, errNoStore):
		// A store never written to lists nothing.
	case err != nil:
		return err
	default:
		s = st
	}
	l := show.List{Key: o.key, Since: o.from, Before: o.before, JSON: o.json, Count: func() (func(string, []byte) (int, error), error) {
		if o.counter == nil {
			var err error
			if o.counter, err = tokens.New(o.key); err != nil {
				return nil, err
			}
		}
		return o.counter.Stored, nil
	}}
	return l.Print(ctx, s, o.f.IO.Out)
}
