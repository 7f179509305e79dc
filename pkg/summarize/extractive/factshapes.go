package extractive

import (
	"strings"
	"unicode/utf8"
)

// The fact scanner's kinds made of letters and marks: URLs, e-mail
// addresses, paths, quotes, snake_case and camelCase, identifiers (the
// expressions are in factscan.go).

// url: https?://[^\s<>"'()]+[^\s<>"'().,;:!?] ends after the last rune of
// the run that may end a URL, the run's first rune aside.
func url(t string, i int) int {
	p := i + len("http")
	if !strings.HasPrefix(t[i:], "http") {
		return -1
	}
	if strings.HasPrefix(t[p:], "s://") {
		p += len("s://")
	} else if strings.HasPrefix(t[p:], "://") {
		p += len("://")
	} else {
		return -1
	}
	end := -1
	for q, first := p, true; q < len(t); first = false {
		c, w := t[q], 1
		if c >= utf8.RuneSelf {
			_, w = utf8.DecodeRuneInString(t[q:])
		} else if isSpace(c) || strings.IndexByte(`<>"'()`, c) >= 0 {
			break
		}
		if !first && (c >= utf8.RuneSelf || strings.IndexByte(".,;:!?", c) < 0) {
			end = q + w
		}
		q += w
	}
	return end
}

// email: the [\w.+-] run holding i must end at '@', the domain's parts
// are whole runs of [\w-] joined by dots. Every start inside the run ends
// alike.
func (s *factScanner) email(i int) int {
	t := s.text
	if i >= s.emailFrom && i < s.emailRunEnd {
		return s.emailEnd
	}
	j := i
	for j < len(t) && (isWordByte(t[j]) || t[j] == '.' || t[j] == '+' || t[j] == '-') {
		j++
	}
	s.emailFrom, s.emailRunEnd, s.emailEnd = i, j, -1
	if j == len(t) || t[j] != '@' {
		return -1
	}
	p := wordDashRun(t, j+1)
	if p == j+1 {
		return -1
	}
	parts := 0
	for p+1 < len(t) && t[p] == '.' && isWordDash(t[p+1]) {
		p = wordDashRun(t, p+1)
		parts++
	}
	if parts > 0 {
		s.emailEnd = p
	}
	return s.emailEnd
}

// rootedPath: (?:~|\B)/[\w.-]+(?:/[\w.-]+)+/? — every segment whole, as a
// shorter one would leave no '/' next; at least two.
func rootedPath(t string, i int) int {
	p := i
	if t[i] == '~' {
		p++
		if p == len(t) || t[p] != '/' {
			return -1
		}
	} else if boundary(t, i) {
		return -1
	}
	segments := 0
	for p+1 < len(t) && t[p] == '/' && isPathByte(t[p+1]) {
		p = pathRun(t, p+1)
		segments++
	}
	if segments < 2 {
		return -1
	}
	if p < len(t) && t[p] == '/' {
		p++
	}
	return p
}

// relativePath: \b[\w-]+(?:/[\w.-]+)*/[\w-]+\.[A-Za-z0-9]{1,8}\b. The
// [\w-] run must reach a '/', then the /segment/… chain follows, each
// segment whole; the path ends in the last segment that is a file name
// ([\w-]+ then a dot and 1 to 8 letters or digits before a word boundary),
// and a start further on in the chain ends alike while that segment lies
// after it.
func (s *factScanner) relativePath(i int) int {
	t := s.text
	if i < s.segsFrom || i >= s.segsEnd {
		s.segsFrom, s.segsEnd = i, wordDashRun(t, i)
	}
	p := s.segsEnd
	if p == i || p == len(t) || t[p] != '/' {
		return -1
	}
	if p < s.chainFrom || p >= s.chainEnd {
		s.chainFrom, s.lastTailStart, s.lastTailEnd = p, -1, -1
		for p+1 < len(t) && t[p] == '/' && isPathByte(t[p+1]) {
			end := pathRun(t, p+1)
			if e := fileName(t, p+1); e >= 0 {
				s.lastTailStart, s.lastTailEnd = p+1, e
			}
			p = end
		}
		s.chainEnd = p
		p = s.segsEnd
	}
	if s.lastTailStart > p {
		return s.lastTailEnd
	}
	return -1
}

