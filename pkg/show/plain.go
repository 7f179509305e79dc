package show

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Plain is show --plain: the layout of earlier versions, one line
// per record, for scripts.
type Plain struct {
	w    *bufio.Writer
	line []byte
}

// NewPlain writes to w.
func NewPlain(w *bufio.Writer) *Plain { return &Plain{w: w} }

// Heading is the first line: the conversation and what the markers mean.
func (p *Plain) Heading(conv string) error {
	_, err := fmt.Fprintf(p.w, "conversation %s ('*' first record sent to the LLM, '^' latest summary, '-' next record to export)\n", EscapeID(conv))
	return err
}

// Record prints record r at index idx with its markers.
func (p *Plain) Record(idx int, marks [3]byte, r *transcript.Record) error {
	p.line = appendShowLine(p.line[:0], idx, marks[:], r)
	_, err := p.w.Write(p.line)
	return err
}

// Footer says, when so, that everything was exported.
func (p *Plain) Footer(records int, allExported bool) error {
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
