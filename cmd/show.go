package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// DefaultSink is the export sink show's "-" marker follows.
const DefaultSink = "default"

// showOptions are the flags of `convo show`.
type showOptions struct {
	f            *Factory
	conversation string
	json         bool
}

// newCmdShow builds `convo show`. runF replaces showRun in tests that
// check flag parsing alone.
func newCmdShow(f *Factory, runF func(context.Context, *showOptions) error) *cobra.Command {
	o := &showOptions{f: f}
	cmd := &cobra.Command{
		Use:   "show -c ID [--json]",
		Short: "Show a conversation for a person, with its markers",
		Example: `  convo show -c demo
  convo show -c demo --json | jq -r '.message.role'`,
		Long: `Show a conversation for a person: index, markers, role, contents, id, metadata.

Markers: '*' the first record sent to the LLM, '^' the latest summary,
'-' the next record an incremental export to the default sink will send.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireConversation(o.conversation); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return showRun(cmd.Context(), o)
		},
	}
	f.conversationFlag(cmd, &o.conversation, "conversation to show")
	cmd.Flags().BoolVar(&o.json, "json", false, "print canonical JSONL instead")
	return cmd
}

func showRun(ctx context.Context, o *showOptions) error {
	if o.json {
		return printStored(ctx, o.f, o.conversation, store.ReadOptions{})
	}
	s, err := o.f.ReadStore(ctx)
	if err != nil {
		return err
	}
	summary, hasSummary, err := s.LatestSummary(ctx, o.conversation)
	if err != nil {
		return err
	}
	next, hasNext, err := s.NextExport(ctx, o.conversation, DefaultSink)
	if err != nil {
		return err
	}
	w := newLineWriter(o.f.IO.Out)
	fmt.Fprintf(w, "conversation %s ('*' first record sent to the LLM, '^' latest summary, '-' next record to export)\n", o.conversation)
	// The view starts at the latest summary: the filter is fed from there.
	inView := !hasSummary
	var view transcript.ViewFilter
	exportMarked := false
	idx := 0
	var r transcript.Record
	err = s.Read(ctx, o.conversation, store.ReadOptions{}, func(row store.Row) error {
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return fmt.Errorf("record at index %d: %w", idx, err)
		}
		at := func(p store.Place) bool { return row.Pos == p.Pos && row.Sub == p.Sub }
		marks := [3]byte{' ', ' ', ' '}
		inView = inView || at(summary)
		if inView {
			switch view.Add(r.Message.Role) {
			case transcript.ViewSummary:
				marks[1] = '^'
			case transcript.ViewFirst:
				marks[0] = '*'
			}
		}
		if !exportMarked && hasNext && at(next) {
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
