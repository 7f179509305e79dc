package tokens

import (
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The codec splits text into pieces with a regular expression before it
// merges each piece into tokens. Its engine (regexp2's generated code)
// allocates a match per piece and is the larger part of a count's time, so
// the two patterns are written out here by hand. They follow what the
// generated code does, quirks included, not what the patterns say:
//
//   - a run of white space holding a line break ends after the first run of
//     line breaks in it ("a \n \n b" is "a", " \n", " \n", " b"), as the
//     generated backtracking for \s*[\r\n]+ looks for the first \r or \n,
//     not the last;
//   - (?i:'s) also matches 'ſ (U+017F, which folds to s);
//   - U+007F (DEL) matches no alternative: the engine's ASCII bitmaps for
//     [^\r\n\p{L}\p{N}] and [^\s\p{L}\p{N}] leave out their last bit. The
//     engine moves on past it, so it is in no piece and counts nothing.
//
// A splitter works on valid UTF-8 (Count sees to it) and returns where the
// piece starting at at ends, or at itself when no piece starts there (the
// caller moves on by a rune, as the engine does); pieces are substrings of
// s, so splitting allocates nothing.
type splitter func(s string, at int) (end int)

// del is U+007F, which no alternative of either pattern matches.
const del = 0x7f

// runeClass is the set of character classes of a rune the patterns test.
type runeClass uint8

const (
	classLetter runeClass = 1 << iota // \p{L}
	classNumber                       // \p{N}
	classSpace                        // \s, which regexp2 tests with unicode.IsSpace
	classHead                         // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]: o200k's start of a word
	classTail                         // [\p{Ll}\p{Lm}\p{Lo}\p{M}]: o200k's rest of a word
)

// asciiClass is classOf for ASCII, which is most of chat text: 128 bytes,
// cheap enough to build at init.
var asciiClass = func() (t [utf8.RuneSelf]runeClass) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOf(r)
	}
	return t
}()

// classOf returns the classes of r. A rune has one general category, so
// the tests stop at the first that holds (TestClassOf checks every rune
// against the classes tested one by one).
func classOf(r rune) runeClass {
	switch {
	case unicode.IsLetter(r):
		switch {
		case unicode.IsLower(r):
			return classLetter | classTail
		case unicode.IsUpper(r), unicode.IsTitle(r):
			return classLetter | classHead
		default: // Lm, Lo
			return classLetter | classHead | classTail
		}
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsMark(r):
		return classHead | classTail
	case unicode.IsNumber(r):
		return classNumber
	}
	return 0
}

// classAt returns the classes, the rune and the width of the rune at i, or
// none and width 0 at the end of s.
func classAt(s string, i int) (runeClass, rune, int) {
	if i >= len(s) {
		return 0, 0, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], rune(b), 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return classOfCached(r), r, w
}

// recentClasses remembers the classes of recent non-ASCII runes: a
// splitter looks at a rune more than once, and a text in a script reuses
// few, while classOf searches up to five Unicode tables. An entry packs the
// rune (21 bits) above its classes (5 bits), so it is read and written
// whole, atomically; a rune of 0x80 or more never packs to 0, the empty
// entry.
var recentClasses [1024]atomic.Uint32

func classOfCached(r rune) runeClass {
	slot := &recentClasses[uint32(r)%uint32(len(recentClasses))]
	if e := slot.Load(); rune(e>>8) == r {
		return runeClass(e)
	}
	c := classOf(r)
	slot.Store(uint32(r)<<8 | uint32(c))
	return c
}

// isPrefix reports whether a rune may lead a word: [^\r\n\p{L}\p{N}].
func isPrefix(c runeClass, r rune) bool {
	return c&(classLetter|classNumber) == 0 && r != '\r' && r != '\n' && r != del
}

// isSymbol reports [^\s\p{L}\p{N}].
func isSymbol(c runeClass, r rune) bool {
	return c&(classSpace|classLetter|classNumber) == 0 && r != del
}

func isLineBreak(b byte) bool { return b == '\r' || b == '\n' }

// runOf returns where the run of runes of s with a class in want, from i,
// ends.
func runOf(s string, i int, want runeClass) int {
	for i < len(s) {
		c, _, w := classAt(s, i)
		if c&want == 0 {
			break
		}
		i += w
	}
	return i
}

