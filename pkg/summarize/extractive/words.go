package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// appendLower appends strings.ToLower(s) to dst: words are looked up
// lower-cased in the word sets, and a stack buffer spares the copy.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if isUpper(c) {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		// An invalid byte becomes U+FFFD, as strings.ToLower makes it.
		r, w := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += w
	}
	return dst
}

func clipWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + " …"
}

func isAlnum(r rune) bool     { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isUpper(c byte) bool     { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool     { return 'a' <= c && c <= 'z' }
func isAlnumByte(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

func run(t string, i int, in func(byte) bool) int {
	for i < len(t) && in(t[i]) {
		i++
	}
	return i
}

func alnumRun(t string, i int) int { return run(t, i, isAlnumByte) }

// codeFence reports whether a line opens or closes a fenced code block
// (Markdown's ``` or ~~~).
func codeFence(line string) bool {
	line = strings.TrimLeft(line, " \t")
	return strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
}

// emphasis reports whether marks are Markdown emphasis alone ("**",
// "_"), which parts no words.
func emphasis(marks string) bool {
	return marks != "" && strings.Trim(marks, "*_") == ""
}

// foldWord lower-cases a word and drops its apostrophes: "I've" is "ive".
func foldWord(w string) string {
	var buf [32]byte
	if lw := foldAppend(buf[:0], w); string(lw) != w {
		return string(lw)
	}
	return w
}

// foldAppend appends foldWord(w) to dst.
func foldAppend(dst []byte, w string) []byte {
	for i := 0; i < len(w); {
		if c := w[i]; c < utf8.RuneSelf {
			if isUpper(c) {
				c += 'a' - 'A'
			}
			if c != '\'' {
				dst = append(dst, c)
			}
			i++
			continue
		}
		// An invalid byte becomes U+FFFD, as strings.ToLower makes it.
		r, n := utf8.DecodeRuneInString(w[i:])
		if r != '’' {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += n
	}
	return dst
}

// stemAppend appends a word's part before an apostrophe, lower-cased, to
// dst: "that's" is "that".
func stemAppend(dst []byte, w string) []byte {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		w = w[:i]
	}
	return appendLower(dst, w)
}

func hasContent(words []string) bool {
	for _, w := range words {
		if isContent(w) {
			return true
		}
	}
	return false
}

func isContent(w string) bool {
	var buf [32]byte
	lw := foldAppend(buf[:0], w)
	return len(lw) > 1 && !stopwords[string(lw)]
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
