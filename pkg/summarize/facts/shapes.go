package facts

import (
	"regexp"
	"strings"
	"sync"
)

// shapes is the one table of what an identifier looks like, most specific
// first: where two shapes match at one place, the earlier one's match is
// taken (an e-mail address before the path its domain would be). Each is a
// shape people and programs write the same way in any language.
var shapes = []struct{ kind, pattern string }{
	{"url", `\b(?:https?|ftp|wss?)://[^\s<>"'` + "`" + `]+`},
	{"email", `\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+`},
	// Inline code: a command, a name, a key, as written between backticks.
	{"code", "`[^`\n]{2,120}`"},
	{"iban", `\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`},
	{"phone", `\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){1,5}\d`},
	{"date", `\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b` +
		`|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?` + months + `,? \d{4}\b` +
		`|\b` + months + ` \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b` +
		`|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b`},
	// A time with its zone when one follows, since without it the time is
	// ambiguous: an abbreviation (UTC, CET, PST), UTC or GMT with an offset
	// (UTC+2, GMT-05:30), a bare offset or Z glued on as ISO 8601 writes it
	// (+02:00; a minus would be a range, 10:00-11:00), or "local time".
	{"time", `\b\d{1,2}:\d{2}(?::\d{2})?(?: ?[AaPp]\.?[Mm]\.?)?` +
		`(?:(?: ?(?:UTC|GMT)[+-]\d{1,2}(?::?\d{2})?|\+\d{2}:?\d{2}|Z)\b` +
		`|(?: ?(?:UTC|GMT|[A-Z]{1,3}T|CET|CEST|[A-Z]{3}|local time))?\b)`},
	{"amount", `[$€£¥₹]\s?\d[\d,.]*\d|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|INR|CNY) ?\d[\d,.]*\d?` +
		`|\b\d[\d,.]*\d? ?(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|INR|CNY)\b`},
	{"version", `\bv\d+(?:\.\d+)+(?:[-+][\w.]+)?\b|\b\d+\.\d+\.\d+(?:[-+][\w.]+)?\b`},
	// A diagnostic: a place in a file, then what went wrong there.
	{"error", `(?m)[\w./-]*\w\.\w+:\d+(?::\d+)?: [^\n]{4,160}$`},
	{"path", `(?:\b[A-Za-z]:\\|\\\\)[^\s"'<>|*?]+` +
		`|(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]+` +
		`|\b[\w.@+-]+/(?:[\w.@+-]+/)*[\w@+-]+\.[A-Za-z][\w]{0,6}\b`},
	// Names in code: CamelCase with two humps or more, snake_case,
	// CONSTANT_CASE, each with a /subtest.
	{"name", `\b[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+){1,}(?:/[\w-]+)*\b|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?:/[\w-]+)*\b`},
	// Ids and codes: letters and digits joined by marks (ORD-55821,
	// PO#48812), a number after #, a SHA, two or three capitals before a
	// number (LH 3775), a long number.
	{"id", `#\d{2,}\b` +
		`|\b[A-Za-z0-9]+(?:[-_#/.:][A-Za-z0-9]+)+\b` +
		`|\b[A-Z]{2,3} \d{3,5}\b` +
		`|\b[A-Za-z]*\d[A-Za-z0-9]*\b`},
}

const months = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t|tember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`

// shapeRE is the table as one expression anchored at its start, a group a
// shape: tried at a place, the first shape that matches there wins.
var shapeRE = sync.OnceValue(func() *regexp.Regexp {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = "(" + s.pattern + ")"
	}
	return regexp.MustCompile(`^(?:` + strings.Join(parts, "|") + `)`)
})

// kindOf is the kind of the shape a match of shapeRE is.
func kindOf(m []int) string {
	for i := range shapes {
		if m[2+2*i] >= 0 {
			return shapes[i].kind
		}
	}
	return ""
}

// trimTrail cuts what ends a sentence or a bracket off a match: a URL or
// a path is rarely followed by a stop it holds.
func trimTrail(s string) string {
	for len(s) > 0 {
		switch c := s[len(s)-1]; c {
		case '.', ',', ';', ':', '!', '?', '\'', '"':
			s = s[:len(s)-1]
			continue
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if strings.Count(s, string(open)) < strings.Count(s, string(c)) {
				s = s[:len(s)-1]
				continue
			}
		}
		return s
	}
	return s
}

// weak reports whether a match of kind is too plain to be an identifier:
// a short number, a word with one digit at its end, a bare year.
func weak(kind, s string) bool {
	if kind != "id" {
		return false
	}
	digits, letters := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			letters++
		}
	}
	switch {
	case digits == 0:
		// Joined words without a digit ("well-known", "e.g", "and/or")
		// are words, unless a capital code ("SKU-ABC") or joined by two
		// marks, as a branch or a resource is ("fix/header-parsing").
		marks := 0
		for _, m := range []string{"-", "_", "/", ".", ":", "#"} {
			if strings.Contains(s, m) {
				marks++
			}
		}
		return !(marks >= 2 || s == strings.ToUpper(s) && letters >= 2 && strings.ContainsAny(s, "-_#"))
	case letters == 0 && !strings.ContainsAny(s, "#-_/:."):
		return digits < 4 // 12, 300; a number of four digits or more is one
	case letters > 0 && digits == 1 && len(s) <= 3:
		return true // 3D, 2nd, A4
	}
	// Ordinals and units glued to a number (21st, 10km, 5pm) say little alone.
	lower := strings.ToLower(s)
	for _, suf := range []string{"st", "nd", "rd", "th", "s", "am", "pm", "k", "m", "km", "kg", "g", "h", "x", "min"} {
		if strings.HasSuffix(lower, suf) && strings.Trim(lower[:len(lower)-len(suf)], "0123456789.,") == "" {
			return true
		}
	}
	return false
}
