package extractive

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Facts: what code can find in a text that a summary must not lose
// (identifiers, numbers, dates, URLs, names, a user's directives). The
// ledger (ledger.go) carries them from summary to summary.

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
	var quotes [][2]int // the quoted facts' spans: no name is taken inside them
	grower := newTokenGrower(text)
	for scan := newFactScanner(text); ; {
		start, end, ok := scan.next()
		if !ok {
			break
		}
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
			quotes = append(quotes, [2]int{start, end})
			continue
		}
		start, end = grower.grow(start, end)
		fact := text[start:end]
		if isNumber(fact) {
			if strings.HasSuffix(fact, ",") { // "40," of "40, seat 14A"
				end -= len(fact) - len(strings.TrimRight(fact, ","))
				fact = text[start:end]
			}
			// An amount with its currency or percent sign says what it counts.
			if !strings.ContainsAny(fact, "%°$€£") && !hasSuffixFoldASCII(fact, "percent") {
				if from, to := unitAfter(text, end); to > from && isUnit(text[from:to]) {
					end = to
				} else if code := currencyCodeBefore(text, start); code >= 0 {
					start = code
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
	out = appendNames(out, text, quotes)
	if directives {
		for start, end := 0, 0; ; {
			if start, end = nextSentence(text, end); start < 0 {
				break
			}
			s := strings.TrimSpace(text[start:end])
			if n := directivePrefix(s); n >= 0 && hasContentWord(s[n:]) && !cheer(s, s[n:]) {
				out = append(out, clipToWords(s, 25))
			}
		}
	}
	return out
}

var (
	greetings = wordSet(`hi hey hello dear thanks thank bye goodbye congrats congratulations cheers morning evening night welcome yo`)
	fillers   = wordSet(`perfect brave great awesome amazing wonderful lovely beautiful fantastic incredible congrats
		congratulations cheers wow totally absolutely exactly definitely sure nice cool sweet glad sorry thanks yes yeah
		okay ok hey hi hello bye good well agreed indeed true right haha lol omg yay hooray welcome anyway oh ah hmm
		love awww aw super excellent brilliant fun cute stunning impressive adorable gorgeous breathtaking stoked hilarious
		aww btw yum yummy yea yep yup woohoo woo ugh ooo ooh oof lemme huh whoa hehe heh meh phew`)
	// interjections are the fillers that stand before a name only to
	// address it ("Yep Deb!", "Aww Mel."); "Super Mario" is no address.
	interjections = wordSet(`yes yeah yea yep yup oh ah aw aww awww hmm huh wow whoa woohoo woo ugh ooh ooo oof haha
		hehe heh lol omg yay hey hi hello thanks btw phew`)
)

// unitAfter is the word right after a number at end, one space on, within
// 30 bytes: its unit (to > from when there is one). A rune cut by the
// 30 bytes ends the word.
func unitAfter(text string, end int) (from, to int) {
	window := text[end:min(len(text), end+30)]
	p := 0
	if window != "" && window[0] == ' ' {
		p = 1
	}
	q := p
	for q < len(window) {
		r, w := utf8.DecodeRuneInString(window[q:])
		if !unicode.IsLetter(r) {
			break
		}
		q += w
	}
	return end + p, end + q
}

// currencyCodeBefore is where a currency code right before a number at
// start begins ("EUR 129.90"), -1 for none: three capitals and a space at
// a word's start, within the 5 bytes before it.
func currencyCodeBefore(text string, start int) int {
	from := max(0, start-5)
	code := start - 4
	if code < from || text[start-1] != ' ' || !isUpper(text[code]) || !isUpper(text[code+1]) || !isUpper(text[code+2]) {
		return -1
	}
	if code > from && isWordByte(text[code-1]) {
		return -1
	}
	return code
}

// hasSuffixFoldASCII is strings.HasSuffix(strings.ToLower(s), suffix) for
// an ASCII lower-case suffix without the letters i and k (only İ and the
// Kelvin sign lower-case to ASCII from outside it), without a copy.
func hasSuffixFoldASCII(s, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	for i := range len(suffix) {
		c := s[len(s)-len(suffix)+i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		if c != suffix[i] {
			return false
		}
	}
	return true
}

// appendLower appends strings.ToLower(s) to dst: words are looked up
// lower-cased in the word sets, and a stack buffer spares the copy.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if isUpper(c) {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		// An invalid byte becomes U+FFFD, as strings.ToLower makes it.
		r, w := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += w
	}
	return dst
}

// isUnit reports whether the word after a number can say what it counts:
// not a function word or an adverb ("4 years", not "55821 never").
func isUnit(w string) bool {
	var buf [32]byte
	lw := appendLower(buf[:0], w)
	return !stopwords[string(lw)] && !breakWords[string(lw)] && !notUnits[string(lw)]
}

var notUnits = wordSet(`never ever always already still again yet later now today tomorrow yesterday soon
	instead either anyway please or and but`)

// tokenGrower grows the matches of one text, left to right, to the whole
// tokens they lie in: past letters and digits, and past a joiner (- . / @
// + _ :) between two of them, so "55821" of "ORD-55821" is ORD-55821.
// Each step of either walk depends on its position alone, so a walk that
// reaches a position an earlier walk started from ends where that one
// ended: on a long token with many matches ("1.2.3.…", base64) each walk
// is then as long as the step from the match before, not the token.
type tokenGrower struct {
	text string
	// the last left walk's start and end; the last right walk's start
	// (the earliest with that end) and end
	leftFrom, leftTo, rightFrom, rightTo int
}

func newTokenGrower(text string) tokenGrower {
	return tokenGrower{text: text, leftFrom: -1, rightFrom: -1, rightTo: -1}
}

func (g *tokenGrower) grow(start, end int) (int, int) {
	text := g.text
	from := start
	for start > 0 {
		if start == g.leftFrom {
			start = g.leftTo
			break
		}
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
	g.leftFrom, g.leftTo = from, start
	// The right walk steps from rune to rune as the matches do, so one
	// that starts between an earlier walk's start and end lies on its way.
	if g.rightFrom <= end && end <= g.rightTo {
		return start, g.rightTo
	}
	g.rightFrom = end
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
	g.rightTo = end
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
	for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return !isAlnum(r) && r != '\'' && r != '’' }) {
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

func clipWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + " …"
}

// IsDirective reports whether a fact is a user's directive: words that
// open with a directive's ("Please always book window seats.", clipped
// when long). No other kind of fact does but a rare title ("Keep Calm").
func IsDirective(fact string) bool {
	return strings.IndexByte(fact, ' ') >= 0 && directivePrefix(fact) >= 0
}

// RecordFacts are the facts of one covered record, in order.
func RecordFacts(r *transcript.Record) []string {
	if r.IsFake() {
		return nil
	}
	var out []string
	directives := r.Message.Role == transcript.RoleUser
	for _, c := range r.Message.Contents {
		out = append(out, extractFacts(c, directives)...)
	}
	// A call's arguments are JSON: their values are facts, as said.
	for _, tc := range r.Message.ToolCalls {
		out = append(out, extractFacts(tc.Arguments, false)...)
	}
	return out
}