// fileName: [\w-]+\.[A-Za-z0-9]{1,8}\b at i, the [\w-] run whole.
func fileName(t string, i int) int {
	p := wordDashRun(t, i)
	if p == i || p == len(t) || t[p] != '.' {
		return -1
	}
	p++
	n := 0
	for n < 8 && p+n < len(t) && isAlnumByte(t[p+n]) {
		n++
	}
	for ; n >= 1; n-- {
		if boundary(t, p+n) {
			return p + n
		}
	}
	return -1
}

// backticked: `[^`\n]{2,60}`; quoted: "[^"\n]{3,60}"|“[^”\n]{3,60}”. A
// shorter run would leave no closing mark next, so the run is whole.
func backticked(t string, i int) int { return enclosed(t, i+1, "`", 2) }

func quoted(t string, i int) int {
	if t[i] == '"' {
		return enclosed(t, i+1, `"`, 3)
	}
	return enclosed(t, i+len("“"), "”", 3)
}

// enclosed is the end of a run of min to 60 runes from i, without a line
// end, closed by mark.
func enclosed(t string, i int, mark string, min int) int {
	for q, n := i, 0; q < len(t) && n <= 60; n++ {
		if strings.HasPrefix(t[q:], mark) {
			if n >= min {
				return q + len(mark)
			}
			return -1
		}
		if t[q] == '\n' {
			return -1
		}
		if t[q] < utf8.RuneSelf {
			q++
		} else {
			_, w := utf8.DecodeRuneInString(t[q:])
			q += w
		}
	}
	return -1
}

// snakeCase: \b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b, each run whole.
// Fewer parts would end before a '_', inside a word: only all can end it.
func snakeCase(t string, i int) int {
	p := alnumRun(t, i+1)
	parts := 0
	for p+1 < len(t) && t[p] == '_' && isAlnumByte(t[p+1]) {
		p = alnumRun(t, p+1)
		parts++
	}
	if parts > 0 && boundary(t, p) {
		return p
	}
	return -1
}

// camelCase: \b[a-z]+[A-Z][A-Za-z0-9]*\b, each run whole.
func camelCase(t string, i int) int {
	p := i
	for p < len(t) && isLower(t[p]) {
		p++
	}
	if p == len(t) || !isUpper(t[p]) {
		return -1
	}
	if p = alnumRun(t, p+1); boundary(t, p) {
		return p
	}
	return -1
}

// hashNumber: #\d+\b.
func hashNumber(t string, i int) int {
	p := digitRun(t, i+1)
	if p > i+1 && boundary(t, p) {
		return p
	}
	return -1
}

// lettersThenDigit: \b[A-Za-z]+(?:[-_][A-Za-z]+)*[-_]?\d then the tail
// (identTail). The letter chain is whole: fewer parts would leave a
// letter where a digit must come.
func (s *factScanner) lettersThenDigit(i int) int {
	return s.chainThen(i, &s.letters, letterRun, isLetter, isDigit)
}

// digitsThenLetter: \b\d+(?:[-_]\d+)*[-_]?[A-Za-z] then the tail, the
// digit chain whole as the letter chain above.
func (s *factScanner) digitsThenLetter(i int) int {
	return s.chainThen(i, &s.digits, digitRun, isDigit, isLetter)
}

// chainThen matches a chain of runs (of what in holds, joined by '-' or
// '_') from i, an optional '-' or '_', a byte then holds, and the tail.
// Every start inside the chain has the same answer, kept in c.
func (s *factScanner) chainThen(i int, c *chainMatch, runFrom func(string, int) int, in, then func(byte) bool) int {
	t := s.text
	if i >= c.from && i < c.end {
		return c.match
	}
	p := runFrom(t, i)
	for p+1 < len(t) && (t[p] == '-' || t[p] == '_') && in(t[p+1]) {
		p = runFrom(t, p+1)
	}
	c.from, c.end, c.match = i, p, -1
	if p < len(t) && (t[p] == '-' || t[p] == '_') {
		p++
	}
	if p < len(t) && then(t[p]) {
		c.match = identTail(t, p+1)
	}
	return c.match
}

// identTail: [A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\b, each run whole. All
// parts end it at a word boundary, else the last part that a '-' follows
// ('_' is a word byte, so no boundary lies before one).
func identTail(t string, p int) int {
	p = alnumRun(t, p)
	lastBeforeDash := -1
	for p+1 < len(t) && (t[p] == '-' || t[p] == '_') && isAlnumByte(t[p+1]) {
		if t[p] == '-' {
			lastBeforeDash = p
		}
		p = alnumRun(t, p+1)
	}
	if boundary(t, p) {
		return p
	}
	return lastBeforeDash
}
