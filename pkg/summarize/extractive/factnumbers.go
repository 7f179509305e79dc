package extractive

import "strings"

// The fact scanner's kinds that hold digits but dates and times: IBANs,
// phone numbers, versions and amounts (the expressions are in
// factscan.go).

// iban: \b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b.
// Each group either takes the space before it or not, as the text has
// one, so the groups are a chain: the most groups first, each with its
// optional short group (longest first), then without.
func iban(t string, i int) int {
	if i+4 > len(t) || !isUpper(t[i+1]) || !isDigit(t[i+2]) || !isDigit(t[i+3]) {
		return -1
	}
	var ends [8]int
	ends[0] = i + 4
	groups := 0
	for groups < 7 {
		q := skipSpace(t, ends[groups])
		if q+4 > len(t) || alnumUpperRun(t, q, 4) < 4 {
			break
		}
		groups++
		ends[groups] = q + 4
	}
	for ; groups >= 2; groups-- {
		p := ends[groups]
		q := skipSpace(t, p)
		for n := alnumUpperRun(t, q, 3); n >= 1; n-- {
			if boundary(t, q+n) {
				return q + n
			}
		}
		if boundary(t, p) {
			return p
		}
	}
	return -1
}

// skipSpace is past the one space an optional " ?" takes at p.
func skipSpace(t string, p int) int {
	if p < len(t) && t[p] == ' ' {
		return p + 1
	}
	return p
}

// alnumUpperRun is how many of [A-Z0-9] start at p, up to most.
func alnumUpperRun(t string, p, most int) int {
	n := 0
	for n < most && p+n < len(t) && (isUpper(t[p+n]) || isDigit(t[p+n])) {
		n++
	}
	return n
}

// phone: \+\d{1,3}(?:[ .-]?(?:\(\d{1,5}\)|\d{1,5})){2,6}. Nothing follows
// the groups, so once two have matched the first choice stands: only the
// choices for the first two are ever taken back.
func phone(t string, i int) int {
	for n := min(digitRun(t, i+1)-(i+1), 3); n >= 1; n-- {
		if e := phoneGroups(t, i+1+n, 0); e >= 0 {
			return e
		}
	}
	return -1
}

func phoneGroups(t string, p, done int) int {
	if done == 6 {
		return p
	}
	starts := [2]int{p, -1}
	if p < len(t) && (t[p] == ' ' || t[p] == '.' || t[p] == '-') {
		starts = [2]int{p + 1, p}
	}
	for _, q := range starts {
		if q < 0 {
			break
		}
		if q < len(t) && t[q] == '(' {
			d := digitRun(t, q+1)
			if n := d - (q + 1); n >= 1 && n <= 5 && d < len(t) && t[d] == ')' {
				if e := phoneGroups(t, d+1, done+1); e >= 0 {
					return e
				}
			}
		}
		for n := min(digitRun(t, q)-q, 5); n >= 1; n-- {
			if e := phoneGroups(t, q+n, done+1); e >= 0 {
				return e
			}
		}
	}
	if done >= 2 {
		return p
	}
	return -1
}

// vVersion: \bv\d+(?:\.\d+)*(?:-[\w.]+)?\b, every digit run whole (a
// digit would follow a shorter one, where nothing may come). With all
// parts, a suffix or a boundary ends it; with one part less it ends at a
// digit before a dot, a boundary always.
func vVersion(t string, i int) int {
	p := digitRun(t, i+1)
	if p == i+1 {
		return -1
	}
	before := -1
	for p+1 < len(t) && t[p] == '.' && isDigit(t[p+1]) {
		before, p = p, digitRun(t, p+1)
	}
	if e := versionSuffix(t, p); e >= 0 {
		return e
	}
	if boundary(t, p) {
		return p
	}
	if before >= 0 && boundary(t, before) {
		return before
	}
	return -1
}

