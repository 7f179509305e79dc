package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// This file holds the lifecycle commands: annotate, fork, rewind, prune,
// and the parts of list that find what needs work.

const recordRefHelp = "a record id, or last, last-user (the last user record that is not a placeholder) or last-assistant"

// recordRef checks a --id/--at/--to value and normalizes an id's case.
func recordRef(flag, v string) (string, error) {
	switch v {
	case "":
		return "", usageErrorf("missing %s: want %s", flag, recordRefHelp)
	case store.RefLast, store.RefLastUser, store.RefLastAssistant:
		return v, nil
	}
	if !ulidOK(v) {
		return "", usageErrorf("%s %q: want %s", flag, v, recordRefHelp)
	}
	return strings.ToUpper(v), nil
}

type annotateOptions struct {
	conversation, id string
	timing, aux      []string
	unsetAux         []string
}

func (a *Factory) newAnnotateCmd() *cobra.Command {
	var o annotateOptions
	cmd := &cobra.Command{
		Use:   "annotate -c ID --id RECORD [--timing KEY=MS]... [--aux KEY=JSON]... [--unset-aux KEY]...",
		Short: "Add or change the metadata of a stored record",
		Long: `Add or change the metadata of a stored record: what happened after it was
written (a voice assistant sets playStart and playEnd when playback happens).
The message itself never changes. The record counts as changed for an
incremental export, which sends it again, whole. Prints the record as stored.

RECORD is ` + recordRefHelp + `.
An unknown timing key is invalid input (exit 3).`,
		Example: `  convo annotate -c demo --id last-assistant --timing playStart=now
  convo annotate -c demo --id 01JRZJ166J2WRMF990535EVSQS --aux rating=5 --unset-aux draft`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runAnnotate(cmd.Context(), &o) },
	}
	a.conversationFlag(cmd, &o.conversation, "conversation holding the record")
	f := cmd.Flags()
	f.StringVar(&o.id, "id", "", "the record: "+recordRefHelp)
	f.StringArrayVar(&o.timing, "timing", nil, "set metadata.timing KEY to MS (ms since the epoch, or now); repeatable")
	f.StringArrayVar(&o.aux, "aux", nil, "set metadata.aux KEY to a JSON value; repeatable")
	f.StringArrayVar(&o.unsetAux, "unset-aux", nil, "remove metadata.aux KEY; repeatable")
	return cmd
}

func (a *Factory) runAnnotate(ctx context.Context, o *annotateOptions) error {
	if err := requireConversation(o.conversation); err != nil {
		return err
	}
	ref, err := recordRef("--id", o.id)
	if err != nil {
		return err
	}
	an, err := parseAnnotation(o, a.nowMillis())
	if err != nil {
		return err
	}
	if an.Empty() {
		return usageErrorf("nothing to change: give --timing, --aux or --unset-aux")
	}
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	body, err := s.Annotate(ctx, o.conversation, ref, an)
	if err != nil {
		return err
	}
	if a.quiet {
		return nil
	}
	enc := transcript.NewEncoder(a.IO.Out)
	return errors.Join(enc.WriteLine(body), enc.Flush())
}

// parseAnnotation reads the flags of annotate. A malformed flag is a usage
// error; an unknown timing key is invalid input, as in a record.
func parseAnnotation(o *annotateOptions, now int64) (*transcript.Annotation, error) {
	e, err := parseMetadataFlags(o.timing, o.aux, now)
	if err != nil {
		return nil, err
	}
	an := &transcript.Annotation{Timing: e.timing, Aux: e.aux}
	for _, k := range o.unsetAux {
		if k == "" {
			return nil, usageErrorf("--unset-aux: want a KEY")
		}
		an.UnsetAux = append(an.UnsetAux, k)
	}
	return an, nil
}

func (a *Factory) newForkCmd() *cobra.Command {
	var src, dst, at string
	var force bool
	cmd := &cobra.Command{
		Use:   "fork -c SRC --to DST [--at RECORD] [--force]",
		Short: "Copy a conversation, or its beginning, into a new one",
		Long: `Copy the records of SRC up to and including RECORD (default: all) into a new
conversation DST. Each copy gets a new id and keeps the original one under
metadata.aux.forkedFrom; summaries list the new ids of what they cover.
SRC is left as it is. An existing DST is an error unless --force, which
replaces it (its records, summaries and export cursors go).

RECORD is ` + recordRefHelp + `.`,
		Example: `  convo fork -c demo --to demo-b --at 01JRZJ166J2WRMF990535EVSQS
  convo fork -c demo --to demo-retry --at last-user`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := requireConversation(src); err != nil {
				return err
			}
			if dst == "" {
				return usageErrorf("missing --to: the conversation to create")
			}
			if err := checkConversationID(dst); err != nil {
				return err
			}
			if dst == src {
				return usageErrorf("--to %q is the conversation forked from", dst)
			}
			opt := store.ForkOptions{Force: force}
			if at != "" {
				var err error
				if opt.At, err = recordRef("--at", at); err != nil {
					return err
				}
			}
			s, err := a.Store(ctx)
			if err != nil {
				return err
			}
			res, err := s.Fork(ctx, src, dst, opt, a.IDs)
			if err != nil {
				return err
			}
			if res.Replaced > 0 {
				a.warnf("replaced %q (%d record(s) deleted)", dst, res.Replaced)
			}
			a.warnf("forked %q into %q: %d record(s)", src, dst, res.Records)
			return nil
		},
	}
	a.conversationFlag(cmd, &src, "conversation to copy")
	f := cmd.Flags()
	f.StringVar(&dst, "to", "", "the new conversation")
	f.StringVar(&at, "at", "", "the last record copied: "+recordRefHelp)
	f.BoolVar(&force, "force", false, "replace DST when it exists")
	return cmd
}

