package extractive

import (
	"strings"
	"unicode/utf8"
)

// The facts made of words: names (factnames.go), and a user's directives.
// Hand-written scanners stand for these expressions (facts_reference_test.go
// keeps them and the fuzz targets hold both to the same answers):
//
//	names        (?:A )*\p{Lu}[\p{Ll}'’]+(?:(?: (?:of|and|the|de|van|von|&))* (?:A )*\p{Lu}[\p{L}'’]+)*
//	             where A, a title or initials: (?:Mr|Mrs|…|Col|[A-Z](?:\.[A-Z])+)\.
//	contractions ['’](?:s|ll|re|ve|d|m|t)?\b|['’]$
//	sentences    (?:[^.!?\n]|[.!?]+[^\s.!?])+[.!?]*
//	directives   (?i)^(?:\w+: )?(?:please |always |never |don'?t |…|from now on)

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
