package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/summarize/internal/work"
)

// The fact extraction as it was before the hand-written scanners
// (factscan.go and the files it names, factwords.go), its regular
// expressions and all: the reference the fuzz targets of
// facts_scan_test.go hold the scanners to, output for output. Shared:
// the word sets, and the helpers that never were expressions (JSON values,
// sentence starts, clipping to words, cheer), of which a copy would test
// nothing. The kinds of fact are in
// factkinds_reference_test.go.

// abbreviationREReference is a title or initials with their dot: "Dr.", "J.K.".
const abbreviationREReference = `(?:Mr|Mrs|Ms|Mx|Dr|Prof|St|Mt|Ft|Rev|Gen|Capt|Lt|Sgt|Col|[A-Z](?:\.[A-Z])+)\.`

var (
	// Names: runs of capitalized words ("Matt Patterson", "Bank of America").
	nameREReference = work.LazyRegexp(`(?:` + abbreviationREReference + ` )*\p{Lu}[\p{Ll}'’]+(?:(?: (?:of|and|the|de|van|von|&))* (?:` + abbreviationREReference + ` )*\p{Lu}[\p{L}'’]+)*`)
	// Directives: a user's sentence that tells the assistant how to behave.
	directiveREReference = work.LazyRegexp(`(?i)^(?:\w+: )?(?:please |always |never |don'?t |do not |make sure |remember |avoid |only |stop |keep |use |call me |i want you to |i'?d like you to |i prefer |from now on)`)
	// A sentence ends at . ! or ? followed by a space, or at a line end, so
	// URLs and decimals stay whole.
	sentenceREReference = work.LazyRegexp(`(?:[^.!?\n]|[.!?]+[^\s.!?])+[.!?]*`)
	// contractionReference strips "'s", "'ll" and the like off namesReference: "Oliver's" is Oliver.
	contractionReference = work.LazyRegexp(`['’](?:s|ll|re|ve|d|m|t)?\b|['’]$`)
)

