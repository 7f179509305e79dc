package extractive

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// The kinds of fact as regular expressions, and how factMatches ran them
// before the hand-written scanner (factscan.go) took their place: the
// reference facts_scan_test.go holds the scanner to.

var (
	monthReference = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`
	// The kinds of fact, in the order they are tried at a position: the
	// first that matches there wins, as in one alternation. Each has a
	// gate, a cheap test that the text can hold it at all, and an
	// expression small enough for Go's backtracking matcher, several times
	// faster than the automaton one large alternation needs.
	factKindsReference = []factKindReference{
		{`https?://[^\s<>"'()]+[^\s<>"'().,;:!?]`, hasURLReference, false, [2]int{}},                                             // URLs
		{`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`, hasAtReference, false, [2]int{}},                                                        // e-mail addresses
		{`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`, hasDigitReference, true, [2]int{0, 8}},                   // IBANs
		{`\+\d{1,3}(?:[ .-]?(?:\(\d{1,5}\)|\d{1,5})){2,6}`, hasPlusReference, true, [2]int{0, 6}},                                // +49 30 1234 5678
		{`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b`, hasDigitReference, true, [2]int{0, 1}},                        // ISO dates
		{`\b\d{1,2}(?:st|nd|rd|th)? ` + monthReference + `,? \d{4}\b`, hasMonthReference, true, [2]int{0, 2}},                    // 7 May 2023
		{`\b` + monthReference + ` \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b`, hasMonthReference, true, [2]int{1, 1}},                    // May 7, 2023
		{`\b\d{1,2}/\d{1,2}/\d{2,4}\b`, hasDigitReference, true, [2]int{0, 0}},                                                   // 12/05/2026
		{`\bv\d+(?:\.\d+)*(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[\w.]+)?\b`, hasDigitReference, true, [2]int{0, 0}},                  // v2, 1.22.3
		{`(?:~|\B)/[\w.-]+(?:/[\w.-]+)+/?|\b[\w-]+(?:/[\w.-]+)*/[\w-]+\.[A-Za-z0-9]{1,8}\b`, hasSlashReference, false, [2]int{}}, // paths
		{"`[^`\n]{2,60}`", hasBacktickReference, false, [2]int{}},                                                                // code in backticks
		{`"[^"\n]{3,60}"|“[^”\n]{3,60}”`, hasQuoteReference, false, [2]int{}},                                                    // quoted titles
		{`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b`, hasUnderscoreReference, false, [2]int{}},                                  // snake_case ids
		{`\b[a-z]+[A-Z][A-Za-z0-9]*\b`, hasCamelReference, false, [2]int{}},                                                      // camelCase
		{`#\d+\b`, hasHashReference, false, [2]int{}},                                                                            // #123
		{`\b\d{1,2}:\d{2}(?::\d{2})?(?: ?(?i:[ap]m)\b)?`, hasDigitReference, true, [2]int{0, 1}},                                 // 08:40, 8:40 pm
		// Identifiers: letters, then a digit, joined by hyphens or
		// underscores (ORD-55821, DHL-7781-XZ, sk-test-123, A123, v2), or
		// digits, then a letter (4B, 14A, 123-ABC).
		{`\b[A-Za-z]+(?:[-_][A-Za-z]+)*[-_]?\d[A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b|\b\d+(?:[-_]\d+)*[-_]?[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b`, hasDigitReference, true, [2]int{0, 0}},
		{`(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?`, hasDigitReference, true, [2]int{1, 1}}, // numbers, amounts
	}
	factREsReference = sync.OnceValue(func() []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(factKindsReference))
		for i, k := range factKindsReference {
			out[i] = regexp.MustCompile(k.pattern)
		}
		return out
	})
)

type factKindReference struct {
	pattern string
	gate    func(string) bool
	// digits: every match holds a digit and lies within reach fields of
	// it (before, after): run on digitWindowsReference only.
	digits bool
	reach  [2]int
}

// digitWindowsReference are the stretches of text a fact with a digit can lie in:
// each whitespace-separated field holding a digit, with reach[0] fields
// before it and reach[1] after ("$ 30", "7 May 2023"), overlapping
// stretches merged. They start and end at whitespace, so word boundaries
// inside them are the text's own. The digit kinds run on these alone:
// conversation text has few numbers, and an expression with no literal to
// look for otherwise tries every position of the text.
func digitWindowsReference(text string, fields [][2]int, reach [2]int) [][2]int {
	var out [][2]int
	for i, f := range fields {
		if !hasDigitReference(text[f[0]:f[1]]) {
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

func hasURLReference(s string) bool   { return strings.Contains(s, "://") }
func hasPlusReference(s string) bool  { return strings.IndexByte(s, '+') >= 0 }
func hasSlashReference(s string) bool { return strings.IndexByte(s, '/') >= 0 }
func hasAtReference(s string) bool    { return strings.IndexByte(s, '@') >= 0 }
func hasDigitReference(s string) bool { return strings.ContainsAny(s, "0123456789") }
func hasMonthReference(s string) bool {
	if !hasDigitReference(s) {
		return false
	}
	for _, m := range monthPrefixesReference {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

var monthPrefixesReference = strings.Fields("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec")

func hasBacktickReference(s string) bool   { return strings.IndexByte(s, '`') >= 0 }
func hasQuoteReference(s string) bool      { return strings.ContainsAny(s, "\"“") }
func hasUnderscoreReference(s string) bool { return strings.IndexByte(s, '_') >= 0 }
func hasHashReference(s string) bool       { return strings.IndexByte(s, '#') >= 0 }

// factMatchesReference returns the facts' positions in text, left to right, without
// overlaps: at each position the first kind that matches there, as one
// alternation of all kinds would, but running only the kinds whose gate
// the text passes (most conversation text passes none), each on its own.
func factMatchesReference(text string) [][]int {
	type match struct{ start, end, kind int }
	var all []match
	var fields [][2]int
	for i, k := range factKindsReference {
		if !k.gate(text) {
			continue
		}
		if !k.digits {
			for _, loc := range factREsReference()[i].FindAllStringIndex(text, -1) {
				all = append(all, match{loc[0], loc[1], i})
			}
			continue
		}
		if fields == nil {
			fields = fieldBounds(text)
		}
		for _, w := range digitWindowsReference(text, fields, k.reach) {
			for _, loc := range factREsReference()[i].FindAllStringIndex(text[w[0]:w[1]], -1) {
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

// oneFactRE is every kind in one alternation: the reference
// factMatchesReference and factMatches must agree with, and the former's
// answer when a kind's matches overlap.
var oneFactRE = sync.OnceValue(func() *regexp.Regexp {
	var patterns []string
	for _, k := range factKindsReference {
		patterns = append(patterns, k.pattern)
	}
	return regexp.MustCompile(strings.Join(patterns, "|"))
})

func hasCamelReference(s string) bool {
	prevLower := false
	for _, r := range s {
		if prevLower && unicode.IsUpper(r) {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}
