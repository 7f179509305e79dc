package extractive

import (
	"strings"
	"unicode/utf8"
)

// The fact scanner finds what one leftmost-first alternation of these
// expressions finds, in the order they are tried at a position (the first
// that matches there wins, as Go's regexp, RE2 or Perl would choose):
//
//	URLs         https?://[^\s<>"'()]+[^\s<>"'().,;:!?]
//	e-mails      [\w.+-]+@[\w-]+(?:\.[\w-]+)+
//	IBANs        \b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b
//	phones       \+\d{1,3}(?:[ .-]?(?:\(\d{1,5}\)|\d{1,5})){2,6}
//	ISO dates    \b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b
//	7 May 2023   \b\d{1,2}(?:st|nd|rd|th)? MONTH,? \d{4}\b
//	May 7, 2023  \bMONTH \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b
//	12/05/2026   \b\d{1,2}/\d{1,2}/\d{2,4}\b
//	versions     \bv\d+(?:\.\d+)*(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[\w.]+)?\b
//	paths        (?:~|\B)/[\w.-]+(?:/[\w.-]+)+/?|\b[\w-]+(?:/[\w.-]+)*/[\w-]+\.[A-Za-z0-9]{1,8}\b
//	backticks    `[^`\n]{2,60}`
//	quotes       "[^"\n]{3,60}"|“[^”\n]{3,60}”
//	snake_case   \b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b
//	camelCase    \b[a-z]+[A-Z][A-Za-z0-9]*\b
//	#123         #\d+\b
//	08:40 pm     \b\d{1,2}:\d{2}(?::\d{2})?(?: ?(?i:[ap]m)\b)?
//	identifiers  \b[A-Za-z]+(?:[-_][A-Za-z]+)*[-_]?\d[A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b|
//	             \b\d+(?:[-_]\d+)*[-_]?[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b
//	amounts      (?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?
//
// where MONTH is Jan(?:uary)?|Feb(?:ruary)?|...|Dec(?:ember)? (see
// monthEnds). Each kind is a function that gives the end of the match the
// expression prefers at a position, or -1. Where an expression could
// backtrack, the comment says which choices can still succeed; the
// reference expressions (factkinds_reference_test.go) and the fuzz targets
// hold the two to the same answers. Run as regexps, fact extraction took
// about a quarter of a progressive step's CPU; the scanner looks at most
// bytes once. The kinds live in factshapes.go, factnumbers.go and
// factdates.go.

// factScanner walks a text for facts. Its memos keep the walk linear on
// long runs ("a-b-c-…", "x/y/z/…"), where every start inside a run would
// otherwise read the rest of it again: they hold what a kind found from a
// run's start, which holds for any start inside the run.
type factScanner struct {
	text string
	pos  int
	// what the text holds at all, so kinds that need it are not tried
	hasAt, hasSlash, hasUnderscore, hasDigit bool

	emailFrom, emailRunEnd, emailEnd int        // e-mail: a [\w.+-] run and its answer
	segsFrom, segsEnd                int        // paths: a [\w-] run before a '/'
	chainFrom, chainEnd              int        // paths: the /segment/… chain after it
	lastTailStart, lastTailEnd       int        // and its last segment that ends a path
	letters, digits                  chainMatch // identifiers: a letter or digit chain
}

// chainMatch is a chain of runs from its start to end and the answer
// every start inside it gets (-1: none).
type chainMatch struct{ from, end, match int }

func newFactScanner(text string) factScanner {
	return factScanner{
		text:          text,
		hasAt:         strings.IndexByte(text, '@') >= 0,
		hasSlash:      strings.IndexByte(text, '/') >= 0,
		hasUnderscore: strings.IndexByte(text, '_') >= 0,
		hasDigit:      run(text, 0, func(c byte) bool { return !isDigit(c) }) < len(text),
		emailRunEnd:   -1, segsEnd: -1, chainEnd: -1,
		letters: chainMatch{end: -1}, digits: chainMatch{end: -1},
	}
}

// next returns the next fact's position; ok is false past the last.
// Positions step a rune at a time as regexp's do: every kind starts at an
// ASCII byte or at '€', '£' or '“', which always start a rune.
func (s *factScanner) next() (start, end int, ok bool) {
	t := s.text
	for i := s.pos; i < len(t); {
		// Inside a word only a URL or an e-mail address can start, and
		// most of a text is inside words.
		if c := t[i]; i > 0 && isLower(c) && c != 'h' && !s.hasAt && isWordByte(t[i-1]) {
			i++
			continue
		}
		if e := s.matchAt(i); e >= 0 {
			s.pos = e
			return i, e, true
		}
		if t[i] < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRuneInString(t[i:])
			i += w
		}
	}
	s.pos = len(t)
	return 0, 0, false
}

