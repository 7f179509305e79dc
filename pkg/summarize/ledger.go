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

var (
	month      = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`
	factSource = strings.Join([]string{
		`https?://[^\s<>"'()]+[^\s<>"'().,;:!?]`,                 // URLs
		`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,                           // e-mail addresses
		`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b`, // ISO dates
		`\b\d{1,2}(?:st|nd|rd|th)? ` + month + `,? \d{4}\b`,      // 7 May 2023
		`\b` + month + ` \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b`,      // May 7, 2023
		"`[^`\n]{2,60}`",                             // code in backticks
		`"[^"\n]{3,60}"|“[^”\n]{3,60}”`,              // quoted titles
		`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b`, // snake_case ids
		`\b[a-z]+[A-Z][A-Za-z0-9]*\b`,                // camelCase
		`#\d+\b`,                                     // #123
		`\b[A-Za-z]*\d+[A-Za-z][A-Za-z0-9-]*\b|\b[A-Z]+\d[A-Z0-9-]*\b`,  // A123, 4B, v2, ULIDs
		`(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?`, // numbers, amounts
	}, "|")
	factRE = lazyRegexp(factSource)
	// Names: runs of capitalized words ("Matt Patterson", "Bank of America").
	nameRE = lazyRegexp(`\p{Lu}[\p{Ll}'’]+(?:(?: (?:of|and|the|de|van|von|&))* \p{Lu}[\p{L}'’]+)*`)
	// Directives: a user's sentence that tells the assistant how to behave.
	directiveRE = lazyRegexp(`(?i)^(?:\w+: )?(?:please |always |never |don'?t |do not |make sure |remember |avoid |only |stop |keep |use |call me |i want you to |i'?d like you to |i prefer |from now on)`)
	// A sentence ends at . ! or ? followed by a space, or at a line end, so
	// URLs and decimals stay whole.
	sentenceRE = lazyRegexp(`(?:[^.!?\n]|[.!?]+[^\s.!?])+[.!?]*`)
	wordBefore = lazyRegexp(`([\p{L}_][\p{L}\p{N}_]*)[^\p{L}\p{N}\n]{0,4}$`)
	wordAfter  = lazyRegexp(`^\s?([\p{L}]+)`)
	// contraction strips "'s", "'ll" and the like off names: "Oliver's" is Oliver.
	contraction = lazyRegexp(`['’](?:s|ll|re|ve|d|m|t)?\b|['’]$`)
)

// extractFacts returns the facts of one text, in order of appearance. A
// number keeps the word after it ("4 years", "30 EUR") and a telling word
// before it ("avg_c 17"), so it still says what it counts; a bare one-digit
// number is noise and dropped. Names are capitalized words that do not only
// start a sentence.
func extractFacts(text string, directives bool) []string {
	var out []string
	for _, loc := range factMatches(text) {
		fact := strings.TrimSpace(text[loc[0]:loc[1]])
		if isNumber(fact) {
			if m := wordAfter().FindStringSubmatch(text[loc[1]:min(len(text), loc[1]+30)]); m != nil && !stopwords[strings.ToLower(m[1])] {
				fact += " " + m[1]
			}
			if m := wordBefore().FindStringSubmatch(text[max(0, loc[0]-40):loc[0]]); m != nil && !stopwords[strings.ToLower(m[1])] {
				fact = m[1] + " " + fact
			}
			if !strings.Contains(fact, " ") && len(fact) < 3 {
				continue
			}
		}
		out = append(out, strings.Trim(fact, `"“”`))
	}
	for _, loc := range nameRE().FindAllStringIndex(text, -1) {
		name := text[loc[0]:loc[1]]
		if i := strings.LastIndexByte(name, ' '); i >= 0 {
			name = name[:i] + contraction().ReplaceAllString(name[i:], "")
		} else {
			name = contraction().ReplaceAllString(name, "")
		}
		words := strings.Fields(name)
		if sentenceStart(text, loc[0]) {
			// "Wow" or "Thanks" start sentences; "Matt Patterson" is a name anywhere.
			words = words[1:]
			for len(words) > 0 && connector[words[0]] {
				words = words[1:]
			}
			if len(words) == 0 || len(words) == 1 && stopwords[strings.ToLower(words[0])] {
				continue
			}
			name = strings.Join(words, " ")
		}
		if !isCommonCapitalized(name) {
			out = append(out, name)
		}
	}
	if directives {
		for _, s := range sentenceRE().FindAllString(text, -1) {
			if s = strings.TrimSpace(s); directiveRE().MatchString(s) && len(strings.Fields(s)) >= 3 {
				out = append(out, clipWords(s, 25))
			}
		}
	}
	return out
}

var connector = map[string]bool{"of": true, "and": true, "the": true, "de": true, "van": true, "von": true, "&": true}

// factMatches runs factRE only on text that can hold a match: every
// alternative needs "://", a digit, one of @ ` " “ _ # $ € £, or a lower-case
// letter followed by an upper-case one, and most conversation text has none, while
// the expression is the costliest step of summarizing.
func factMatches(text string) [][]int {
	if strings.ContainsAny(text, "0123456789@`\"“_#$€£") || strings.Contains(text, "://") || hasCamel(text) {
		return factRE().FindAllStringIndex(text, -1)
	}
	return nil
}

func hasCamel(s string) bool {
	prevLower := false
	for _, r := range s {
		if prevLower && unicode.IsUpper(r) {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}

// sentenceStart reports whether position i of text begins a sentence (or a
// "Speaker: " label's text).
func sentenceStart(text string, i int) bool {
	j := i - 1
	for j >= 0 && (text[j] == ' ' || text[j] == '\t' || text[j] == '"' || text[j] == '(') {
		j--
	}
	return j < 0 || strings.ContainsRune(".!?:\n", rune(text[j]))
}

// isCommonCapitalized drops name-like matches made of words that are only
// capitalized because a sentence starts with them ("Thanks So").
func isCommonCapitalized(s string) bool {
	if s == "" || !unicode.IsUpper([]rune(s)[0]) || strings.ContainsAny(s, "0123456789_\"`") {
		return false
	}
	for _, w := range strings.Fields(s) {
		if !stopwords[strings.ToLower(w)] {
			return false
		}
	}
	return true
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
