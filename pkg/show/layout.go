package show

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// This file is show's layout for people (docs/spec.md, section 3): local
// times, wrapped text, a summary's covered records as a range, colour at a
// terminal. show --plain keeps the line-per-record layout (plain.go).

const (
	// showIndent is where a record's role and its text start: a four-column
	// index, a space, the three markers, a space.
	showIndent = 9
	// showWidth is the width when stdout is no terminal.
	showWidth = 80
	// showTrackIDs bounds the ids show keeps to name a summary's first and
	// last covered records by index: the ones since the previous summary,
	// oldest first, where a progressive summary's first covered id is.
	showTrackIDs = 1 << 16
)

// ANSI colours, used only at a terminal without NO_COLOR (the caller
// decides: see NewLayout).
const (
	ANSIReset  = "\x1b[0m"
	ANSIBold   = "\x1b[1m"
	ANSIDim    = "\x1b[2m"
	ANSIRed    = "\x1b[31m"
	ANSIYellow = "\x1b[1;33m"
)

var roleColour = map[transcript.Role]string{
	transcript.RoleSystem:    "\x1b[1;35m",
	transcript.RoleUser:      "\x1b[1;36m",
	transcript.RoleAssistant: "\x1b[1;32m",
	transcript.RoleTool:      "\x1b[1;34m",
	transcript.RoleSummary:   "\x1b[1;33m",
}

// Layout writes show's records for people, one at a time.
type Layout struct {
	w       *bufio.Writer
	width   int // columns of a line
	colour  bool
	verbose bool
	loc     *time.Location

	b   []byte
	day string // the day of the last day line
	// ids since the previous summary (at most showTrackIDs) and every
	// summary's, by index: a summary's covered range is read off them.
	track  bool
	ids    map[string]int
	sums   map[string]int
	prevID string // the record just before, always known
	prev   int
	// calls names the tool calls of the latest assistant record by id.
	calls map[string]string
}

// NewLayout writes to w at width columns (0: 80), in colour or not, with
// each record's details when verbose, its times in loc (nil: local);
// hasSummary says the conversation holds one, whose covered range it
// then names by index.
func NewLayout(w *bufio.Writer, width int, colour, verbose, hasSummary bool, loc *time.Location) *Layout {
	if width <= 0 {
		width = showWidth
	}
	if loc == nil {
		loc = time.Local
	}
	p := &Layout{w: w, width: width, colour: colour, verbose: verbose, loc: loc, track: hasSummary, calls: map[string]string{}}
	if hasSummary {
		p.ids, p.sums = map[string]int{}, map[string]int{}
	}
	return p
}

func (p *Layout) paint(code, s string) {
	if p.colour && code != "" {
		p.b = append(p.b, code...)
		p.b = append(p.b, s...)
		p.b = append(p.b, ANSIReset...)
		return
	}
	p.b = append(p.b, s...)
}

// Heading is the first lines: the conversation and what the markers mean.
func (p *Layout) Heading(conv string) error {
	p.b = p.b[:0]
	p.b = append(p.b, "conversation "...)
	p.paint(ANSIBold, EscapeID(conv))
	p.b = append(p.b, '\n')
	p.line(0, ANSIDim, "* first record sent to the LLM   ^ latest summary   - next record to export")
	_, err := p.w.Write(p.b)
	return err
}

// Record prints record r at index idx with its markers.
func (p *Layout) Record(idx int, marks [3]byte, r *transcript.Record) error {
	p.b = p.b[:0]
	m := &r.Metadata
	created, hasCreated := m.Timing.Get("creation")
	if hasCreated {
		t := time.UnixMilli(created).In(p.loc)
		if day := t.Format("2006-01-02"); day != p.day {
			p.day = day
			p.paint(ANSIDim, "── "+t.Format("Mon 2 Jan 2006")+" ──")
			p.b = append(p.b, '\n')
		}
	}
	// index, markers, role, time
	role := r.Message.Role
	p.head(idx, marks, role)
	col := showIndent + max(len(role), len("assistant"))
	// what follows the role, each part on this line while it fits
	extra := func(code, s string) {
		w := textWidth(s)
		if col+2+w > p.width {
			p.b = append(p.b, '\n')
			p.b = append(p.b, "         "[:showIndent]...)
			col = showIndent
		} else {
			p.b = append(p.b, "  "...)
			col += 2
		}
		p.paint(code, s)
		col += w
	}
	if hasCreated {
		extra(ANSIDim, time.UnixMilli(created).In(p.loc).Format("15:04"))
	}
	for _, a := range m.Attribute {
		extra(ANSIDim, a)
	}
	switch role {
	case transcript.RoleTool:
		name := r.Message.Name
		if name == "" {
			name = p.calls[r.Message.ToolCallID]
		}
		what := "result"
		if name != "" {
			what += " of " + Escape(name)
		}
		if p.verbose {
			what += " for call " + Escape(r.Message.ToolCallID)
		}
		extra(ANSIDim, what)
		if r.Message.IsError {
			extra(ANSIRed, "error")
		}
	case transcript.RoleSummary:
		extra(ANSIDim, p.covered(m.SummaryIDs))
	case transcript.RoleAssistant:
		if len(r.Message.ToolCalls) > 0 {
			clear(p.calls)
			for _, tc := range r.Message.ToolCalls {
				p.calls[tc.ID] = tc.Name
			}
		}
	}
	p.b = append(p.b, '\n')

	p.body(r)
	if p.verbose {
		p.details(r)
	}
	p.remember(idx, r)
	if marks[1] == '^' {
		p.track = false // the latest summary: no summary comes after it
	}
	_, err := p.w.Write(p.b)
	return err
}