func (a *Factory) newRewindCmd() *cobra.Command {
	var conv, to string
	var yes, dryRun bool
	cmd := &cobra.Command{
		Use:   "rewind -c ID --to RECORD [--yes]",
		Short: "Remove the records after a record, printing what goes",
		Long: `Remove the records after RECORD, and any summary that covered one of them, in
one transaction, and print what was removed as canonical JSONL so a pipe can
keep it. Without --yes (or with --dry-run) nothing is removed: it prints
what would be.

RECORD is ` + recordRefHelp + `: --to last-user drops the answer to the
last question, so it can be asked again.`,
		Example: `  convo rewind -c demo --to last-user --yes > dropped.jsonl
  convo rewind -c demo --to 01JRZJ166J2WRMF990535EVSQS`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := requireConversation(conv); err != nil {
				return err
			}
			ref, err := recordRef("--to", to)
			if err != nil {
				return err
			}
			dry := dryRun || !yes
			s, err := a.Store(ctx)
			if err != nil {
				return err
			}
			opt := store.RewindOptions{DryRun: dry}
			if !a.quiet || dry {
				// Flushed before the commit: nothing is removed that was not written.
				enc := transcript.NewEncoder(a.IO.Out)
				opt.Removed = func(r store.Row) error { return enc.WriteLine(r.Body) }
				opt.Written = enc.Flush
			}
			res, err := s.Rewind(ctx, conv, ref, opt)
			if err != nil {
				return err
			}
			switch {
			case res.Records == 0:
				a.warnf("rewind %q: nothing stands after %s", conv, to)
			case dry:
				a.warnf("dry run: %d record(s) (%d summaries) would be removed from %q; add --yes to remove them", res.Records, res.Summaries, conv)
			default:
				a.warnf("rewound %q to %s: %d record(s) removed (%d summaries)", conv, to, res.Records, res.Summaries)
			}
			return nil
		},
	}
	a.conversationFlag(cmd, &conv, "conversation to rewind")
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "the last record kept: "+recordRefHelp)
	f.BoolVar(&yes, "yes", false, "really remove the records")
	f.BoolVar(&dryRun, "dry-run", false, "print what would be removed; remove nothing (the default without --yes)")
	return cmd
}

func (a *Factory) newPruneCmd() *cobra.Command {
	var olderThan, glob string
	var keepSummaries, dryRun bool
	cmd := &cobra.Command{
		Use:   "prune [--older-than DURATION] [--keep-summaries] [--conversation-glob PATTERN] [--dry-run]",
		Short: "Delete old conversations, or trim them to their latest summary",
		Long: `Delete the conversations whose last activity is older than --older-than, or,
with --keep-summaries, keep only each conversation's latest summary, the
records after it and its system prompt (a conversation without a summary is
left alone; without --older-than every conversation is trimmed). Runs VACUUM
afterwards when more than a quarter of the file is free. Prints a tally:
one line per conversation, then the totals.

DURATION is a Go duration (36h, 90m) or a number of days (30d) or weeks
(2w); an RFC 3339 time is taken as the cutoff itself. PATTERN is a glob
(* any characters, ? one, [abc] a set; case-sensitive).`,
		Example: `  convo prune --older-than 90d
  convo prune --keep-summaries --conversation-glob 'support-*' --dry-run`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if olderThan == "" && !keepSummaries {
				return usageErrorf("prune deletes conversations older than --older-than DURATION, or trims them with --keep-summaries; give one")
			}
			opt := store.PruneOptions{Glob: glob, KeepSummaries: keepSummaries, DryRun: dryRun}
			if olderThan != "" {
				var err error
				if opt.Before, err = parseCutoff("--older-than", olderThan, a.Now()); err != nil {
					return err
				}
			}
			s, err := a.Store(ctx)
			if err != nil {
				return err
			}
			res, err := s.Prune(ctx, opt)
			if err != nil {
				return err
			}
			if a.quiet && !dryRun {
				return nil
			}
			return a.printPrune(res, dryRun)
		},
	}
	f := cmd.Flags()
	f.StringVar(&olderThan, "older-than", "", "only conversations whose last activity is older than this: DURATION (30d) or an RFC 3339 time")
	f.BoolVar(&keepSummaries, "keep-summaries", false, "trim to the latest summary and what follows it instead of deleting")
	f.StringVar(&glob, "conversation-glob", "", "only conversations whose id matches this glob")
	f.BoolVar(&dryRun, "dry-run", false, "print the tally of what would go; change nothing")
	return cmd
}