// matchAt is the alternation at i: each kind that can start with the byte
// there, in the kinds' order.
func (s *factScanner) matchAt(i int) int {
	t := s.text
	c := t[i]
	if c >= utf8.RuneSelf {
		switch {
		case strings.HasPrefix(t[i:], "€"), strings.HasPrefix(t[i:], "£"):
			return s.amount(i)
		case strings.HasPrefix(t[i:], "“"):
			return quoted(t, i)
		}
		return -1
	}
	if c == 'h' {
		if e := url(t, i); e >= 0 {
			return e
		}
	}
	if s.hasAt && (isWordByte(c) || c == '.' || c == '+' || c == '-') {
		if e := s.email(i); e >= 0 {
			return e
		}
	}
	switch {
	case isLetter(c):
		if !boundary(t, i) {
			return -1
		}
		return s.wordAt(i)
	case isDigit(c):
		if !boundary(t, i) {
			return -1
		}
		return s.numberAt(i)
	}
	switch c {
	case '+':
		return phone(t, i)
	case '~', '/':
		return rootedPath(t, i)
	case '-', '_':
		if s.hasSlash && boundary(t, i) {
			return s.relativePath(i)
		}
	case '`':
		return backticked(t, i)
	case '"':
		return quoted(t, i)
	case '#':
		return hashNumber(t, i)
	case '$':
		return s.amount(i)
	}
	return -1
}

// wordAt tries the kinds that start with a letter at a word boundary.
func (s *factScanner) wordAt(i int) int {
	t := s.text
	c := t[i]
	if s.hasDigit && isUpper(c) {
		if e := iban(t, i); e >= 0 {
			return e
		}
		if e := monthDayYear(t, i); e >= 0 {
			return e
		}
	}
	if c == 'v' && s.hasDigit {
		if e := vVersion(t, i); e >= 0 {
			return e
		}
	}
	if s.hasSlash {
		if e := s.relativePath(i); e >= 0 {
			return e
		}
	}
	if s.hasUnderscore {
		if e := snakeCase(t, i); e >= 0 {
			return e
		}
	}
	if isLower(c) {
		if e := camelCase(t, i); e >= 0 {
			return e
		}
	}
	if s.hasDigit {
		return s.lettersThenDigit(i)
	}
	return -1
}

// numberAt tries the kinds that start with a digit at a word boundary.
func (s *factScanner) numberAt(i int) int {
	t := s.text
	for _, kind := range [...]func(string, int) int{isoDate, dayMonthYear, slashDate, dottedVersion} {
		if e := kind(t, i); e >= 0 {
			return e
		}
	}
	if s.hasSlash {
		if e := s.relativePath(i); e >= 0 {
			return e
		}
	}
	if e := clockTime(t, i); e >= 0 {
		return e
	}
	if e := s.digitsThenLetter(i); e >= 0 {
		return e
	}
	return amountFrom(t, i)
}

func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isUpper(c byte) bool     { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool     { return 'a' <= c && c <= 'z' }
func isLetter(c byte) bool    { return isUpper(c) || isLower(c) }
func isAlnumByte(c byte) bool { return isLetter(c) || isDigit(c) }
func isWordByte(c byte) bool  { return isAlnumByte(c) || c == '_' } // regexp's \w
func isWordDash(c byte) bool  { return isWordByte(c) || c == '-' }  // [\w-]
func isPathByte(c byte) bool  { return isWordDash(c) || c == '.' }  // [\w.-]
func isSpace(c byte) bool { // regexp's \s
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// boundary is regexp's \b at i: a word byte on one side only. A byte
// past 0x7f is never a word byte, as no rune it starts or continues is.
func boundary(t string, i int) bool {
	return (i > 0 && isWordByte(t[i-1])) != (i < len(t) && isWordByte(t[i]))
}

func run(t string, i int, in func(byte) bool) int {
	for i < len(t) && in(t[i]) {
		i++
	}
	return i
}

func digitRun(t string, i int) int    { return run(t, i, isDigit) }
func letterRun(t string, i int) int   { return run(t, i, isLetter) }
func alnumRun(t string, i int) int    { return run(t, i, isAlnumByte) }
func wordDashRun(t string, i int) int { return run(t, i, isWordDash) }
func pathRun(t string, i int) int     { return run(t, i, isPathByte) }