// head prints a record's index, its markers and its role, padded.
func (p *Layout) head(idx int, marks [3]byte, role transcript.Role) {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(idx), 10)
	for range 4 - len(digits) {
		p.b = append(p.b, ' ')
	}
	p.b = append(p.b, digits...)
	p.b = append(p.b, ' ')
	for _, c := range marks {
		if c == ' ' {
			p.b = append(p.b, ' ')
		} else {
			p.paint(ANSIYellow, string(c))
		}
	}
	p.b = append(p.b, ' ')
	p.paint(roleColour[role], string(role))
	for i := len(role); i < len("assistant"); i++ {
		p.b = append(p.b, ' ')
	}
}

// body prints a record's text: its contents, then its tool calls.
func (p *Layout) body(r *transcript.Record) {
	for _, c := range r.Message.Contents {
		p.text(c)
	}
	for _, tc := range r.Message.ToolCalls {
		call := "→ " + tc.Name + "(" + tc.Arguments + ")"
		if p.verbose {
			call += "  call " + tc.ID
		}
		p.text(call)
	}
}

// covered says which records a summary stands for: "records 3-41 (39)",
// by the indexes of its first and last covered ids.
func (p *Layout) covered(ids []string) string {
	if len(ids) == 0 {
		return "no records"
	}
	first, ok1 := p.index(ids[0])
	last, ok2 := p.index(ids[len(ids)-1])
	if !ok1 || !ok2 || first > last {
		if len(ids) == 1 {
			return "1 record"
		}
		return strconv.Itoa(len(ids)) + " records"
	}
	if first == last {
		return fmt.Sprintf("record %d (%d)", first, len(ids))
	}
	return fmt.Sprintf("records %d-%d (%d)", first, last, len(ids))
}

func (p *Layout) index(id string) (int, bool) {
	if id == p.prevID && p.prevID != "" {
		return p.prev, true
	}
	if i, ok := p.ids[id]; ok {
		return i, true
	}
	i, ok := p.sums[id]
	return i, ok
}

// remember keeps what later summaries' ranges need: every summary's index,
// and the ids since the previous summary, up to showTrackIDs of them.
func (p *Layout) remember(idx int, r *transcript.Record) {
	p.prevID, p.prev = r.ID, idx
	if !p.track {
		return
	}
	if r.Message.Role == transcript.RoleSummary {
		// What the next summary covers starts here (with this one).
		clear(p.ids)
		p.sums[r.ID] = idx
		return
	}
	if len(p.ids) < showTrackIDs {
		p.ids[r.ID] = idx
	}
}

// details are --verbose's lines: the id, every timing key as a local time,
// the covered ids' ends, each aux key with its JSON value.
func (p *Layout) details(r *transcript.Record) {
	m := &r.Metadata
	p.detail("id " + r.ID)
	if n := len(m.SummaryIDs); n > 0 {
		p.detail("covers " + m.SummaryIDs[0] + " to " + m.SummaryIDs[n-1])
	}
	for _, k := range transcript.TimingKeys {
		if v, ok := m.Timing.Get(k); ok {
			p.detail(k + " " + time.UnixMilli(v).In(p.loc).Format("2006-01-02 15:04:05.000 MST"))
		}
	}
	keys := make([]string, 0, len(m.Aux))
	for k := range m.Aux {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, _ := json.Marshal(m.Aux[k])
		p.detail("aux." + k + " " + string(v))
	}
}

func (p *Layout) detail(s string) { p.line(showIndent, ANSIDim, s) }

// line appends s, wrapped at indent as text does, in colour code.
func (p *Layout) line(indent int, code, s string) {
	if p.colour && code != "" {
		p.b = append(p.b, code...)
	}
	p.wrapAll(s, indent)
	if p.colour && code != "" {
		// the reset before the text's last newline, so that no line ends
		// coloured into the next record
		p.b = append(p.b[:len(p.b)-1], ANSIReset+"\n"...)
	}
}

// Footer is the last line: how many records, and whether all are exported.
func (p *Layout) Footer(records int, allExported bool) error {
	p.b = p.b[:0]
	s := strconv.Itoa(records) + " records"
	if records == 1 {
		s = "1 record"
	}
	if allExported {
		s += ", everything exported"
	}
	p.paint(ANSIDim, s)
	p.b = append(p.b, '\n')
	_, err := p.w.Write(p.b)
	return err
}
