package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/store"
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

// keep reports whether a conversation passes --since and --older-than.
// keep reports whether c is within --since and --older-than: both compare
// the last activity, the newest record's creation time.
func (o *listOptions) keep(c store.ConversationFigures) bool {
	return (o.from == 0 || c.LastActivity >= o.from) && (o.before == 0 || c.LastActivity < o.before)
}

func listRun(ctx context.Context, o *listOptions) error {
	var infos []store.ConversationFigures
	s, err := o.f.ReadStore(ctx)
	if errors.Is(err, errNoStore) {
		s, err = nil, nil // a store never written to lists nothing
	} else if err != nil {
		return err
	}
	if s != nil {
		// One read of the figures every write keeps, newest activity
		// first: no record is read unless a figure is not up to date.
		err = s.Figures(ctx, o.key, func(c store.ConversationFigures) error {
			if o.keep(c) {
				infos = append(infos, c)
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(o.f.IO.Out, 64<<10) // a write per line costs more than the list
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	if !o.json {
		fmt.Fprintln(tw, "CONVERSATION\tRECORDS\tTOKENS\tLAST ACTIVITY")
	}
	for _, c := range infos {
		n := int(c.Tokens)
		if !c.TokensKnown {
			if o.counter == nil {
				if o.counter, err = tokens.New(o.key); err != nil {
					return err
				}
			}
			if n, err = s.ViewTokens(ctx, c.ID, o.key, o.counter.Stored); err != nil {
				return err
			}
		}
		if o.json {
			line, err := show.ListJSON(ctx, s, c, n)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\n", line)
			continue
		}
		// An id is printed for people: what a terminal would obey in it
		// (an escape sequence, a carriage return) is shown escaped.
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", show.EscapeID(c.ID), c.Records, n, time.UnixMilli(c.LastActivity).UTC().Format(time.RFC3339))
	}
	return errors.Join(tw.Flush(), out.Flush())
}
