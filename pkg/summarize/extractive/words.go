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
