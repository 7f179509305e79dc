package facts

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Heading opens the ledger's section of a summary's text.
const Heading = "Facts carried verbatim:"

// Fact is one ledger entry: the text, carried verbatim, the words that
// say what it is, its kind (a shape of shapes.go, "argument" or
// "instruction"), how many times it was seen across the covered records of
// every summary so far, and who said it first (the record's name, or else
// its role).
type Fact struct {
	Text  string `json:"fact"`
	Label string `json:"label,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Seen  int    `json:"seen"`
	By    string `json:"by,omitempty"`
}

// entry is a fact as the ledger's text shows it: its label, then itself.
func (f Fact) entry() string {
	if f.Label == "" || f.Kind == "instruction" {
		return f.Text
	}
	return f.Label + " " + f.Text
}

// Text is the ledger as the summary text shows it: a heading that says
// how many entries were dropped, if any, then a line per speaker, in order
// of their first fact, the facts in ledger order, each with its label.
func Text(ledger []Fact, dropped int) string {
	var order []string
	bySpeaker := map[string][]string{}
	for _, f := range ledger {
		by := cmp.Or(f.By, "said")
		if _, ok := bySpeaker[by]; !ok {
			order = append(order, by)
		}
		bySpeaker[by] = append(bySpeaker[by], f.entry())
	}
	var b strings.Builder
	b.WriteString(Heading)
	if dropped > 0 {
		fmt.Fprintf(&b, " (%d less used dropped)", dropped)
	}
	for _, by := range order {
		b.WriteString("\n- ")
		b.WriteString(by)
		b.WriteString(": ")
		b.WriteString(strings.Join(bySpeaker[by], factSep))
	}
	return b.String()
}

// factSep parts facts on a ledger line; a fact holding it is still read
// whole from aux.ledger, where each is its own entry.
const factSep = " | "

// By names who said a record: its name, else its role.
func By(r transcript.Record) string {
	if r.Message.Name != "" && r.Message.Role != transcript.RoleTool {
		return r.Message.Name
	}
	if r.Message.Role == transcript.RoleTool && r.Message.Name != "" {
		return "tool " + r.Message.Name
	}
	return string(r.Message.Role)
}

// Missing are the facts text does not already hold: only those need
// repeating after it. Text holds a fact when one part of it (a line, an
// entry, a phrase of a note: see parts) holds the fact verbatim and every
// word of its label.
//
// An identifier an instruction shown holds with its label ("order #4512"
// in "Use order #4512 for the flight.") is not shown apart from it.
func Missing(text string, ledger []Fact) []Fact {
	var out []Fact
	var shown strings.Builder // the instructions shown, a line each
	for _, f := range ledger {
		if !holds(text, f) {
			out = append(out, f)
			if f.Kind == "instruction" {
				shown.WriteString(f.Text)
				shown.WriteByte('\n')
			}
		}
	}
	if shown.Len() == 0 {
		return out
	}
	instructions := shown.String()
	kept := out[:0]
	for _, f := range out {
		if f.Kind == "instruction" || !holds(instructions, f) {
			kept = append(kept, f)
		}
	}
	return kept
}

// separators part a text into the places a label must share with its
// fact: lines (first: holds looks for the others inside the line), ledger
// entries, a note's phrases and sides.
var separators = []string{"\n", factSep, "; ", "→"}

func holds(text string, f Fact) bool {
	if f.Label == "" || f.Kind == "instruction" {
		return strings.Contains(text, f.Text)
	}
	label := strings.Fields(strings.ToLower(f.Label))
	for from := 0; ; {
		i := strings.Index(text[from:], f.Text)
		if i < 0 {
			return false
		}
		i += from
		// The line is found first, and the other separators only in it: a
		// summary is many lines, and every fact is looked for in it.
		start := strings.LastIndexByte(text[:i], '\n') + 1
		end := len(text)
		if k := strings.IndexByte(text[i+len(f.Text):], '\n'); k >= 0 {
			end = i + len(f.Text) + k
		}
		for _, sep := range separators[1:] {
			if k := strings.LastIndex(text[start:i], sep); k >= 0 {
				start += k + len(sep)
			}
			if k := strings.Index(text[i+len(f.Text):end], sep); k >= 0 {
				end = i + len(f.Text) + k
			}
		}
		// The label's words are looked for beside the fact, not in it:
		// "panic: runtime error: …" does not label "runtime error: …" as
		// the runtime panic.
		part := strings.ToLower(text[start:i] + " " + text[i+len(f.Text):end])
		all := true
		for _, w := range label {
			if !strings.Contains(part, w) {
				all = false
				break
			}
		}
		if all {
			return true
		}
		from = i + len(f.Text)
	}
}

// Cost is the tokens the ledger's section takes after a summary's text.
func Cost(ledger []Fact, dropped int, c *tokens.Counter) int {
	if len(ledger) == 0 {
		return 0
	}
	return c.Count("\n\n" + Text(ledger, dropped))
}
