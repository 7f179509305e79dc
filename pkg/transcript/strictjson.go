package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
)

// checkStrict finds in a JSON text, which json.Unmarshal has accepted, what
// encoding/json would read by changing it silently: a key given twice in
// one object (the last would win) and a \u escape that is a lone UTF-16
// surrogate (it would become U+FFFD). Keys of the objects that map to the
// record's own fields are compared as encoding/json matches them, without
// regard to case; keys of user data (aux values, tool arguments) exactly.
// Errors are *InputError naming the field.
func checkStrict(b []byte) error {
	w := strictWalker{b: b, path: make([]pathSeg, 0, 8)}
	return w.value(true)
}

// strictWalker reads one JSON text; path is where it stands, turned into a
// field name only for an error, so that a clean line costs no allocation
// beyond the keys of its larger objects.
type strictWalker struct {
	b    []byte
	i    int
	path []pathSeg
}

// pathSeg is a key (idx < 0) or a list index.
type pathSeg struct {
	key []byte
	idx int
}

func (w *strictWalker) field() string {
	var b strings.Builder
	for _, s := range w.path {
		switch {
		case s.idx >= 0:
			b.WriteString("[" + strconv.Itoa(s.idx) + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(decodeKey(s.key))
		}
	}
	return b.String()
}

// decodeKey returns a key as its text, escapes decoded.
func decodeKey(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	_ = json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s)
	return s
}

// sameKey compares two raw keys as encoding/json matches them to fields:
// exactly, or without regard to case when fold.
func sameKey(a, b []byte, fold bool) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if bytes.IndexByte(a, '\\') >= 0 || bytes.IndexByte(b, '\\') >= 0 {
		x, y := decodeKey(a), decodeKey(b)
		return x == y || fold && strings.EqualFold(x, y)
	}
	return fold && bytes.EqualFold(a, b)
}

func (w *strictWalker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *strictWalker) value(fold bool) error {
	w.space()
	if w.i >= len(w.b) {
		return nil
	}
	switch w.b[w.i] {
	case '{':
		return w.object(fold)
	case '[':
		w.i++
		for n := 0; ; n++ {
			w.space()
			if w.i >= len(w.b) || w.b[w.i] == ']' {
				w.i++
				return nil
			}
			w.path = append(w.path, pathSeg{idx: n})
			if err := w.value(fold); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
			w.space()
			if w.i < len(w.b) && w.b[w.i] == ',' {
				w.i++
			}
		}
	case '"':
		_, err := w.str()
		return err
	}
	for w.i < len(w.b) { // a number or a literal
		switch w.b[w.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil
		}
		w.i++
	}
	return nil
}

func (w *strictWalker) object(fold bool) error {
	w.i++ // the '{'
	var small [12][]byte
	keys := small[:0]
	for {
		w.space()
		if w.i >= len(w.b) || w.b[w.i] == '}' {
			w.i++
			return nil
		}
		k, err := w.str()
		if err != nil {
			return err
		}
		w.path = append(w.path, pathSeg{key: k, idx: -1})
		for _, seen := range keys {
			if sameKey(k, seen, fold) {
				return fieldErr(w.field(), "key given twice (as %q and %q): which one holds?", decodeKey(seen), decodeKey(k))
			}
		}
		keys = append(keys, k)
		w.space()
		w.i++ // the ':'
		// aux values and tool arguments are the user's own data.
		inner := fold && !bytes.EqualFold(k, []byte("aux")) && !bytes.EqualFold(k, []byte("arguments"))
		if err := w.value(inner); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.space()
		if w.i < len(w.b) && w.b[w.i] == ',' {
			w.i++
		}
	}
}

// str reads a string and returns its raw bytes, between the quotes,
// refusing a lone surrogate.
func (w *strictWalker) str() ([]byte, error) {
	w.i++ // the opening quote
	start := w.i
	for w.i < len(w.b) {
		w.i += plainRun(w.b[w.i:])
		if w.i >= len(w.b) {
			break
		}
		switch w.b[w.i] {
		case '"':
			w.i++
			return w.b[start : w.i-1], nil
		case '\\':
			if w.i+1 < len(w.b) && w.b[w.i+1] == 'u' {
				if err := w.surrogate(); err != nil {
					return nil, err
				}
				continue
			}
			w.i += 2
		default: // a control character: json.Unmarshal let none through
			w.i++
		}
	}
	return w.b[start:], nil
}

// surrogate reads the \u escape at w.i (and its pair, if it starts one).
func (w *strictWalker) surrogate() error {
	r, ok := w.hex(w.i)
	if !ok {
		w.i += 2
		return nil
	}
	w.i += 6
	switch {
	case r >= 0xdc00 && r <= 0xdfff:
	case r >= 0xd800 && r <= 0xdbff:
		if w.i+1 < len(w.b) && w.b[w.i] == '\\' && w.b[w.i+1] == 'u' {
			if r2, ok := w.hex(w.i); ok && utf16.DecodeRune(r, r2) != 0xfffd {
				w.i += 6
				return nil
			}
		}
	default:
		return nil
	}
	return fieldErr(w.field(), "lone UTF-16 surrogate \\u%04x is no character (it would be read as U+FFFD)", r)
}

// hex reads the four digits of the \u escape at i.
func (w *strictWalker) hex(i int) (rune, bool) {
	if i+6 > len(w.b) {
		return 0, false
	}
	return hexRune(w.b[i+2 : i+6])
}
