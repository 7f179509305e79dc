package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/summarize/internal/work"
)

// The phrase splitting as it was before it was made to spare allocations
// (phrases.go): the reference FuzzPhrasesMatchReference holds it to.

// splitPhrasesReference returns the phrases of text in order.
func splitPhrasesReference(text string) []phrase {
	var out []phrase
	var run []string
	// flush ends the run.
	flush := func() {
		for len(run) > 0 && stopwords[foldWordReference(run[len(run)-1])] && !startsUpper(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		if hasContentReference(run) {
			out = append(out, phrase{text: strings.Join(run, " ")})
		}
		run = run[:0]
	}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if codeFenceReference().MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, field := range strings.Fields(line) {
			toks := fieldTokensReference(field)
			for _, tok := range toks {
				if !tok.word {
					if emphasisReference().MatchString(tok.text) {
						continue
					}
					flush()
					continue
				}
				lw := foldWordReference(tok.text)
				if breakWords[lw] || breakWords[stemReference(tok.text)] {
					if len(run) > 0 {
						flush()
					}
					continue
				}
				run = append(run, tok.text)
			}
		}
		flush()
	}
	return out
}

type tokenReference struct {
	text string
	word bool // else punctuation, which ends a phrase
}

// fieldTokensReference splits one whitespace-delimited field into words and
// punctuation. URLs, e-mail addresses, paths, identifiers and version
// numbers stay whole.
func fieldTokensReference(field string) []tokenReference {
	// Inline code is one word: `timeout=10`.
	if m := inlineCodeReference().FindStringSubmatch(field); m != nil {
		var out []tokenReference
		if m[1] != "" {
			out = append(out, tokenReference{text: m[1]})
		}
		out = append(out, tokenReference{text: m[2], word: true})
		if m[3] != "" {
			out = append(out, tokenReference{text: m[3]})
		}
		return out
	}
	core := strings.TrimLeftFunc(field, isEdgePunctReference)
	trimmed := strings.TrimRightFunc(core, isEdgePunctReference)
	// Plus signs that close a word are part of it: C++, LGBTQ+.
	if m := closingPlusReference().FindStringSubmatchIndex(core[len(trimmed):]); m != nil && trimmed != "" {
		if last, _ := utf8.DecodeLastRuneInString(trimmed); unicode.IsLetter(last) || unicode.IsDigit(last) {
			trimmed = core[:len(trimmed)+m[3]]
		}
	}
	var out []tokenReference
	if lead := field[:len(field)-len(core)]; lead != "" {
		out = append(out, tokenReference{text: lead})
	}
	switch {
	case trimmed == "":
	case atomicReference(trimmed):
		out = append(out, tokenReference{text: trimmed, word: true})
	default:
		start := -1
		for i, r := range trimmed {
			if isWordRuneReference(trimmed, i, r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				out = append(out, tokenReference{text: trimmed[start:i], word: true})
				start = -1
			}
			out = append(out, tokenReference{text: string(r)})
		}
		if start >= 0 {
			out = append(out, tokenReference{text: trimmed[start:], word: true})
		}
	}
	if trail := core[len(trimmed):]; trail != "" {
		out = append(out, tokenReference{text: trail})
	}
	return out
}

// isWordRuneReference: letters and digits, an apostrophe, hyphen or colon
// joining two of them ("Caroline's", "sci-fi", "CS:GO"), a comma joining
// two digits ("1,000").
func isWordRuneReference(s string, i int, r rune) bool {
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return true
	}
	if i == 0 {
		return false
	}
	// The width comes from the text, not from r: an invalid byte is one
	// byte wide while utf8.RuneLen(RuneError) is three.
	_, width := utf8.DecodeRuneInString(s[i:])
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+width:])
	switch r {
	case '\'', '’', '-':
		return (unicode.IsLetter(before) || unicode.IsDigit(before)) && (unicode.IsLetter(after) || unicode.IsDigit(after))
	case ':':
		return (unicode.IsLetter(before) || unicode.IsDigit(before)) && (unicode.IsLetter(after) || unicode.IsDigit(after))
	case ',':
		return unicode.IsDigit(before) && unicode.IsDigit(after) // 1,000
	case '+':
		return (unicode.IsLetter(before) || unicode.IsDigit(before) || before == '+') && closingPlusReference().MatchString(s[i:])
	}
	return false
}

var (
	inlineCodeReference = work.LazyRegexp("^([^\\p{L}\\p{Nd}$€£#@/`]*)`([^`]*[\\p{L}\\p{Nd}][^`]*)`([^\\p{L}\\p{Nd}$€£#@/`]*)$")
	codeFenceReference  = work.LazyRegexp("^[ \t]*(?:```|~~~)")
	emphasisReference   = work.LazyRegexp(`^[*_]+$`)
)

// closingPlusReference matches the plus signs that close a word.
var closingPlusReference = work.LazyRegexp(`^(\++)(?:[^+\p{L}\p{N}]|$)`)

func isEdgePunctReference(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '$' && r != '€' && r != '£' && r != '#' && r != '@' && r != '/'
}

// atomicReference reports whether a field is kept as one word: it holds "://", "@",
// "_", "/", a dot inside it ("main.go", "3.5") or a camelCase joint.
func atomicReference(s string) bool {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return false // "##", "--": punctuation
	}
	if strings.ContainsAny(s, "@_/\\`") || strings.Contains(s, "://") || hasCamelReference(s) {
		return true
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 {
		return true
	}
	return strings.ContainsAny(s, "$€£#")
}

// foldWordReference lower-cases a word and drops its apostrophes: "I've" is "ive".
func foldWordReference(w string) string {
	w = strings.ToLower(w)
	if strings.ContainsAny(w, "'’") {
		w = strings.NewReplacer("'", "", "’", "").Replace(w)
	}
	return w
}

// stemReference is a word's part before an apostrophe, lower-cased: "that's" is "that".
func stemReference(w string) string {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		return strings.ToLower(w[:i])
	}
	return strings.ToLower(w)
}

func hasContentReference(words []string) bool {
	for _, w := range words {
		if isContentReference(w) {
			return true
		}
	}
	return false
}

func isContentReference(w string) bool {
	lw := foldWordReference(w)
	return len(lw) > 1 && !stopwords[lw]
}

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