func (a *Factory) printPrune(res store.PruneResult, dryRun bool) error {
	w := newLineWriter(a.IO.Out)
	verb := map[bool]string{true: "deleted", false: "trimmed"}
	if dryRun {
		verb = map[bool]string{true: "would delete", false: "would trim"}
	}
	for _, p := range res.Conversations {
		fmt.Fprintf(w, "%s\t%s\t%d record(s)\n", verb[p.Deleted], p.Conversation, p.Records)
	}
	fmt.Fprintf(w, "prune: %d conversation(s) %s, %d %s, %d record(s) removed", res.Deleted, verb[true], res.Trimmed, verb[false], res.Records)
	switch {
	case dryRun:
		fmt.Fprint(w, " (dry run: nothing changed)")
	case res.Vacuumed:
		fmt.Fprintf(w, "; vacuumed, %d bytes freed", res.FreedBytes)
	}
	fmt.Fprintln(w)
	return w.Flush()
}

// parseCutoff reads an age (a Go duration, Nd or Nw) as now minus that, or
// an RFC 3339 time or ms since the epoch as the instant itself, in ms.
func parseCutoff(flag, v string, now time.Time) (int64, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UnixMilli(), nil
	}
	if len(v) > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[v[len(v)-1]]
		if n, err := strconv.ParseFloat(v[:len(v)-1], 64); err == nil && unit > 0 && n >= 0 {
			return now.Add(-time.Duration(n * float64(unit))).UnixMilli(), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UnixMilli(), nil
	}
	return 0, usageErrorf("%s %q: want a duration (36h, 30d, 2w) or an RFC 3339 time", flag, v)
}

// listFilter is list's --since and --older-than.
type listFilter struct {
	since, olderThan string
	from, before     int64
}

func (f *listFilter) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.since, "since", "", "only conversations active since then: DURATION ago (24h, 7d) or an RFC 3339 time")
	cmd.Flags().StringVar(&f.olderThan, "older-than", "", "only conversations with no activity since then: DURATION ago (30d) or an RFC 3339 time")
}

func (f *listFilter) parse(now time.Time) error {
	var err error
	if f.since != "" {
		if f.from, err = parseCutoff("--since", f.since, now); err != nil {
			return err
		}
	}
	if f.olderThan != "" {
		if f.before, err = parseCutoff("--older-than", f.olderThan, now); err != nil {
			return err
		}
	}
	return nil
}

// keep reports whether a conversation passes the filter.
func (f *listFilter) keep(c store.ConversationInfo) bool {
	return (f.from == 0 || c.Updated >= f.from) && (f.before == 0 || c.Updated < f.before)
}

// listEntry is one line of list --json. Consumers ignore fields they do not
// know; fields are added, never removed or renamed.
type listEntry struct {
	Conversation string `json:"conversation"`
	Records      int64  `json:"records"`
	Tokens       int    `json:"tokens"`
	Created      int64  `json:"created"`
	Updated      int64  `json:"updated"`
	Summaries    int64  `json:"summaries"`
	// LatestSummary is the id of the latest summary, absent when none.
	LatestSummary        string `json:"latestSummary,omitempty"`
	LatestSummaryCreated int64  `json:"latestSummaryCreated,omitempty"`
	// AfterSummary counts the records after the latest summary (all of
	// them when there is none): what summarize --every looks at.
	AfterSummary int64 `json:"afterSummary"`
	// Exports lists the sinks exported to, each with the records an
	// incremental export would send now.
	Exports []listExport `json:"exports"`
}

type listExport struct {
	Sink    string `json:"sink"`
	Seq     int64  `json:"seq"`
	Pending int64  `json:"pending"`
	Held    bool   `json:"held"`
	Updated int64  `json:"updated"`
}

// listJSON is list --json's line for one conversation.
func listJSON(ctx context.Context, s *store.Store, c store.ConversationInfo, tokens int) ([]byte, error) {
	st, err := s.Status(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	e := listEntry{
		Conversation: c.ID, Records: c.Records, Tokens: tokens, Created: c.Created, Updated: c.Updated,
		Summaries: st.Summaries, LatestSummary: st.LatestSummary, LatestSummaryCreated: st.LatestSummaryCreated,
		AfterSummary: st.AfterSummary, Exports: []listExport{},
	}
	for _, x := range st.Exports {
		e.Exports = append(e.Exports, listExport{x.Sink, x.Seq, x.Pending, x.Held, x.Updated})
	}
	return json.Marshal(e)
}
