package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names among the facts: runs of capitalized words, with the titles and
// initials before them, found by the hand-written scanner that stands for
// the names expression in factwords.go.

// appendNames appends the names of text: runs of capitalized words,
// without the first word of a sentence ("Wow", "Thanks") unless more
// follow, without a trailing "'s", and without forms of address and
// fillers. A name inside quoted (the spans of the quoted facts, in
// order) is not taken: the quoted fact holds it.
func appendNames(out []string, text string, quoted [][2]int) []string {
	for i := 0; i < len(text); {
		for len(quoted) > 0 && quoted[0][1] <= i {
			quoted = quoted[1:]
		}
		if len(quoted) > 0 && quoted[0][0] <= i {
			i = quoted[0][1]
			continue
		}
		if c := text[i]; c < utf8.RuneSelf && !isUpper(c) {
			i++
			continue
		}
		r, w := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(text[i:])
		}
		if !unicode.IsUpper(r) {
			i += w
			continue
		}
		// A name starts a word: the capital of jQuery or iPhone starts none.
		if before, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && isAlnum(before) {
			i += w
			continue
		}
		end := nameEnd(text, i)
		if end < 0 {
			i += w
			continue
		}
		if name, ok := keptName(text, i, end); ok {
			out = append(out, name)
		}
		i = end
	}
	return out
}

// nameEnd is the end of the name that starts at the capital at start,
// -1 for none. Each run of letters is whole, as the next word must start
// with a space; the connectors before a capitalized word are all taken,
// as a connector and a capital never start alike.
func nameEnd(text string, start int) int {
	q := nameWord(text, start, unicode.IsLower)
	if q < 0 {
		return -1
	}
	for p := q; ; {
		for q < len(text) && text[q] == ' ' {
			n := connectorAt(text, q+1)
			if n == 0 {
				break
			}
			q += 1 + n
		}
		if q >= len(text) || text[q] != ' ' {
			return p
		}
		end := nameWord(text, q+1, unicode.IsLetter)
		if end < 0 {
			return p
		}
		p, q = end, end
	}
}

// nameWord is the end of the word of a name at p, -1 for none: a capital
// and a run of letters (lower-case ones for a name's first word), after
// the titles and initials that stand before it ("Dr. ", "J.K. "), as many
// as a word follows.
func nameWord(text string, p int, letters func(rune) bool) int {
	var buf [4]int
	starts := append(buf[:0], p)
	for {
		e := abbreviationAt(text, starts[len(starts)-1])
		if e < 0 {
			break
		}
		starts = append(starts, e)
	}
	for k := len(starts) - 1; k >= 0; k-- {
		r, w := utf8.DecodeRuneInString(text[starts[k]:])
		if !unicode.IsUpper(r) {
			continue
		}
		if end := nameRun(text, starts[k]+w, letters); end > starts[k]+w {
			return end
		}
	}
	return -1
}

// abbreviationAt is past the title or initials, their dot and a space at
// p ("Dr. ", "J.K. "), -1 for none: what the phrase scanner holds an
// abbreviation, but a lone initial, as "Plan B. Then" is no name.
func abbreviationAt(text string, p int) int {
	q := run(text, p, func(c byte) bool { return isLetter(c) || c == '.' })
	if q-p < 3 || text[q-1] != '.' || q >= len(text) || text[q] != ' ' || !abbreviation(text[p:q-1]) {
		return -1
	}
	return q + 1
}

// nameRun is the end of the run of apostrophes and runes in letters from p.
func nameRun(text string, p int, letters func(rune) bool) int {
	for p < len(text) {
		r, w := utf8.DecodeRuneInString(text[p:])
		if r != '\'' && r != '’' && !letters(r) {
			break
		}
		p += w
	}
	return p
}

// connectorAt is the length of the connector at p (of, and, the, de, van,
// von, &), 0 for none.
func connectorAt(text string, p int) int {
	for _, c := range [...]string{"of", "and", "the", "de", "van", "von", "&"} {
		if strings.HasPrefix(text[p:], c) {
			return len(c)
		}
	}
	return 0
}

// keptName is the name at text[start:end] as the facts keep it, if they do.
func keptName(text string, start, end int) (string, bool) {
	if from, to := contraction(text[start:end]); from >= 0 && start+to == end {
		end = start + from // "Oliver's" is Oliver
	} else {
		end = plusEnd(text, end) // Disney+, Notepad++
	}
	if sentenceStart(text, start) {
		// "Wow" or "Thanks" start sentences; "Matt Patterson" is a name anywhere.
		sp := strings.IndexByte(text[start:end], ' ')
		if sp < 0 {
			return "", false
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
	if name == "" || isCommonCapitalized(name) {
		return "", false
	}
	if !strings.Contains(name, " ") && (commonWord(name) || vocative(text, start, end)) {
		return "", false
	}
	return name, true
}

// contraction is the first "'s", "'ll", "'" and the like in a name (from
// its apostrophe to the end of the match), from -1 for none.
func contraction(s string) (from, to int) {
	for i := 0; i < len(s); i++ {
		n := 0
		switch {
		case s[i] == '\'':
			n = 1
		case strings.HasPrefix(s[i:], "’"):
			n = len("’")
		default:
			continue
		}
		p := i + n
		for _, ending := range [...]string{"s", "ll", "re", "ve", "d", "m", "t"} {
			if strings.HasPrefix(s[p:], ending) && boundary(s, p+len(ending)) {
				return i, p + len(ending)
			}
		}
		if boundary(s, p) || p == len(s) {
			return i, p
		}
	}
	return -1, -1
}

// sentenceOpener reports whether a capitalized word at a sentence's start
// may be no part of the name after it: a common word or a verb in -ing
// ("Tell Mel", "Yesterday Caroline", "Knowing I'm"). Other words open the
// name: "Matt Patterson", "Summer Sounds".
func sentenceOpener(w string) bool {
	return commonWord(w) || len(w) > 4 && strings.HasSuffix(w, "ing")
}

// commonWord reports whether a word is never a name alone: a greeting, a
// filler, a function word ("It's" as "It"), or a verb or adverb that
// opens a sentence.
func commonWord(w string) bool {
	if from, _ := contraction(w); from > 0 {
		w = w[:from]
	}
	var buf [32]byte
	lw := string(appendLower(buf[:0], w))
	return greetings[lw] || fillers[lw] || stopwords[lw] || breakWords[lw] || openers[lw]
}

var openers = wordSet(`see meet ask tell let say check look hope wish miss bring take give try call thank guess bet
	imagine remember congratulate welcome yesterday today tomorrow tonight lately recently sometimes maybe perhaps
	finally anyway besides plus dear poor even during after before whenever wherever however although though
	unless whether alright hopefully honestly actually luckily sadly unfortunately fortunately`)

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
	var buf [32]byte
	return greetings[string(appendLower(buf[:0], strings.Trim(before[i:], ",!.'’")))]
}

// isCommonCapitalized drops name-like matches made of words that are only
// capitalized because a sentence starts with them ("Thanks So").
func isCommonCapitalized(s string) bool {
	if first, _ := utf8.DecodeRuneInString(s); s == "" || !unicode.IsUpper(first) || strings.ContainsAny(s, "0123456789_\"`") {
		return false
	}
	var buf [32]byte
	for w := range strings.FieldsSeq(s) {
		if !stopwords[string(appendLower(buf[:0], w))] {
			return false
		}
	}
	return true
}
