package summarize

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

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

var (
	month      = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`
	factSource = strings.Join([]string{
		`https?://[^\s<>"'()]+[^\s<>"'().,;:!?]`,                 // URLs
		`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,                           // e-mail addresses
		`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b`, // ISO dates
		`\b\d{1,2}(?:st|nd|rd|th)? ` + month + `,? \d{4}\b`,      // 7 May 2023
		`\b` + month + ` \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b`,      // May 7, 2023
		"`[^`\n]{2,60}`",                     // code in backticks
		`\b[A-Za-z]+(?:[_-][A-Za-z0-9]+)+\b`, // snake_case, kebab-case ids
		`\b[a-z]+[A-Z][A-Za-z0-9]*\b`,        // camelCase
		`#\d+\b`,                             // #123
		`\b[A-Z0-9]*[A-Z][A-Z0-9]*\d[A-Z0-9]*\b|\b\d+[A-Z][A-Z0-9]*\b`,                                                // A123, 4B, ULIDs
		`(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|[kmg]?b\b|ms\b|s\b|kg\b|km\b|mi\b|usd\b|eur\b|°[cf]))?`, // numbers, amounts
	}, "|")
	factRE      = regexp.MustCompile(factSource)
	directiveRE = regexp.MustCompile(`(?i)\b(always|never|don'?t|do not|please|make sure|must|should(?:n'?t)?|i want|i'?d like|i prefer|i need|remember|avoid|only use|use only)\b`)
	// A sentence ends at . ! or ? followed by a space, or at a line end, so
	// URLs and decimals stay whole.
	sentenceRE = regexp.MustCompile(`(?:[^.!?\n]|[.!?]+[^\s.!?])+[.!?]*`)
	wordBefore = regexp.MustCompile(`([\p{L}_][\p{L}\p{N}_]*)[^\p{L}\p{N}\n]{0,4}$`)
)

// extractFacts returns the facts of one text, in order of appearance. A
// number keeps the word just before it ("over 30 EUR", "avg_c 17"), so it
// still says what it counts; a bare one-digit number is noise and dropped.
func extractFacts(text string, directives bool) []string {
	var out []string
	for _, loc := range factRE.FindAllStringIndex(text, -1) {
		fact := strings.TrimSpace(text[loc[0]:loc[1]])
		if isNumber(fact) {
			m := wordBefore.FindStringSubmatch(text[max(0, loc[0]-40):loc[0]])
			switch {
			case m != nil:
				fact = m[1] + " " + fact
			case len(fact) == 1:
				continue
			}
		}
		out = append(out, fact)
	}
	if directives {
		for _, s := range sentenceRE.FindAllString(text, -1) {
			if s = strings.TrimSpace(s); directiveRE.MatchString(s) && len(strings.Fields(s)) >= 3 {
				out = append(out, clipWords(s, 30))
			}
		}
	}
	return out
}

// isNumber reports whether a fact starts like an amount rather than an id.
func isNumber(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || strings.ContainsAny(s[:1], "$€£")) && !strings.ContainsAny(s, "-:")
}

func clipWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + " …"
}

// CarryLedger returns the ledger of a new summary: the previous summary's
// entries, then the facts of the covered records. An entry seen again moves
// to the end; past size, the entries at the front (seen longest ago) go.
func CarryLedger(prev *transcript.Record, covered []transcript.Record, size int) []string {
	if size <= 0 {
		size = DefaultLedgerSize
	}
	var ledger []string
	if prev != nil {
		if raw, ok := prev.Metadata.Aux["ledger"]; ok {
			_ = json.Unmarshal(raw, &ledger)
		}
	}
	index := map[string]int{}
	for i, e := range ledger {
		index[strings.ToLower(e)] = i
	}
	add := func(e string) {
		key := strings.ToLower(e)
		if i, ok := index[key]; ok {
			ledger = slices.Delete(ledger, i, i+1)
			for k, j := range index {
				if j > i {
					index[k] = j - 1
				}
			}
		}
		index[key] = len(ledger)
		ledger = append(ledger, e)
	}
	for _, r := range covered {
		directives := r.Message.Role == transcript.RoleUser && !r.IsFake()
		for _, c := range r.Message.Contents {
			for _, f := range extractFacts(c, directives) {
				add(f)
			}
		}
		for _, tc := range r.Message.ToolCalls {
			add(tc.Name + "(" + clipWords(tc.Arguments, 20) + ")")
		}
	}
	if len(ledger) > size {
		ledger = ledger[len(ledger)-size:]
	}
	return ledger
}
