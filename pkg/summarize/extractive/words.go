package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The chat words no note rests on (English): greetings, fillers, and the
// interjections that stand before a name only to address it ("Yep Deb!";
// "Super Mario" is no address). phrases.go cuts at them.
var (
	greetings = wordSet(`hi hey hello dear thanks thank bye goodbye congrats congratulations cheers morning evening night welcome yo`)
	fillers   = wordSet(`perfect brave great awesome amazing wonderful lovely beautiful fantastic incredible congrats
		congratulations cheers wow totally absolutely exactly definitely sure nice cool sweet glad sorry thanks yes yeah
		okay ok hey hi hello bye good well agreed indeed true right haha lol omg yay hooray welcome anyway oh ah hmm
		love awww aw super excellent brilliant fun cute stunning impressive adorable gorgeous breathtaking stoked hilarious
		aww btw yum yummy yea yep yup woohoo woo ugh ooo ooh oof lemme huh whoa hehe heh meh phew`)
	interjections = wordSet(`yes yeah yea yep yup oh ah aw aww awww hmm huh wow whoa woohoo woo ugh ooh ooo oof haha
		hehe heh lol omg yay hey hi hello thanks btw phew`)
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
