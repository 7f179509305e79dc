package facts

import (
	"cmp"
	"strings"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Heading opens the ledger's section of a summary's text.
const Heading = "Facts carried verbatim:"

// Fact is one ledger entry: the text, carried verbatim, how many times it
// was seen across the covered records of every summary so far, and who
// said it first (the record's name, or else its role).
type Fact struct {
	Text string `json:"fact"`
	Seen int    `json:"seen"`
	By   string `json:"by,omitempty"`
}

// Text is the ledger as the summary text shows it: a line per
// speaker, in order of their first fact, the facts in ledger order.
func Text(ledger []Fact) string {
	var order []string
	bySpeaker := map[string][]string{}
	for _, f := range ledger {
		by := cmp.Or(f.By, "said")
		if _, ok := bySpeaker[by]; !ok {
			order = append(order, by)
		}
		bySpeaker[by] = append(bySpeaker[by], f.Text)
	}
	var b strings.Builder
	b.WriteString(Heading)
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

// Missing are the facts text does not already hold verbatim: only
// those need repeating after it. A quoted fact is held by its words
// ("Becoming Nicole" by Becoming Nicole): notes keep no quotes.
func Missing(text string, ledger []Fact) []Fact {
	var out []Fact
	for _, f := range ledger {
		if !strings.Contains(text, f.Text) && !strings.Contains(text, unquote(f.Text)) {
			out = append(out, f)
		}
	}
	return out
}

// unquote is a quoted fact's words, without the quotes and a stop inside
// them ("Finding Home." is Finding Home); any other fact as it is.
func unquote(fact string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}} {
		if inner, ok := strings.CutPrefix(fact, q[0]); ok {
			if inner, ok := strings.CutSuffix(inner, q[1]); ok {
				if words := strings.TrimRight(inner, ".!?, "); strings.TrimSpace(words) != "" {
					return words
				}
			}
		}
	}
	return fact
}

// Cost is the tokens the ledger's section takes after a summary's text.
func Cost(ledger []Fact, c *tokens.Counter) int {
	if len(ledger) == 0 {
		return 0
	}
	return c.Count("\n\n" + Text(ledger))
}