// splitO200k splits as o200k_base's pattern:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// The first alternative that matches wins, each tried with its optional
// leading rune and then without it (a lone combining mark leads a word or
// is one).
func splitO200k(s string, at int) int {
	c, r, w := classAt(s, at)
	prefixed := isPrefix(c, r)
	if prefixed {
		if end, ok := o200kTailWord(s, at+w); ok {
			return end
		}
	}
	if end, ok := o200kTailWord(s, at); ok {
		return end
	}
	if prefixed {
		if end, ok := o200kHeadWord(s, at+w); ok {
			return end
		}
	}
	if end, ok := o200kHeadWord(s, at); ok {
		return end
	}
	return splitRest(s, at, c, true)
}

// o200kTailWord matches [head]*[tail]+ and a contraction from i. The head
// run is greedy and gives back runes until a tail rune follows it: the run
// itself when a tail rune ends it, else its last rune that is also a tail
// rune (Lm, Lo, M).
func o200kTailWord(s string, i int) (int, bool) {
	end, lastTail := i, -1
	for end < len(s) {
		c, _, w := classAt(s, end)
		if c&classHead == 0 {
			break
		}
		if c&classTail != 0 {
			lastTail = end
		}
		end += w
	}
	if c, _, _ := classAt(s, end); c&classTail == 0 {
		if lastTail < 0 {
			return 0, false
		}
		end = lastTail
	}
	return contractionEnd(s, runOf(s, end, classTail)), true
}

// o200kHeadWord matches [head]+[tail]* and a contraction from i.
func o200kHeadWord(s string, i int) (int, bool) {
	end := runOf(s, i, classHead)
	if end == i {
		return 0, false
	}
	return contractionEnd(s, runOf(s, end, classTail)), true
}

// splitCl100k splits as cl100k_base's pattern:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitCl100k(s string, at int) int {
	if end := contractionEnd(s, at); end > at {
		return end
	}
	c, r, w := classAt(s, at)
	if isPrefix(c, r) {
		if end := runOf(s, at+w, classLetter); end > at+w {
			return end
		}
	}
	if end := runOf(s, at, classLetter); end > at {
		return end
	}
	return splitRest(s, at, c, false)
}

// contractionEnd returns where (?i:'s|'t|'re|'ve|'m|'ll|'d) at i ends, or i.
func contractionEnd(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return i + 2
	case 'r', 'R', 'v', 'V':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l', 'L':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xC5: // ſ is C5 BF
		if i+2 < len(s) && s[i+2] == 0xBF {
			return i + 3
		}
	}
	return i
}

// splitRest matches the alternatives the two patterns share, after the
// words: up to three digits, symbols with an optional leading space and
// trailing line breaks (and slashes for o200k), then white space.
func splitRest(s string, at int, c runeClass, slashes bool) int {
	if c&classNumber != 0 {
		end := at
		for range 3 {
			c, _, w := classAt(s, end)
			if c&classNumber == 0 {
				break
			}
			end += w
		}
		return end
	}
	from := at
	if s[at] == ' ' {
		from++
	}
	end := from
	for end < len(s) {
		c, r, w := classAt(s, end)
		if !isSymbol(c, r) {
			break
		}
		end += w
	}
	if end > from {
		for end < len(s) && (isLineBreak(s[end]) || slashes && s[end] == '/') {
			end++
		}
		return end
	}
	return spaceEnd(s, at)
}

// spaceEnd matches \s*[\r\n]+|\s+(?!\S)|\s+ at i: up to the end of the
// first line breaks of the run of white space; else all of the run at the
// end of s or when it is one rune; else the run but its last rune, which
// then leads the next word.
func spaceEnd(s string, i int) int {
	end, last, lineBreak := i, i, -1
	for end < len(s) {
		c, _, w := classAt(s, end)
		if c&classSpace == 0 {
			break
		}
		if lineBreak < 0 && isLineBreak(s[end]) {
			lineBreak = end
		}
		last = end
		end += w
	}
	switch {
	case lineBreak >= 0:
		end = lineBreak
		for end < len(s) && isLineBreak(s[end]) {
			end++
		}
		return end
	case end == i:
		return i // no alternative matched (U+007F)
	case end == len(s) || last == i:
		return end
	}
	return last
}
