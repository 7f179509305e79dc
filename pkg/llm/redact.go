package llm

import (
	"errors"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/format"
)

// Redacted is what a key is replaced with.
const Redacted = "[REDACTED]"

// minKeyBytes: a shorter value is a placeholder a local server takes
// ("EMPTY", "none"), not a secret, and hiding it would mangle ordinary text.
const minKeyBytes = 8

// Redactor hides API keys in text that may echo them: error bodies,
// response bodies, error messages. A key is found written plainly or with
// any of its characters JSON-escaped ("sk-\u0061bc", "a\/b"), at any depth
// of escaping, so what a JSON reader would decode to the key is hidden
// too. The zero value hides nothing.
type Redactor struct{ keys []string }

// NewRedactor returns a Redactor of the keys given; empty and placeholder
// values are left out.
func NewRedactor(keys ...string) Redactor {
	var r Redactor
	for _, k := range keys {
		if len(k) >= minKeyBytes && !slices.Contains(r.keys, k) {
			r.keys = append(r.keys, k)
		}
	}
	// The longest first, so a key that holds another is hidden whole.
	slices.SortFunc(r.keys, func(a, b string) int { return len(b) - len(a) })
	return r
}

// KnownKeys returns the value of every key variable of the provider
// registry, read through getenv (the environment, then the config file):
// every key convo may hold, whichever provider a command speaks to.
func KnownKeys(getenv func(string) string) []string {
	var keys, envs []string
	for _, p := range format.Providers(0) {
		if p.KeyEnv != "" && !slices.Contains(envs, p.KeyEnv) { // openai-responses shares openai's
			envs = append(envs, p.KeyEnv)
			if v := getenv(p.KeyEnv); v != "" {
				keys = append(keys, v)
			}
		}
	}
	return keys
}

// Bytes returns b with every key replaced by Redacted; b itself when it
// holds none.
func (r Redactor) Bytes(b []byte) []byte {
	for _, k := range r.keys {
		b = redactKey(b, k)
	}
	for _, k := range r.keys {
		if len(k) >= minFragment {
			b = redactFragments(b, k)
		}
	}
	return b
}

// minFragment: a run of this many consecutive bytes of a key is hidden
// too, wherever it stands: a key cut short by one character, or split by
// a wrapped line, is still most of the secret.
const minFragment = 12

// redactFragments replaces each run of at least minFragment bytes of b
// that stands in key, written plainly. It copies b only when it finds one.
func redactFragments(b []byte, key string) []byte {
	var out []byte
	last := 0
	for i := 0; i+minFragment <= len(b); i++ {
		longest := 0
		for j := strings.IndexByte(key, b[i]); j >= 0 && len(key)-j >= minFragment; {
			n := 0
			for i+n < len(b) && j+n < len(key) && b[i+n] == key[j+n] {
				n++
			}
			longest = max(longest, n)
			k := strings.IndexByte(key[j+1:], b[i])
			if k < 0 {
				break
			}
			j += 1 + k
		}
		if longest < minFragment {
			continue
		}
		out = append(out, b[last:i]...)
		out = append(out, Redacted...)
		last = i + longest
		i = last - 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// String is Bytes for a string.
func (r Redactor) String(s string) string {
	if len(r.keys) == 0 {
		return s
	}
	b := r.Bytes([]byte(s))
	return string(b)
}

// Error returns err when its text holds no key, and otherwise a plain
// error of the redacted text: the original, still holding the key, must not
// be reachable through Unwrap or %#v; losing its type is the lesser harm.
func (r Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.String(msg); red != msg {
		return errors.New(red)
	}
	return err
}

// maxLen bounds the bytes a key may take in text, escaped once.
func (r Redactor) maxLen() int {
	if len(r.keys) == 0 {
		return 0
	}
	return len(r.keys[0]) * len(`\u0000`)
}

// redactKey replaces each occurrence of key in b. It copies b only when it
// finds one.
func redactKey(b []byte, key string) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != key[0] && b[i] != '\\' {
			continue
		}
		end := matchKey(b, i, key)
		if end < 0 {
			continue
		}
		start := i
		// A backslash left before the replacement would escape its first
		// character: take the whole run of backslashes with it.
		for start > last && b[start-1] == '\\' {
			start--
		}
		out = append(out, b[last:start]...)
		out = append(out, Redacted...)
		last, i = end, end-1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// matchKey returns where key ends when it starts at b[i], each of its
// bytes written plainly or as a JSON escape behind one or more backslashes;
// -1 when it does not.
func matchKey(b []byte, i int, key string) int {
	for k := 0; k < len(key); k++ {
		if i >= len(b) {
			return -1
		}
		c := key[k]
		if b[i] == c {
			i++
			continue
		}
		if b[i] != '\\' {
			return -1
		}
		j := i
		for j < len(b) && b[j] == '\\' {
			j++
		}
		switch {
		case j < len(b) && b[j] == c && (c == '/' || c == '"'):
			i = j + 1
		case j+5 <= len(b) && b[j] == 'u' && c < 0x80 && hexValue(b[j+1:j+5]) == int(c):
			i = j + 5
		default:
			return -1
		}
	}
	return i
}

// hexValue reads four hex digits, -1 when they are not.
func hexValue(h []byte) int {
	v := 0
	for _, c := range h {
		v <<= 4
		switch {
		case '0' <= c && c <= '9':
			v |= int(c - '0')
		case 'a' <= c && c <= 'f':
			v |= int(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			v |= int(c - 'A' + 10)
		default:
			return -1
		}
	}
	return v
}
