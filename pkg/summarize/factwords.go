package summarize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The facts made of words: names, and a user's directives. Hand-written
// scanners stand for these expressions (facts_reference_test.go keeps
// them and the fuzz targets hold both to the same answers):
//
//	names        \p{Lu}[\p{Ll}'’]+(?:(?: (?:of|and|the|de|van|von|&))* \p{Lu}[\p{L}'’]+)*
//	contractions ['’](?:s|ll|re|ve|d|m|t)?\b|['’]$
//	sentences    (?:[^.!?\n]|[.!?]+[^\s.!?])+[.!?]*
//	directives   (?i)^(?:\w+: )?(?:please |always |never |don'?t |…|from now on)

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
// p ("Dr. ", "J.K. "), -1 for none. A lone initial is left out: "Plan B.
// Then" is no name.
func abbreviationAt(text string, p int) int {
	q := p
	for q < len(text) && isLetter(text[q]) {
		q++
	}
	if q == p || q+1 >= len(text) || text[q] != '.' || text[q+1] != ' ' {
		if q == p+1 && isUpper(text[p]) {
			return initialsAt(text, p)
		}
		return -1
	}
	if !titleAbbreviations[text[p:q]] {
		return -1
	}
	return q + 2
}

// initialsAt is past initials joined by dots, their last dot and a space
// at p ("J.K. "), -1 for none.
func initialsAt(text string, p int) int {
	q := p
	for q+1 < len(text) && isUpper(text[q]) && text[q+1] == '.' {
		q += 2
	}
	if q-p < 4 || q >= len(text) || text[q] != ' ' {
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

// sentenceStart reports whether position i of text begins a sentence (or a
// "Speaker: " label's text): only marks stand between it and a sentence's
// end or the text's start ("**Perfect**", "😊 Great").
func sentenceStart(text string, i int) bool {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case strings.ContainsRune(".!?:\n", r):
			return true
		case isAlnum(r) || r == ',' || r == ';':
			return false
		}
		i -= n
	}
	return true
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

// nextSentence is the next sentence of text from pos: it ends at . ! or ?
// followed by a space, or at a line end, so URLs and decimals stay whole.
// start is -1 past the last.
func nextSentence(text string, pos int) (start, end int) {
	for i := pos; i < len(text); {
		if e := sentenceEnd(text, i); e >= 0 {
			return i, e
		}
		if isStop(text[i]) {
			i = stopRun(text, i) // no sentence starts inside these stops either
		} else {
			_, w := utf8.DecodeRuneInString(text[i:])
			i += w
		}
	}
	return -1, -1
}

// sentenceEnd is the end of the sentence at i, -1 for none: runes other
// than stops and line ends, or stops followed by one that is none of
// these nor a space, then the stops after them.
func sentenceEnd(text string, i int) int {
	// Bytes past 0x7f are never stops nor line ends: stepping over a rune
	// byte by byte ends where stepping over it whole would.
	q := i
	for q < len(text) {
		if c := text[q]; c == '\n' {
			break
		} else if !isStop(c) {
			q++
			continue
		}
		k := stopRun(text, q)
		if k == len(text) || isSpace(text[k]) {
			break
		}
		q = k + 1
	}
	if q == i {
		return -1
	}
	return stopRun(text, q)
}

func isStop(c byte) bool { return c == '.' || c == '!' || c == '?' }

func stopRun(text string, i int) int { return run(text, i, isStop) }

// directivePrefix is the end of a directive's opening words in a sentence
// ("Please ", "Caroline: never "), -1 for none: a user's sentence that
// tells the assistant how to behave.
func directivePrefix(s string) int {
	p := 0
	for p < len(s) {
		r, w := utf8.DecodeRuneInString(s[p:])
		if !foldedWordRune(r) {
			break
		}
		p += w
	}
	if p > 0 && strings.HasPrefix(s[p:], ": ") {
		if n := directiveWords(s[p+2:]); n >= 0 {
			return p + 2 + n
		}
	}
	return directiveWords(s)
}

// directiveWords is the length of the directive words s starts with,
// compared as (?i) compares, -1 for none.
func directiveWords(s string) int {
	if s == "" {
		return -1
	}
	for _, words := range [...]string{"please ", "always ", "never ", "don't ", "dont ", "do not ", "make sure ",
		"remember ", "avoid ", "only ", "stop ", "keep ", "use ", "call me ", "i want you to ", "i'd like you to ",
		"id like you to ", "i prefer ", "from now on"} {
		// A byte below 0x80 must be the first letter in either case (|0x20
		// lower-cases a letter and makes no letter of anything else).
		if s[0] < utf8.RuneSelf && s[0]|0x20 != words[0] {
			continue
		}
		if n := prefixFold(s, words); n >= 0 {
			return n
		}
	}
	return -1
}

// prefixFold is the length of the prefix of s equal to lower (ASCII,
// lower-case) under Unicode's simple case folding, -1 for none: an ASCII
// letter folds to its other case, s also to ſ, k also to the Kelvin sign.
func prefixFold(s, lower string) int {
	p := 0
	for i := range len(lower) {
		if p == len(s) {
			return -1
		}
		c := lower[i]
		if s[p] < utf8.RuneSelf {
			if s[p] != c && !(isLower(c) && s[p] == c-('a'-'A')) {
				return -1
			}
			p++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[p:])
		if !(c == 's' && r == 'ſ' || c == 'k' && r == '\u212a') {
			return -1
		}
		p += w
	}
	return p
}

// foldedWordRune is regexp's \w under (?i): ſ and the Kelvin sign fold to
// word letters.
func foldedWordRune(r rune) bool {
	return r < utf8.RuneSelf && isWordByte(byte(r)) || r == 'ſ' || r == '\u212a'
}
