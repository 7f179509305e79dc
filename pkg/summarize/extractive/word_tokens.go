package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How a note's text is cut, a whitespace-delimited field at a time, into words and
// marks: identifiers, URLs, versions, amounts and inline code stay in
// their words.

type token struct {
	text string
	word bool // else punctuation
}

// appendFieldTokens appends the words and punctuation of one
// whitespace-delimited field. URLs, e-mail addresses, paths, identifiers
// and version numbers stay whole.
func appendFieldTokens(out []token, field string) []token {
	if lead, code, trail, ok := codeField(field); ok {
		return appendMarkedWord(out, lead, code, trail)
	}
	if lead, word, trail, ok := plainField(field); ok {
		return appendMarkedWord(out, lead, word, trail)
	}
	core := strings.TrimLeftFunc(field, isEdgePunct)
	trimmed := strings.TrimRightFunc(core, isEdgePunct)
	if last, _ := utf8.DecodeLastRuneInString(trimmed); isAlnum(last) {
		trimmed = core[:plusEnd(core, len(trimmed))]
	}
	if lead := field[:len(field)-len(core)]; lead != "" {
		out = append(out, token{text: lead})
	}
	switch {
	case trimmed == "":
	case atomic(trimmed):
		out = append(out, token{text: trimmed, word: true})
	default:
		start := -1
		for i, r := range trimmed {
			if isWordRune(trimmed, i, r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				out = append(out, token{text: trimmed[start:i], word: true})
				start = -1
			}
			// The rune as the text has it: punctuation is only compared
			// with ASCII marks, where an invalid byte and U+FFFD agree.
			_, w := utf8.DecodeRuneInString(trimmed[i:])
			out = append(out, token{text: trimmed[i : i+w]})
		}
		if start >= 0 {
			out = append(out, token{text: trimmed[start:], word: true})
		}
	}
	if trail := core[len(trimmed):]; trail != "" {
		out = append(out, token{text: trail})
	}
	return out
}

// appendMarkedWord appends a word and the marks before and after it
// (either may be empty).
func appendMarkedWord(out []token, lead, word, trail string) []token {
	if lead != "" {
		out = append(out, token{text: lead})
	}
	out = append(out, token{text: word, word: true})
	if trail != "" {
		out = append(out, token{text: trail})
	}
	return out
}

// codeField splits a field that is inline code ("(`timeout=10`),") into
// the marks before it, the code, whole, and the marks after it; the
// backticks, like emphasis, part no words. ok is false for any other
// field, and for code without a letter or digit.
func codeField(field string) (lead, code, trail string, ok bool) {
	i := strings.IndexByte(field, '`')
	if i < 0 {
		return "", "", "", false
	}
	j := strings.LastIndexByte(field, '`')
	if j <= i+1 || strings.IndexByte(field[i+1:j], '`') >= 0 ||
		strings.TrimLeftFunc(field[:i], isEdgePunct) != "" || strings.TrimLeftFunc(field[j+1:], isEdgePunct) != "" ||
		!strings.ContainsFunc(field[i+1:j], isAlnum) {
		return "", "", "", false
	}
	return field[:i], field[i+1 : j], field[j+1:], true
}

// plainField splits the most common field, ASCII letters and digits
// between marks ("(great!)"), into what appendFieldTokens would: a word
// between its marks. ok is false for any other field.
func plainField(field string) (lead, word, trail string, ok bool) {
	edge := func(c byte) bool {
		return c < utf8.RuneSelf && !isAlnumByte(c) && c != '$' && c != '#' && c != '@' && c != '/'
	}
	i := run(field, 0, edge)
	j := alnumRun(field, i)
	if j > i {
		j = plusEnd(field, j)
	}
	if j == i || run(field, j, edge) != len(field) {
		return "", "", "", false
	}
	return field[:i], field[i:j], field[j:], true
}

// isWordRune: letters and digits, an apostrophe, hyphen or colon joining
// two of them ("Caroline's", "sci-fi", "08:40", "CS:GO"), a comma joining
// two digits ("1,000").
func isWordRune(s string, i int, r rune) bool {
	if r < utf8.RuneSelf && isAlnumByte(byte(r)) || unicode.IsLetter(r) || unicode.IsDigit(r) {
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
		return isAlnum(before) && isAlnum(after) // 08:40, CS:GO
	case ',':
		return unicode.IsDigit(before) && unicode.IsDigit(after) // 1,000
	case '+':
		return (isAlnum(before) || before == '+') && plusEnd(s, i) > i // C++, LGBTQ+
	}
	return false
}

// plusEnd is the end of the '+' signs at i that close a word ("C++",
// "LGBTQ+", "Disney+"), i when there are none or a letter or digit
// follows them ("a+b" is a sum).
func plusEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] == '+' {
		j++
	}
	if r, _ := utf8.DecodeRuneInString(s[j:]); j < len(s) && isAlnum(r) {
		return i
	}
	return j
}

func isEdgePunct(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '$' && r != '€' && r != '£' && r != '#' && r != '@' && r != '/'
}

// atomic reports whether a field is kept as one word: it holds a letter
// or digit and "://", "@", "_", "/", a dot inside it ("main.go", "3.5"),
// a camelCase joint or a sign of money or number; in one pass.
func atomic(s string) bool {
	alnum, joined, camel, money, prevLower := false, false, false, false, false
	for _, r := range s {
		switch r {
		case '@', '_', '/', '\\', '`': // "://" holds a '/'
			joined = true
		case '$', '€', '£', '#':
			money = true
		}
		upper, lower := unicode.IsUpper(r), unicode.IsLower(r)
		if prevLower && upper {
			camel = true
		}
		prevLower = lower
		if !alnum {
			alnum = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
	}
	switch {
	case !alnum:
		return false // "##", "--": punctuation
	case joined || camel:
		return true
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 {
		return true
	}
	return money
}
