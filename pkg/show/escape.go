package show

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape shows what a terminal would obey or hide as escapes:
// control characters but the newline (an escape sequence in a model's
// answer would recolour or move the cursor), DEL, C1 controls and the
// bidirectional overrides that reorder what is shown. A tab becomes four
// spaces.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if r == '\t' || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for _, r := range s {
		switch {
		case r == '\t':
			b = append(b, "    "...)
		case unsafeRune(r) && r < 0x80:
			b = fmt.Appendf(b, `\x%02x`, r)
		case unsafeRune(r):
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// EscapeID is Escape for a name that must stay on its line: an
// id, a conversation's name. A newline or a tab in it is shown escaped too.
func EscapeID(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return Escape(s)
	}
	return Escape(strings.NewReplacer("\n", `\x0a`, "\t", `\x09`).Replace(s))
}

func unsafeRune(r rune) bool {
	return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// ShellWord is s as one word a POSIX shell reads back as s, escaped for a
// terminal.
func ShellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return Escape("'" + strings.ReplaceAll(s, "'", `'\''`) + "'")
}
