package summarize

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/convo-cli/convo/pkg/transcript"
)

// The fact ledger: identifiers, numbers, dates, URLs and user directives
// found by code in the covered records, carried verbatim from summary to
// summary in aux.ledger and appended to the summary text, so repeated
// summarizing cannot lose them whatever the summarizer writes.

const ledgerHeading = "Facts carried verbatim:"

// DefaultLedgerSize bounds the ledger; past it the entries not seen for
// longest are dropped first.
const DefaultLedgerSize = 48

// Fact is one ledger entry: the text, carried verbatim, and how many times
// it was seen across the covered records of every summary so far.
type Fact struct {
	Text string `json:"fact"`
	Seen int    `json:"seen"`
}

// CarryLedger returns the ledger of a new summary: the previous summary's
// facts, with the facts of the covered records counted in, within budget
// tokens (counted by count; 0: no bound) and size entries. Past that the
// entries seen least often go first and, among those, the newest: the
// oldest are dropped last, so what was established early (names, ids)
// survives repeated summarizing.
func CarryLedger(prev *transcript.Record, covered []transcript.Record, size, budget int, count func(string) int) []Fact {
	if size <= 0 {
		size = DefaultLedgerSize
	}
	var ledger []Fact
	if prev != nil {
		if raw, ok := prev.Metadata.Aux["ledger"]; ok {
			_ = json.Unmarshal(raw, &ledger)
		}
	}
	index := make(map[string]int, len(ledger))
	for i, f := range ledger {
		index[strings.ToLower(f.Text)] = i
	}
	add := func(text string) {
		k := strings.ToLower(text)
		if i, ok := index[k]; ok {
			ledger[i].Seen++
			return
		}
		index[k] = len(ledger)
		ledger = append(ledger, Fact{Text: text, Seen: 1})
	}
	for _, r := range covered {
		if r.IsFake() {
			continue
		}
		directives := r.Message.Role == transcript.RoleUser
		for _, c := range r.Message.Contents {
			for _, f := range extractFacts(c, directives) {
				add(f)
			}
		}
		for _, tc := range r.Message.ToolCalls {
			add(tc.Name + "(" + clipWords(tc.Arguments, 20) + ")")
		}
	}
	rank := make([]int, len(ledger))
	for i := range rank {
		rank[i] = i
	}
	// Seen more first; the sort is stable, so older first among equals.
	slices.SortStableFunc(rank, func(a, b int) int { return ledger[b].Seen - ledger[a].Seen })
	keep := make([]bool, len(ledger))
	used, kept := 0, 0
	for _, i := range rank {
		if kept == size {
			break
		}
		if count != nil && budget > 0 {
			cost := count(ledger[i].Text) + 1
			if used+cost > budget {
				continue
			}
			used += cost
		}
		keep[i] = true
		kept++
	}
	out := ledger[:0]
	for i, f := range ledger {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out
}

// ledgerText is the ledger as the summary text shows it: a fact a line.
func ledgerText(ledger []Fact) string {
	var b strings.Builder
	b.WriteString(ledgerHeading)
	for _, f := range ledger {
		b.WriteString("\n- ")
		b.WriteString(f.Text)
	}
	return b.String()
}

// missingFacts are the facts text does not already hold, word for word
// (case and punctuation aside): only those need repeating after it.
func missingFacts(text string, ledger []Fact) []Fact {
	have := normalizeWords(text)
	var out []Fact
	for _, f := range ledger {
		if !strings.Contains(have, normalizeWords(f.Text)) {
			out = append(out, f)
		}
	}
	return out
}

// normalizeWords lower-cases s and keeps its words, one space apart, with a
// space at each end so that containment means whole words.
func normalizeWords(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}
