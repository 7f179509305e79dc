package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

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
	plain        bool
	verbose      bool

	// For tests: the width and colour a terminal would give, and the
	// time zone (nil: the local one).
	width  int
	colour *bool
	loc    *time.Location
}

// newCmdShow builds `convo show`. runF replaces showRun in tests that
// check flag parsing alone.
func newCmdShow(f *Factory, runF func(context.Context, *showOptions) error) *cobra.Command {
	o := &showOptions{f: f}
	cmd := &cobra.Command{
		Use:   "show -c ID [--verbose | --plain | --json]",
		Short: "Show a conversation for a person, with its markers",
		Example: `  convo show -c demo
  convo show -c demo --verbose
  convo show -c demo --plain | grep -c '\[user\]'
  convo show -c demo --json | jq -r '.message.role'`,
		Long: `Show a conversation for a person: per record its index, markers, role, local
time and attributes, then its text, wrapped to the terminal's width (80
columns when stdout is no terminal). A summary names the records it covers
("records 3-41 (39)"), a tool result the call it answers. Colour at a
terminal, unless NO_COLOR is set.

Markers: '*' the first record sent to the LLM, '^' the latest summary,
'-' the next record an incremental export to the default sink will send.

--verbose adds each record's id, its timing keys and its aux. --plain prints
the layout of earlier versions, one line per record with its id and
metadata (times in ms since the epoch), for scripts that parse it; --json
prints canonical JSONL, as get does.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireConversation(o.conversation); err != nil {
				return err
			}
			if n := btoi(o.json) + btoi(o.plain) + btoi(o.verbose); n > 1 {
				return usageErrorf("--verbose, --plain and --json are three layouts: give one")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return showRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to show")
	cmd.Flags().BoolVar(&o.json, "json", false, "print canonical JSONL instead")
	cmd.Flags().BoolVar(&o.plain, "plain", false, "one line per record with id and metadata, the layout scripts parse")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "add each record's id, timing and aux")
	return cmd
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// recordPrinter prints show's records in one layout.
type recordPrinter interface {
	heading(conv string) error
	record(idx int, marks [3]byte, r *transcript.Record) error
	footer(records int, allExported bool) error
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
	w := bufio.NewWriter(o.f.IO.Out)
	var out recordPrinter
	var people *peoplePrinter
	if o.plain {
		out = &plainPrinter{w: w}
	} else {
		width := o.width
		if width == 0 {
			width = o.f.IO.TerminalWidth()
		}
		colour := useColour(o.f.IO)
		if o.colour != nil {
			colour = *o.colour
		}
		people = newPeoplePrinter(w, width, colour, o.verbose, hasSummary, o.loc)
		out = people
	}
	if err := out.heading(o.conversation); err != nil {
		return err
	}
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
		latest := hasSummary && at(summary)
		inView = inView || latest
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
		if err := out.record(idx, marks, &r); err != nil {
			return err
		}
		if latest && people != nil {
			people.track = false // no summary comes after the latest
		}
		idx++
		return nil
	})
	if err != nil {
		return err
	}
	if err := out.footer(idx, !exportMarked); err != nil {
		return err
	}
	return w.Flush()
}

// plainPrinter is show --plain: the layout of earlier versions, one line
// per record, for scripts.
type plainPrinter struct {
	w    *bufio.Writer
	line []byte
}

func (p *plainPrinter) heading(conv string) error {
	_, err := fmt.Fprintf(p.w, "conversation %s ('*' first record sent to the LLM, '^' latest summary, '-' next record to export)\n", escapeID(conv))
	return err
}

func (p *plainPrinter) record(idx int, marks [3]byte, r *transcript.Record) error {
	p.line = appendShowLine(p.line[:0], idx, marks[:], r)
	_, err := p.w.Write(p.line)
	return err
}

func (p *plainPrinter) footer(records int, allExported bool) error {
	if !allExported {
		return nil
	}
	_, err := fmt.Fprintf(p.w, "-    -> index %d (everything exported)\n", records)
	return err
}

// appendShowLine appends show's line for record r at index idx: built with
// appends into one buffer, as a million-record conversation reads faster
// that way than through fmt.
func appendShowLine(b []byte, idx int, marks []byte, r *transcript.Record) []byte {
	n := len(b)
	b = strconv.AppendInt(b, int64(idx), 10)
	for len(b)-n < 4 {
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = append(b, marks...)
	b = append(b, " ["...)
	b = append(b, r.Message.Role...)
	b = append(b, "] "...)
	b = appendContentsForPeople(b, r)
	b = append(b, " -- "...)
	b = append(b, r.ID...)
	b = append(b, ' ')
	b = appendMetadataForPeople(b, &r.Metadata)
	return append(b, '\n')
}

func appendContentsForPeople(b []byte, r *transcript.Record) []byte {
	start := len(b)
	b = append(b, '{')
	for i, c := range r.Message.Contents {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendQuote(b, c)
	}
	for _, tc := range r.Message.ToolCalls {
		if len(b)-start > 1 {
			b = append(b, ' ')
		}
		b = append(b, tc.Name...)
		b = append(b, '#')
		b = append(b, tc.ID...)
		b = append(b, '(')
		b = append(b, tc.Arguments...)
		b = append(b, ')')
	}
	b = append(b, '}')
	if r.Message.Role == transcript.RoleTool {
		b = append(b, " answers "...)
		b = append(b, r.Message.ToolCallID...)
		if r.Message.Name != "" {
			b = append(b, " ("...)
			b = append(b, r.Message.Name...)
			b = append(b, ')')
		}
		if r.Message.IsError {
			b = append(b, " error"...)
		}
	}
	return b
}

func appendMetadataForPeople(b []byte, m *transcript.Metadata) []byte {
	b = append(b, '{')
	list := func(name string, items []string) {
		b = append(b, name...)
		b = append(b, "=["...)
		for i, s := range items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, s...)
		}
		b = append(b, "], "...)
	}
	if len(m.Attribute) > 0 {
		list("attribute", m.Attribute)
	}
	if len(m.SummaryIDs) > 0 {
		list("summaryIds", m.SummaryIDs)
	}
	b = append(b, "timing={"...)
	first := true
	for _, k := range transcript.TimingKeys {
		if v, ok := m.Timing.Get(k); ok {
			if !first {
				b = append(b, ", "...)
			}
			first = false
			b = append(b, k...)
			b = append(b, '=')
			b = strconv.AppendInt(b, v, 10)
		}
	}
	b = append(b, '}')
	if len(m.Aux) > 0 {
		aux, _ := json.Marshal(m.Aux)
		b = append(b, ", aux="...)
		b = append(b, aux...)
	}
	return append(b, '}')
}
