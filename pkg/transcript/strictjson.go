package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// checkStrict finds in a JSON text, which json.Unmarshal has accepted, what
// encoding/json would read by changing it silently: a key given twice in
// one object (the last would win), a \u escape that is a lone UTF-16
// surrogate (it would become U+FFFD), and a key that no field takes (it
// would be dropped). Keys of the objects that map to the record's own
// fields are compared as encoding/json matches them, without regard to
// case; keys of user data (aux values, tool arguments) exactly. A record
// (a line with a message object) may hold no unknown key; a message alone
// (bare or OpenAI-style) may, outside convo's own objects (metadata,
// provider data): those keys are returned, as fields, for the caller to
// say they were dropped. Errors are *InputError naming the field.
func checkStrict(b []byte, record bool) (dropped []string, err error) {
	w := strictWalker{b: b, path: make([]pathSeg, 0, 8)}
	top := lineShape
	if record {
		top = recordShape
	}
	err = w.value(true, top, !record)
	return w.dropped, err
}

// strictWalker reads one JSON text; path is where it stands, turned into a
// field name only for an error, so that a clean line costs no allocation
// beyond the keys of its larger objects.
type strictWalker struct {
	b       []byte
	i       int
	path    []pathSeg
	dropped []string
	// noNUL refuses a \u0000 escape (tool arguments: kept as their JSON
	// text, the escape would reach the provider as a NUL).
	noNUL bool
}

// keyShape is what an object of the input may hold: its keys, each with the
// shape of its value (nil: not looked into, being the user's own data or
// checked where it is read), and for a list, the shape of its elements.
type keyShape struct {
	what string // for an error: "a record holds ..."
	keys []knownKey
	elem *keyShape
	own  bool // convo's own object: an unknown key is refused in any form
}

type knownKey struct {
	name  string
	shape *keyShape
}

// messageKeys are what a message holds, in a record or alone.
var messageKeys = []knownKey{
	{"role", nil}, {"contents", nil}, {"content", &keyShape{elem: partShape}},
	{"tool_calls", &keyShape{elem: toolCallShape}}, {"provider_data", &keyShape{elem: providerItemShape}},
	{"tool_call_id", nil}, {"name", nil}, {"is_error", nil},
}

var (
	partShape     = &keyShape{what: "a content part", keys: []knownKey{{"type", nil}, {"text", nil}, {"image_url", nil}, {"input_audio", nil}, {"file", nil}}}
	functionShape = &keyShape{what: "a tool call's function", keys: []knownKey{{"name", nil}, {"arguments", nil}}}
	toolCallShape = &keyShape{what: "a tool call", keys: []knownKey{{"id", nil}, {"type", nil}, {"name", nil}, {"arguments", nil}, {"function", functionShape}}}
	// Timing keys are checked as they are read (Timing.Set).
	providerItemShape = &keyShape{what: "a provider data item", own: true, keys: []knownKey{{"provider", nil}, {"at", nil}, {"item", nil}, {"replaces", nil}}}
	metadataShape     = &keyShape{what: "metadata", own: true, keys: []knownKey{{"attribute", nil}, {"summaryIds", nil}, {"timing", nil}, {"aux", nil}}}
	messageShape      = &keyShape{what: "a message", keys: messageKeys}
	recordShape       = &keyShape{what: "a record", keys: []knownKey{{"id", nil}, {"conversation", nil}, {"message", messageShape}, {"metadata", metadataShape}}}
	// lineShape is a line without a message object: a message, bare or
	// OpenAI-style, with a record's id, conversation and metadata, and the
	// keys by which a whole response body is told (parse.go).
	lineShape = &keyShape{what: "a message", keys: append(append([]knownKey{}, messageKeys...),
		knownKey{"id", nil}, knownKey{"conversation", nil}, knownKey{"message", messageShape}, knownKey{"metadata", metadataShape},
		knownKey{"choices", nil}, knownKey{"candidates", nil}, knownKey{"stop_reason", nil}, knownKey{"stopReason", nil})}
)

// lookup finds key among s's keys, as encoding/json matches a key to a
// field: without regard to case.
func (s *keyShape) lookup(raw []byte) (*keyShape, bool) {
	if bytes.IndexByte(raw, '\\') >= 0 {
		raw = []byte(decodeKey(raw))
	}
	for _, k := range s.keys {
		if bytes.EqualFold(raw, []byte(k.name)) {
			return k.shape, true
		}
	}
	return nil, false
}

// unknownKey is the error for a key s does not hold.
func (w *strictWalker) unknownKey(s *keyShape, raw []byte) error {
	key := decodeKey(raw)
	if s == recordShape {
		for _, k := range messageKeys {
			if strings.EqualFold(k.name, key) {
				return fieldErr(w.field(), "give the %s inside message, not beside it", key)
			}
		}
	}
	names := make([]string, len(s.keys))
	guess := ""
	for i, k := range s.keys {
		names[i] = k.name
		lk, lkey := strings.ToLower(k.name), strings.ToLower(key)
		if guess == "" && len(key) >= 3 && (strings.HasPrefix(lk, lkey) || strings.HasPrefix(lkey, lk)) {
			guess = fmt.Sprintf(" (%s?)", k.name)
		}
	}
	return fieldErr(w.field(), "unknown key%s: %s holds %s", guess, s.what, strings.Join(names, ", "))
}

// holdsNothing reports whether a JSON value carries no data: null, "",
// [] or {} (white space aside). Dropping it loses nothing, so nothing is said.
func holdsNothing(v []byte) bool {
	var b [4]byte
	n := 0
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if n == len(b) {
			return false
		}
		b[n] = c
		n++
	}
	switch string(b[:n]) {
	case "null", `""`, "[]", "{}":
		return true
	}
	return false
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

// value reads one value; sh is its shape (nil: unchecked), lenient says
// that an unknown key is dropped rather than refused.
func (w *strictWalker) value(fold bool, sh *keyShape, lenient bool) error {
	w.space()
	if w.i >= len(w.b) {
		return nil
	}
	switch w.b[w.i] {
	case '{':
		return w.object(fold, sh, lenient)
	case '[':
		w.i++
		var elem *keyShape
		if sh != nil {
			elem = sh.elem
		}
		for n := 0; ; n++ {
			w.space()
			if w.i >= len(w.b) || w.b[w.i] == ']' {
				w.i++
				return nil
			}
			w.path = append(w.path, pathSeg{idx: n})
			if err := w.value(fold, elem, lenient); err != nil {
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

func (w *strictWalker) object(fold bool, sh *keyShape, lenient bool) error {
	w.i++ // the '{'
	var small [12][]byte
	keys := small[:0]
	if sh != nil && len(sh.keys) == 0 {
		sh = nil // a list's shape: what is not a list is judged where it is read
	}
	if sh != nil && sh.own {
		lenient = false
	}
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
		var child *keyShape
		known := true
		if sh != nil {
			if child, known = sh.lookup(k); !known && !lenient {
				return w.unknownKey(sh, k)
			}
		}
		w.space()
		w.i++ // the ':'
		// aux values and tool arguments are the user's own data.
		inner := fold && !bytes.EqualFold(k, []byte("aux")) && !bytes.EqualFold(k, []byte("arguments"))
		start := w.i
		if err := w.value(inner, child, lenient); err != nil {
			return err
		}
		if !known && !holdsNothing(w.b[start:min(w.i, len(w.b))]) {
			w.dropped = append(w.dropped, w.field())
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
	case r == 0 && w.noNUL:
		return fieldErr(w.field(), "contains a NUL character (\\u0000)")
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