// extractFactsReference returns the facts of one text, in order of appearance. A
// fact is a piece of the text, byte for byte, and whole: a match that
// stops inside a token (at a hyphen, dot, slash, @ or +) grows to the
// whole token. A number keeps its unit when one follows it ("4 years",
// "30 EUR") or a currency code before it ("EUR 129.90"), so it still says
// what it counts; a bare number of one or two digits is noise and
// dropped. Names are capitalized words that do not only start a sentence,
// less forms of address ("Thanks, Mell!") and fillers ("Perfect").
// A text that is JSON (a tool result) gives the facts of its string
// values: its keys are structure, not facts.
func extractFactsReference(text string, directives bool) []string {
	if values, ok := jsonStrings(text); ok {
		var out []string
		for _, v := range values {
			out = append(out, extractFactsReference(v, false)...)
		}
		return out
	}
	var out []string
	var quotes [][]int
	for _, loc := range factMatchesReference(text) {
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
			quotes = append(quotes, loc)
			continue
		}
		start, end = wholeTokenReference(text, start, end)
		fact := text[start:end]
		if isNumberReference(fact) {
			if strings.HasSuffix(fact, ",") { // "40," of "40, seat 14A"
				end -= len(fact) - len(strings.TrimRight(fact, ","))
				fact = text[start:end]
			}
			// An amount with its currency or percent sign says what it counts.
			if !strings.ContainsAny(fact, "%°$€£") && !strings.HasSuffix(strings.ToLower(fact), "percent") {
				if m := unitAfterReference().FindStringSubmatchIndex(text[end:min(len(text), end+30)]); m != nil && isUnitReference(text[end+m[2]:end+m[3]]) {
					end += m[3]
				} else if m := codeBeforeReference().FindStringIndex(text[max(0, start-5):start]); m != nil {
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
	out = append(out, namesReference(text, quotes)...)
	if directives {
		for _, loc := range sentenceREReference().FindAllStringIndex(text, -1) {
			s := strings.TrimSpace(text[loc[0]:loc[1]])
			// cheer is not a scanner: the reference shares it.
			if m := directiveREReference().FindStringIndex(s); m != nil && hasContentWordReference(s[m[1]:]) && !cheer(s, s[m[1]:]) {
				out = append(out, clipToWords(s, 25))
			}
		}
	}
	return out
}

// namesReference are the namesReference of text: runs of capitalized words, without the
// first word of a sentence ("Wow", "Thanks") unless more follow, without a
// trailing "'s", and without forms of address and fillers.
func namesReference(text string, quotes [][]int) []string {
	var out []string
	// The name expression is run on the text with each quoted span blanked,
	// so no name starts inside one.
	blank := []byte(text)
	for _, q := range quotes {
		for i := q[0]; i < q[1]; i++ {
			blank[i] = 0
		}
	}
	// A name starts a word: a match after a letter or digit (the capital
	// of jQuery or iPhone) is passed over, and the search goes on a rune
	// later.
	var locs [][2]int
	for pos := 0; pos < len(blank); {
		m := nameREReference().FindIndex(blank[pos:])
		if m == nil {
			break
		}
		s, e := pos+m[0], pos+m[1]
		if before, _ := utf8.DecodeLastRune(blank[:s]); s > 0 && (unicode.IsLetter(before) || unicode.IsDigit(before)) {
			_, w := utf8.DecodeRune(blank[s:])
			pos = s + w
			continue
		}
		locs = append(locs, [2]int{s, e})
		pos = e
	}
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		if m := contractionReference().FindStringIndex(text[start:end]); m != nil && start+m[1] == end {
			end = start + m[0] // "Oliver's" is Oliver
		} else if m := closingPlusReference().FindStringSubmatchIndex(text[end:]); m != nil {
			end += m[3] // Disney+, Notepad++
		}
		if sentenceStart(text, start) {
			// "Wow" or "Thanks" start sentences; "Matt Patterson" is a name anywhere.
			sp := strings.IndexByte(text[start:end], ' ')
			if sp < 0 {
				continue
			}
			if sentenceOpener(text[start : start+sp]) {
				start += sp + 1
				for {
					w, _, _ := strings.Cut(text[start:end], " ")
					if !connector[w] || w == text[start:end] {
						break
					}
					start += len(w) + 1
				}
			}
		}
		name := text[start:end]
		if name == "" || isCommonCapitalizedReference(name) || !strings.Contains(name, " ") && (commonWord(name) || vocativeReference(text, start, end)) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// vocativeReference reports whether the one-word name at text[start:end] is a form
// of address: after a comma or a greeting, before a comma, a stop or the
// end ("Thanks, Mell!", "Hey Caro,").
func vocativeReference(text string, start, end int) bool {
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
	// unitAfterReference is the word right after a number, one space on: its unit.
	unitAfterReference = work.LazyRegexp(`^ ?([\p{L}]+)`)
	// codeBeforeReference is a currency code right before a number: "EUR 129.90".
	codeBeforeReference = work.LazyRegexp(`\b[A-Z]{3} $`)
)

// isUnitReference reports whether the word after a number can say what it counts:
// not a function word or an adverb ("4 years", not "55821 never").
func isUnitReference(w string) bool {
	lw := strings.ToLower(w)
	return !stopwords[lw] && !breakWords[lw] && !notUnits[lw]
}

// wholeTokenReference grows text[start:end] to the whole token it lies in: past
// letters and digits, and past a joiner (- . / @ + _ :) between two of
// them, so "55821" of "ORD-55821" is ORD-55821.
func wholeTokenReference(text string, start, end int) (int, int) {
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:start])
		if isAlnumReference(r) {
			start -= n
			continue
		}
		if strings.ContainsRune(joiners, r) && start-n > 0 {
			if p, _ := utf8.DecodeLastRuneInString(text[:start-n]); isAlnumReference(p) {
				start -= n
				continue
			}
		}
		break
	}
	for end < len(text) {
		r, n := utf8.DecodeRuneInString(text[end:])
		if isAlnumReference(r) {
			end += n
			continue
		}
		if strings.ContainsRune(joiners, r) && end+n < len(text) {
			if q, _ := utf8.DecodeRuneInString(text[end+n:]); isAlnumReference(q) {
				end += n
				continue
			}
		}
		break
	}
	return start, end
}

func isAlnumReference(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// hasContentWordReference reports whether s holds a word no fact rests on less.
func hasContentWordReference(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !isAlnumReference(r) && r != '\'' && r != '’' }) {
		if isContentReference(w) {
			return true
		}
	}
	return false
}

// isCommonCapitalizedReference drops name-like matches made of words that are only
// capitalized because a sentence starts with them ("Thanks So").
func isCommonCapitalizedReference(s string) bool {
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

// isNumberReference reports whether a fact is an amount alone, not a date or an id.
func isNumberReference(s string) bool { return amountREReference().MatchString(s) }

var amountREReference = work.LazyRegexp(`^[$€£]?\s?\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?,?$`)
