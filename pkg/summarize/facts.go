package summarize

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
		{`https?://[^\s<>"'()]+[^\s<>"'().,;:!?]`, hasURL, false, [2]int{}},                                             // URLs
		{`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`, hasAt, false, [2]int{}},                                                        // e-mail addresses
		{`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`, hasDigit, true, [2]int{0, 8}},                   // IBANs
		{`\+\d{1,3}(?:[ .-]?(?:\(\d{1,5}\)|\d{1,5})){2,6}`, hasPlus, true, [2]int{0, 6}},                                // +49 30 1234 5678
		{`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b`, hasDigit, true, [2]int{0, 1}},                        // ISO dates
		{`\b\d{1,2}(?:st|nd|rd|th)? ` + month + `,? \d{4}\b`, hasMonth, true, [2]int{0, 2}},                             // 7 May 2023
		{`\b` + month + ` \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b`, hasMonth, true, [2]int{1, 1}},                             // May 7, 2023
		{`\b\d{1,2}/\d{1,2}/\d{2,4}\b`, hasDigit, true, [2]int{0, 0}},                                                   // 12/05/2026
		{`\bv\d+(?:\.\d+)*(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[\w.]+)?\b`, hasDigit, true, [2]int{0, 0}},                  // v2, 1.22.3
		{`(?:~|\B)/[\w.-]+(?:/[\w.-]+)+/?|\b[\w-]+(?:/[\w.-]+)*/[\w-]+\.[A-Za-z0-9]{1,8}\b`, hasSlash, false, [2]int{}}, // paths
		{"`[^`\n]{2,60}`", hasBacktick, false, [2]int{}},                                                                // code in backticks
		{`"[^"\n]{3,60}"|“[^”\n]{3,60}”`, hasQuote, false, [2]int{}},                                                    // quoted titles
		{`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b`, hasUnderscore, false, [2]int{}},                                  // snake_case ids
		{`\b[a-z]+[A-Z][A-Za-z0-9]*\b`, hasCamel, false, [2]int{}},                                                      // camelCase
		{`#\d+\b`, hasHash, false, [2]int{}},                                                                            // #123
		{`\b\d{1,2}:\d{2}(?::\d{2})?(?: ?(?i:[ap]m)\b)?`, hasDigit, true, [2]int{0, 1}},                                 // 08:40, 8:40 pm
		// Identifiers: letters, then a digit, joined by hyphens or
		// underscores (ORD-55821, DHL-7781-XZ, sk-test-123, A123, v2), or
		// digits, then a letter (4B, 14A, 123-ABC).
		{`\b[A-Za-z]+(?:[-_][A-Za-z]+)*[-_]?\d[A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b|\b\d+(?:[-_]\d+)*[-_]?[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b`, hasDigit, true, [2]int{0, 0}},
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
// fact is a piece of the text, byte for byte, and whole: a match that
// stops inside a token (at a hyphen, dot, slash, @ or +) grows to the
// whole token. A number keeps its unit when one follows it ("4 years",
// "30 EUR") or a currency code before it ("EUR 129.90"), so it still says
// what it counts; a bare number of one or two digits is noise and
// dropped. Names are capitalized words that do not only start a sentence,
// less forms of address ("Thanks, Mell!") and fillers ("Perfect").
// A text that is JSON (a tool result) gives the facts of its string
// values: its keys are structure, not facts.
func extractFacts(text string, directives bool) []string {
	if values, ok := jsonStrings(text); ok {
		var out []string
		for _, v := range values {
			out = append(out, extractFacts(v, false)...)
		}
		return out
	}
	var out []string
	for _, loc := range factMatches(text) {
		start, end := loc[0], loc[1]
		raw := text[start:end]
		if raw[0] == '"' || strings.HasPrefix(raw, "“") {
			// A quoted key ("name": ...) is structure; a quoted blank is nothing.
			if rest := strings.TrimLeft(text[end:], " \t"); strings.HasPrefix(rest, ":") {
				continue
			}
			inner := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(raw, `"`), "“"), `"`), "”")
			if strings.TrimSpace(inner) == "" {
				continue
			}
			out = append(out, raw)
			continue
		}
		start, end = wholeToken(text, start, end)
		fact := text[start:end]
		if isNumber(fact) {
			if strings.HasSuffix(fact, ",") { // "40," of "40, seat 14A"
				end -= len(fact) - len(strings.TrimRight(fact, ","))
				fact = text[start:end]
			}
			// An amount with its currency or percent sign says what it counts.
			if !strings.ContainsAny(fact, "%°$€£") && !strings.HasSuffix(strings.ToLower(fact), "percent") {
				if m := unitAfter().FindStringSubmatchIndex(text[end:min(len(text), end+30)]); m != nil && isUnit(text[end+m[2]:end+m[3]]) {
					end += m[3]
				} else if m := codeBefore().FindStringIndex(text[max(0, start-5):start]); m != nil {
					start = max(0, start-5) + m[0]
				}
			}
			fact = text[start:end]
			if !strings.Contains(fact, " ") && len(strings.Trim(fact, "$€£")) < 3 {
				continue
			}
		}
		if fact = strings.TrimSpace(fact); fact != "" {
			out = append(out, fact)
		}
	}
	out = append(out, names(text)...)
	if directives {
		for _, loc := range sentenceRE().FindAllStringIndex(text, -1) {
			s := strings.TrimSpace(text[loc[0]:loc[1]])
			if m := directiveRE().FindStringIndex(s); m != nil && hasContentWord(s[m[1]:]) {
				out = append(out, clipToWords(s, 25))
			}
		}
	}
	return out
}

