package summarize

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Facts: what code can find in a text that a summary must not lose
// (identifiers, numbers, dates, URLs, names, a user's directives). The
// ledger (ledger.go) carries them from summary to summary.

var (
	month = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`
	// The kinds of fact, in the order they are tried at a position: the
	// first that matches there wins, as in one alternation. Each has a
	// gate, a cheap test that the text can hold it at all, and an
	// expression small enough for Go's backtracking matcher, several times
	// faster than the automaton one large alternation needs.
	factKinds = []factKind{
		{`https?://[^\s<>"'()]+[^\s<>"'().,;:!?]`, hasURL, false, [2]int{}},                             // URLs
		{`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`, hasAt, false, [2]int{}},                                        // e-mail addresses
		{`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b`, hasDigit, true, [2]int{0, 1}},        // ISO dates
		{`\b\d{1,2}(?:st|nd|rd|th)? ` + month + `,? \d{4}\b`, hasMonth, true, [2]int{0, 2}},             // 7 May 2023
		{`\b` + month + ` \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b`, hasMonth, true, [2]int{1, 1}},             // May 7, 2023
		{"`[^`\n]{2,60}`", hasBacktick, false, [2]int{}},                                                // code in backticks
		{`"[^"\n]{3,60}"|“[^”\n]{3,60}”`, hasQuote, false, [2]int{}},                                    // quoted titles
		{`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b`, hasUnderscore, false, [2]int{}},                  // snake_case ids
		{`\b[a-z]+[A-Z][A-Za-z0-9]*\b`, hasCamel, false, [2]int{}},                                      // camelCase
		{`#\d+\b`, hasHash, false, [2]int{}},                                                            // #123
		{`\b\d{1,2}:\d{2}(?::\d{2})?\b`, hasDigit, true, [2]int{0, 0}},                                  // 08:40
		{`\b[A-Za-z]*\d+[A-Za-z][A-Za-z0-9-]*\b|\b[A-Z]+\d[A-Z0-9-]*\b`, hasDigit, true, [2]int{0, 0}},  // A123, 4B, v2, ULIDs
		{`(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?`, hasDigit, true, [2]int{1, 1}}, // numbers, amounts
	}
	factREs = sync.OnceValue(func() []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(factKinds))
		for i, k := range factKinds {
			out[i] = regexp.MustCompile(k.pattern)
		}
		return out
	})
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
			// "40," of "40, seat 14A": the comma ends the number.
			end := loc[1] - (len(fact) - len(strings.TrimRight(fact, ",")))
			fact = strings.TrimRight(fact, ",")
			if m := wordAfter().FindStringSubmatch(text[end:min(len(text), end+30)]); m != nil && !stopwords[strings.ToLower(m[1])] {
				fact += " " + m[1]
			}
			if m := wordBefore().FindStringSubmatch(text[max(0, loc[0]-40):loc[0]]); m != nil && !stopwords[strings.ToLower(m[1])] {
				fact = m[1] + " " + fact
			}
			if !strings.Contains(fact, " ") && len(fact) < 3 {
				continue
			}
		}
		// A quoted blank ("   ") is no fact.
		if fact = strings.TrimSpace(strings.Trim(fact, `"“”`)); fact != "" {
			out = append(out, fact)
		}
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

type factKind struct {
	pattern string
	gate    func(string) bool
	// digits: every match holds a digit and lies within reach fields of
	// it (before, after): run on digitWindows only.
	digits bool
	reach  [2]int
}

// digitWindows are the stretches of text a fact with a digit can lie in:
// each whitespace-separated field holding a digit, with reach[0] fields
// before it and reach[1] after ("$ 30", "7 May 2023"), overlapping
// stretches merged. They start and end at whitespace, so word boundaries
// inside them are the text's own. The digit kinds run on these alone:
// conversation text has few numbers, and an expression with no literal to
// look for otherwise tries every position of the text.
func digitWindows(text string, fields [][2]int, reach [2]int) [][2]int {
	var out [][2]int
	for i, f := range fields {
		if !hasDigit(text[f[0]:f[1]]) {
			continue
		}
		w := [2]int{fields[max(i-reach[0], 0)][0], fields[min(i+reach[1], len(fields)-1)][1]}
		if n := len(out); n > 0 && w[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], w[1])
			continue
		}
		out = append(out, w)
	}
	return out
}

// fieldBounds are the start and end of each whitespace-separated field.
func fieldBounds(text string) [][2]int {
	var fields [][2]int
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				fields = append(fields, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		fields = append(fields, [2]int{start, len(text)})
	}
	return fields
}

func hasURL(s string) bool   { return strings.Contains(s, "://") }
func hasAt(s string) bool    { return strings.IndexByte(s, '@') >= 0 }
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
func hasMonth(s string) bool {
	if !hasDigit(s) {
		return false
	}
	for _, m := range monthPrefixes {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

var monthPrefixes = strings.Fields("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec")

func hasBacktick(s string) bool   { return strings.IndexByte(s, '`') >= 0 }
func hasQuote(s string) bool      { return strings.ContainsAny(s, "\"“") }
func hasUnderscore(s string) bool { return strings.IndexByte(s, '_') >= 0 }
func hasHash(s string) bool       { return strings.IndexByte(s, '#') >= 0 }

// factMatches returns the facts' positions in text, left to right, without
// overlaps: at each position the first kind that matches there, as one
// alternation of all kinds would, but running only the kinds whose gate
// the text passes (most conversation text passes none), each on its own.
func factMatches(text string) [][]int {
	type match struct{ start, end, kind int }
	var all []match
	var fields [][2]int
	for i, k := range factKinds {
		if !k.gate(text) {
			continue
		}
		if !k.digits {
			for _, loc := range factREs()[i].FindAllStringIndex(text, -1) {
				all = append(all, match{loc[0], loc[1], i})
			}
			continue
		}
		if fields == nil {
			fields = fieldBounds(text)
		}
		for _, w := range digitWindows(text, fields, k.reach) {
			for _, loc := range factREs()[i].FindAllStringIndex(text[w[0]:w[1]], -1) {
				all = append(all, match{w[0] + loc[0], w[0] + loc[1], i})
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(a, b match) int { return cmp.Or(a.start-b.start, a.kind-b.kind) })
	var out [][]int
	pos := 0
	for _, m := range all {
		switch {
		case m.start >= pos:
			out = append(out, []int{m.start, m.end})
			pos = m.end
		case m.end > pos:
			// A kind's own match runs across the end of the one chosen, so
			// its matches after it may not be what one alternation would
			// find from there: rare enough ("https://x$ 1") to ask it.
			return oneFactRE().FindAllStringIndex(text, -1)
		}
	}
	return out
}

// oneFactRE is every kind in one alternation: the reference factMatches
// must agree with, and its answer when a kind's matches overlap.
var oneFactRE = sync.OnceValue(func() *regexp.Regexp {
	var patterns []string
	for _, k := range factKinds {
		patterns = append(patterns, k.pattern)
	}
	return regexp.MustCompile(strings.Join(patterns, "|"))
})

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
