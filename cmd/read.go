package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// DefaultSink is the export sink show's "-" marker follows.
const DefaultSink = "default"

func (a *Factory) newGetCmd() *cobra.Command {
	var conv, before string
	var limit int
	cmd := &cobra.Command{
		Use:   "get -c ID [--limit N] [--before ID|TIME]",
		Short: "Print a conversation's records as canonical JSONL, oldest first",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireConversation(conv); err != nil {
				return err
			}
			if limit < 0 {
				return usageErrorf("--limit %d: want a positive number", limit)
			}
			opt := store.ReadOptions{Limit: limit}
			if err := parseBefore(before, &opt); err != nil {
				return err
			}
			s, err := a.Store(cmd.Context())
			if err != nil {
				return err
			}
			enc := transcript.NewEncoder(a.IO.Out)
			err = s.Read(cmd.Context(), conv, opt, func(r store.Row) error { return enc.WriteLine(r.Body) })
			return errors.Join(err, enc.Flush())
		},
	}
	a.conversationFlag(cmd, &conv, "conversation to print")
	cmd.Flags().IntVar(&limit, "limit", 0, "only the newest N records (still oldest first)")
	cmd.Flags().StringVar(&before, "before", "", "only records before this record id, or created before this time (RFC 3339 or ms since the epoch)")
	return cmd
}

func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unexpected argument %q", args[0])
	}
	return nil
}

