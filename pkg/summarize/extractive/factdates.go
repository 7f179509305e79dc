package extractive

import "strings"

// The fact scanner's dates and times (the expressions are in
// factscan.go).

// isoDate: \b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b.
func isoDate(t string, i int) int {
	if !digitsAt(t, i, 4) || !byteAt(t, i+4, '-') || !digitsAt(t, i+5, 2) || !byteAt(t, i+7, '-') || !digitsAt(t, i+8, 2) {
		return -1
	}
	p := i + 10
	if (byteAt(t, p, 'T') || byteAt(t, p, ' ')) && digitsAt(t, p+1, 2) && byteAt(t, p+3, ':') && digitsAt(t, p+4, 2) {
		q := p + 6
		for _, s := range optional(q, byteAt(t, q, ':') && digitsAt(t, q+1, 2), 3) {
			if s < 0 {
				break
			}
			for _, e := range optional(s, byteAt(t, s, 'Z'), 1) {
				if e >= 0 && boundary(t, e) {
					return e
				}
			}
		}
	}
	if boundary(t, p) {
		return p
	}
	return -1
}

// optional is where an optional piece of width n at p may end, in the
// order a greedy "?" tries: past it when it is there, then without it;
// -1 for no second choice.
func optional(p int, there bool, n int) [2]int {
	if there {
		return [2]int{p + n, p}
	}
	return [2]int{p, -1}
}

// dayMonthYear: \b\d{1,2}(?:st|nd|rd|th)? MONTH,? \d{4}\b.
func dayMonthYear(t string, i int) int {
	for n := min(digitRun(t, i)-i, 2); n >= 1; n-- {
		for _, p := range optional(i+n, ordinalAt(t, i+n), 2) {
			if p < 0 {
				break
			}
			if !byteAt(t, p, ' ') {
				continue
			}
			for _, m := range monthEnds(t, p+1) {
				if m < 0 {
					break
				}
				for _, c := range optional(m, byteAt(t, m, ','), 1) {
					if c < 0 {
						break
					}
					if e := spaceYear(t, c); e >= 0 {
						return e
					}
				}
			}
		}
	}
	return -1
}

// monthDayYear: \bMONTH \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b.
func monthDayYear(t string, i int) int {
	for _, m := range monthEnds(t, i) {
		if m < 0 {
			break
		}
		if !byteAt(t, m, ' ') {
			continue
		}
		for n := min(digitRun(t, m+1)-(m+1), 2); n >= 1; n-- {
			for _, p := range optional(m+1+n, ordinalAt(t, m+1+n), 2) {
				if p < 0 {
					break
				}
				for _, c := range optional(p, byteAt(t, p, ','), 1) {
					if c < 0 {
						break
					}
					if e := spaceYear(t, c); e >= 0 {
						return e
					}
				}
			}
		}
	}
	return -1
}

// spaceYear: " \d{4}\b" at p.
func spaceYear(t string, p int) int {
	if byteAt(t, p, ' ') && digitsAt(t, p+1, 4) && boundary(t, p+5) {
		return p + 5
	}
	return -1
}

func ordinalAt(t string, p int) bool {
	if p+2 > len(t) {
		return false
	}
	switch t[p : p+2] {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// monthEnds are where MONTH may end at p, longest first (its optional
// endings are greedy), -1 past the last: the names differ in their first
// three letters, so one at most is there.
func monthEnds(t string, p int) [3]int {
	none := [3]int{-1, -1, -1}
	if p+3 > len(t) {
		return none
	}
	abbr, rest := t[p:p+3], t[p+3:]
	ends := func(suffix string) [3]int {
		if strings.HasPrefix(rest, suffix) {
			return [3]int{p + 3 + len(suffix), p + 3, -1}
		}
		return [3]int{p + 3, -1, -1}
	}
	switch abbr {
	case "Jan":
		return ends("uary")
	case "Feb":
		return ends("ruary")
	case "Mar":
		return ends("ch")
	case "Apr":
		return ends("il")
	case "May":
		return [3]int{p + 3, -1, -1}
	case "Jun":
		return ends("e")
	case "Jul":
		return ends("y")
	case "Aug":
		return ends("ust")
	case "Sep":
		switch {
		case strings.HasPrefix(rest, "tember"):
			return [3]int{p + 9, p + 4, p + 3}
		case strings.HasPrefix(rest, "t"):
			return [3]int{p + 4, p + 3, -1}
		}
		return [3]int{p + 3, -1, -1}
	case "Oct":
		return ends("ober")
	case "Nov":
		return ends("ember")
	case "Dec":
		return ends("ember")
	}
	return none
}

// slashDate: \b\d{1,2}/\d{1,2}/\d{2,4}\b.
func slashDate(t string, i int) int {
	for a := min(digitRun(t, i)-i, 2); a >= 1; a-- {
		p := i + a
		if !byteAt(t, p, '/') {
			continue
		}
		for b := min(digitRun(t, p+1)-(p+1), 2); b >= 1; b-- {
			q := p + 1 + b
			if !byteAt(t, q, '/') {
				continue
			}
			for c := min(digitRun(t, q+1)-(q+1), 4); c >= 2; c-- {
				if boundary(t, q+1+c) {
					return q + 1 + c
				}
			}
		}
	}
	return -1
}

// clockTime: \b\d{1,2}:\d{2}(?::\d{2})?(?: ?(?i:[ap]m)\b)?. The optional
// parts can only add to it: the first choice stands.
func clockTime(t string, i int) int {
	for n := min(digitRun(t, i)-i, 2); n >= 1; n-- {
		p := i + n
		if !byteAt(t, p, ':') || !digitsAt(t, p+1, 2) {
			continue
		}
		p += 3
		if byteAt(t, p, ':') && digitsAt(t, p+1, 2) {
			p += 3
		}
		if q := skipSpace(t, p); q+2 <= len(t) && strings.IndexByte("apAP", t[q]) >= 0 && (t[q+1] == 'm' || t[q+1] == 'M') && boundary(t, q+2) {
			return q + 2
		}
		return p
	}
	return -1
}