// dottedVersion: \b\d+\.\d+\.\d+(?:-[\w.]+)?\b, every run whole.
func dottedVersion(t string, i int) int {
	p := i
	for part := range 3 {
		if part > 0 {
			if !byteAt(t, p, '.') {
				return -1
			}
			p++
		}
		q := digitRun(t, p)
		if q == p {
			return -1
		}
		p = q
	}
	if e := versionSuffix(t, p); e >= 0 {
		return e
	}
	if boundary(t, p) {
		return p
	}
	return -1
}

// versionSuffix: -[\w.]+ then a boundary, at its last one in the run.
func versionSuffix(t string, p int) int {
	if !byteAt(t, p, '-') {
		return -1
	}
	end := run(t, p+1, func(c byte) bool { return isWordByte(c) || c == '.' })
	for e := end; e > p+1; e-- {
		if boundary(t, e) {
			return e
		}
	}
	return -1
}

// amount: (?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?
// at a currency sign.
func (s *factScanner) amount(i int) int {
	t := s.text
	p := i + 1
	if t[i] != '$' {
		p = i + len("€") // "£" is shorter, but both end the same way
		if strings.HasPrefix(t[i:], "£") {
			p = i + len("£")
		}
	}
	for _, q := range optional(p, p < len(t) && isSpace(t[p]), 1) {
		if q >= 0 && q < len(t) && isDigit(t[q]) && boundary(t, q) {
			return amountFrom(t, q)
		}
	}
	return -1
}

// amountFrom is the amount's end from its first digit: every part is
// optional and greedy, so each is taken when there.
func amountFrom(t string, i int) int {
	p := run(t, i+1, func(c byte) bool { return isDigit(c) || c == ',' })
	if byteAt(t, p, '.') && p+1 < len(t) && isDigit(t[p+1]) {
		p = digitRun(t, p+1)
	}
	if p < len(t) && isSpace(t[p]) {
		if e := unitAt(t, p+1); e >= 0 {
			return e
		}
	} else if e := unitAt(t, p); e >= 0 {
		return e
	}
	return p
}

// unitAt: (?i:%|percent|°[cf]) at p (none of these letters folds to a
// letter outside ASCII).
func unitAt(t string, p int) int {
	switch {
	case byteAt(t, p, '%'):
		return p + 1
	case p+len("percent") <= len(t) && strings.EqualFold(t[p:p+len("percent")], "percent"):
		return p + len("percent")
	case strings.HasPrefix(t[p:], "°") && p+len("°") < len(t) && strings.IndexByte("cfCF", t[p+len("°")]) >= 0:
		return p + len("°") + 1
	}
	return -1
}

// isNumber reports whether a fact is an amount alone, not a date or an
// id: ^[$€£]?\s?\d[\d,]*(?:\.\d+)?(?:\s?(?i:%|percent|°[cf]))?,?$. Every
// part is forced by the byte it starts with, so one pass decides.
func isNumber(s string) bool {
	p := 0
	for _, sign := range []string{"$", "€", "£"} {
		if strings.HasPrefix(s, sign) {
			p = len(sign)
			break
		}
	}
	if p < len(s) && isSpace(s[p]) {
		p++
	}
	if p == len(s) || !isDigit(s[p]) {
		return false
	}
	p = run(s, p+1, func(c byte) bool { return isDigit(c) || c == ',' })
	if byteAt(s, p, '.') {
		if p+1 == len(s) || !isDigit(s[p+1]) {
			return false
		}
		p = digitRun(s, p+1)
	}
	q := p
	if q < len(s) && isSpace(s[q]) {
		q++
	}
	if e := unitAt(s, q); e >= 0 {
		p = e
	}
	if byteAt(s, p, ',') {
		p++
	}
	return p == len(s)
}

func byteAt(t string, p int, c byte) bool { return p < len(t) && t[p] == c }

func digitsAt(t string, p, n int) bool { return p+n <= len(t) && digitRun(t, p) >= p+n }