// parseBefore reads --before: a record id, ms since the epoch, or RFC 3339.
func parseBefore(v string, opt *store.ReadOptions) error {
	switch {
	case v == "":
	case len(v) == ulid.EncodedSize && ulidOK(v):
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

func ulidOK(s string) bool { _, err := ulid.ParseStrict(s); return err == nil }

func (a *Factory) newShowCmd() *cobra.Command {
	var conv string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show -c ID [--json]",
		Short: "Show a conversation for a person, with its markers",
		Long: `Show a conversation for a person: index, markers, role, contents, id, metadata.

Markers: '*' the first record sent to the LLM, '^' the latest summary,
'-' the next record an incremental export to the default sink will send.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireConversation(conv); err != nil {
				return err
			}
			s, err := a.Store(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				enc := transcript.NewEncoder(a.IO.Out)
				err := s.Read(cmd.Context(), conv, store.ReadOptions{}, func(r store.Row) error { return enc.WriteLine(r.Body) })
				return errors.Join(err, enc.Flush())
			}
			return a.show(cmd.Context(), s, conv)
		},
	}
	a.conversationFlag(cmd, &conv, "conversation to show")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print canonical JSONL instead")
	return cmd
}

func (a *Factory) show(ctx context.Context, s *store.Store, conv string) error {
	summary, hasSummary, err := s.LatestSummary(ctx, conv)
	if err != nil {
		return err
	}
	next, hasNext, err := s.NextExport(ctx, conv, DefaultSink)
	if err != nil {
		return err
	}
	w := newLineWriter(a.IO.Out)
	fmt.Fprintf(w, "conversation %s ('*' first record sent to the LLM, '^' latest summary, '-' next record to export)\n", conv)
	afterSummary := !hasSummary
	sentMarked, exportMarked := false, false
	idx := 0
	err = s.Read(ctx, conv, store.ReadOptions{}, func(row store.Row) error {
		var r transcript.Record
		if err := json.Unmarshal(row.Body, &r); err != nil {
			return fmt.Errorf("record at index %d: %w", idx, err)
		}
		marks := [3]byte{' ', ' ', ' '}
		if !afterSummary && row.Pos == summary.Pos && row.Sub == summary.Sub {
			marks[1] = '^'
			afterSummary = true
		} else if afterSummary && !sentMarked && r.Message.Role != transcript.RoleSystem && r.Message.Role != transcript.RoleSummary {
			marks[0] = '*'
			sentMarked = true
		}
		if !exportMarked && hasNext && row.Pos == next.Pos && row.Sub == next.Sub {
			marks[2] = '-'
			exportMarked = true
		}
		fmt.Fprintf(w, "%-4d %s [%s] %s -- %s %s\n", idx, marks[:], r.Message.Role, contentsForPeople(&r), r.ID, metadataForPeople(&r.Metadata))
		idx++
		return nil
	})
	if err != nil {
		return err
	}
	if !exportMarked {
		fmt.Fprintf(w, "-    -> index %d (everything exported)\n", idx)
	}
	return w.Flush()
}

func contentsForPeople(r *transcript.Record) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range r.Message.Contents {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(c))
	}
	for _, tc := range r.Message.ToolCalls {
		if b.Len() > 1 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s#%s(%s)", tc.Name, tc.ID, tc.Arguments)
	}
	b.WriteByte('}')
	if r.Message.Role == transcript.RoleTool {
		fmt.Fprintf(&b, " answers %s", r.Message.ToolCallID)
		if r.Message.Name != "" {
			fmt.Fprintf(&b, " (%s)", r.Message.Name)
		}
		if r.Message.IsError {
			b.WriteString(" error")
		}
	}
	return b.String()
}

func metadataForPeople(m *transcript.Metadata) string {
	var parts []string
	if len(m.Attribute) > 0 {
		parts = append(parts, "attribute=["+strings.Join(m.Attribute, ", ")+"]")
	}
	if len(m.SummaryIDs) > 0 {
		parts = append(parts, "summaryIds=["+strings.Join(m.SummaryIDs, ", ")+"]")
	}
	var ts []string
	for _, k := range transcript.TimingKeys {
		if v, ok := m.Timing.Get(k); ok {
			ts = append(ts, fmt.Sprintf("%s=%d", k, v))
		}
	}
	parts = append(parts, "timing={"+strings.Join(ts, ", ")+"}")
	if len(m.Aux) > 0 {
		aux, _ := json.Marshal(m.Aux)
		parts = append(parts, "aux="+string(aux))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

type lineWriter struct{ *tabwriter.Writer }

func newLineWriter(w io.Writer) lineWriter {
	return lineWriter{tabwriter.NewWriter(w, 0, 8, 1, ' ', 0)}
}

func (a *Factory) newListCmd() *cobra.Command {
	var asJSON bool
	var tokenizer string
	var filter listFilter
	cmd := &cobra.Command{
		Use:   "list [--since DURATION|TIME] [--older-than DURATION|TIME] [--json]",
		Short: "List the stored conversations: records, tokens in the LLM view, last activity",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			counter, err := tokens.New(tokenizer)
			if err != nil {
				return usageErrorf("--tokenizer: %v", err)
			}
			if err := filter.parse(a.Now()); err != nil {
				return err
			}
			s, err := a.Store(ctx)
			if err != nil {
				return err
			}
			var infos []store.ConversationInfo
			if err := s.Conversations(ctx, func(c store.ConversationInfo) error {
				if filter.keep(c) {
					infos = append(infos, c)
				}
				return nil
			}); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.IO.Out, 0, 8, 2, ' ', 0)
			if !asJSON {
				fmt.Fprintln(tw, "CONVERSATION\tRECORDS\tTOKENS\tLAST ACTIVITY")
			}
			for _, c := range infos {
				n, err := viewTokens(ctx, s, c.ID, counter)
				if err != nil {
					return err
				}
				if asJSON {
					line, err := listJSON(ctx, s, c, n)
					if err != nil {
						return err
					}
					fmt.Fprintf(tw, "%s\n", line)
					continue
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.ID, c.Records, n, time.UnixMilli(c.Updated).UTC().Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per conversation, with its summaries and export cursors")
	filter.addFlags(cmd)
	cmd.Flags().StringVar(&tokenizer, "tokenizer", tokens.Default, "token encoding: o200k_base or cl100k_base")
	return cmd
}

// viewTokens counts the tokens of a stored conversation's LLM view.
func viewTokens(ctx context.Context, s *store.Store, conv string, counter *tokens.Counter) (int, error) {
	n := 0
	err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		if row.Role == string(transcript.RoleSystem) {
			return nil
		}
		var r transcript.Record
		if err := json.Unmarshal(row.Body, &r); err != nil {
			return err
		}
		n += counter.Record(&r)
		return nil
	})
	return n, err
}