// names are the names of text: runs of capitalized words, without the
// first word of a sentence ("Wow", "Thanks") unless more follow, without a
// trailing "'s", and without forms of address and fillers.
func names(text string) []string {
	var out []string
	for _, loc := range nameRE().FindAllStringIndex(text, -1) {
		start, end := loc[0], loc[1]
		if m := contraction().FindStringIndex(text[start:end]); m != nil && start+m[1] == end {
			end = start + m[0] // "Oliver's" is Oliver
		}
		if sentenceStart(text, start) {
			// "Wow" or "Thanks" start sentences; "Matt Patterson" is a name anywhere.
			sp := strings.IndexByte(text[start:end], ' ')
			if sp < 0 {
				continue
			}
			start += sp + 1
			for {
				w, _, _ := strings.Cut(text[start:end], " ")
				if !connector[w] || w == text[start:end] {
					break
				}
				start += len(w) + 1
			}
		}
		name := text[start:end]
		if name == "" || isCommonCapitalized(name) || !strings.Contains(name, " ") && (fillers[strings.ToLower(name)] || vocative(text, start, end)) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// vocative reports whether the one-word name at text[start:end] is a form
// of address: after a comma or a greeting, before a comma, a stop or the
// end ("Thanks, Mell!", "Hey Caro,").
func vocative(text string, start, end int) bool {
	after := strings.TrimLeft(text[end:], " ")
	if after != "" && !strings.ContainsAny(after[:1], ",.!?;:)") {
		return false
	}
	before := strings.TrimRight(text[:start], " ")
	if before == "" || strings.HasSuffix(before, ",") {
		return true
	}
	i := strings.LastIndexAny(before, " \n\t") + 1
	return greetings[strings.ToLower(strings.Trim(before[i:], ",!.'’"))]
}

var (
	greetings = wordSet(`hi hey hello dear thanks thank bye goodbye congrats congratulations cheers morning evening night welcome yo`)
	fillers   = wordSet(`perfect brave great awesome amazing wonderful lovely beautiful fantastic incredible congrats
		congratulations cheers wow totally absolutely exactly definitely sure nice cool sweet glad sorry thanks yes yeah
		okay ok hey hi hello bye good well agreed indeed true right haha lol omg yay hooray welcome anyway oh ah hmm
		love awww aw super excellent brilliant fun cute stunning impressive adorable gorgeous breathtaking stoked hilarious`)
	// unitAfter is the word right after a number, one space on: its unit.
	unitAfter = lazyRegexp(`^ ?([\p{L}]+)`)
	// codeBefore is a currency code right before a number: "EUR 129.90".
	codeBefore = lazyRegexp(`\b[A-Z]{3} $`)
)

// isUnit reports whether the word after a number can say what it counts:
// not a function word or an adverb ("4 years", not "55821 never").
func isUnit(w string) bool {
	lw := strings.ToLower(w)
	return !stopwords[lw] && !breakWords[lw] && !notUnits[lw]
}

var notUnits = wordSet(`never ever always already still again yet later now today tomorrow yesterday soon
	instead either anyway please or and but`)

// wholeToken grows text[start:end] to the whole token it lies in: past
// letters and digits, and past a joiner (- . / @ + _ :) between two of
// them, so "55821" of "ORD-55821" is ORD-55821.
func wholeToken(text string, start, end int) (int, int) {
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:start])
		if isAlnum(r) {
			start -= n
			continue
		}
		if strings.ContainsRune(joiners, r) && start-n > 0 {
			if p, _ := utf8.DecodeLastRuneInString(text[:start-n]); isAlnum(p) {
				start -= n
				continue
			}
		}
		break
	}
	for end < len(text) {
		r, n := utf8.DecodeRuneInString(text[end:])
		if isAlnum(r) {
			end += n
			continue
		}
		if strings.ContainsRune(joiners, r) && end+n < len(text) {
			if q, _ := utf8.DecodeRuneInString(text[end+n:]); isAlnum(q) {
				end += n
				continue
			}
		}
		break
	}
	return start, end
}

const joiners = "-./@+_:"

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// jsonStrings returns the string values of a text that is a JSON object or
// array, in order; ok is false for any other text.
func jsonStrings(text string) (values []string, ok bool) {
	t := strings.TrimSpace(text)
	if t == "" || t[0] != '{' && t[0] != '[' {
		return nil, false
	}
	var v any
	if json.Unmarshal([]byte(t), &v) != nil {
		return nil, false
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			values = append(values, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			// Map order is random; the text's order is lost, so sort for
			// byte-stable output.
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		}
	}
	walk(v)
	return values, true
}

// hasContentWord reports whether s holds a word no fact rests on less.
func hasContentWord(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !isAlnum(r) && r != '\'' && r != '’' }) {
		if isContent(w) {
			return true
		}
	}
	return false
}

// clipToWords is s up to the end of its n-th word: a piece of s still.
func clipToWords(s string, n int) string {
	fields := fieldBounds(s)
	if len(fields) <= n {
		return s
	}
	return s[:fields[n-1][1]]
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
func hasPlus(s string) bool  { return strings.IndexByte(s, '+') >= 0 }
func hasSlash(s string) bool { return strings.IndexByte(s, '/') >= 0 }
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
// "Speaker: " label's text): only marks stand between it and a sentence's
// end or the text's start ("**Perfect**", "😊 Great").
func sentenceStart(text string, i int) bool {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case strings.ContainsRune(".!?:\n", r):
			return true
		case isAlnum(r) || r == ',' || r == ';':
			return false
		}
		i -= n
	}
	return true
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

// isNumber reports whether a fact is an amount alone, not a date or an id.
func isNumber(s string) bool { return amountRE().MatchString(s) }

var amountRE = lazyRegexp(`^[$€£]?\s?\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?,?$`)

func clipWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + " …"
}
