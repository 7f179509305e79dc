package transcript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// errUnexpected tells DecodeStored to leave a body to encoding/json.
var errUnexpected = errors.New("unexpected JSON")

// scanner reads compact JSON (no white space between tokens, as AppendJSON
// writes it); anything else is errUnexpected.
type scanner struct {
	b    []byte
	i    int
	buf  []byte
	pick *Pick // DecodeStoredPick's, nil for DecodeStored
}

func (p *scanner) next(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// enter reads the '{' of an object and reports whether a key follows.
func (p *scanner) enter() (bool, error) {
	if !p.next('{') {
		return false, errUnexpected
	}
	return !p.next('}'), nil
}

// key reads "key": without escapes.
func (p *scanner) key() ([]byte, error) {
	k, err := p.rawStr()
	if err != nil || !p.next(':') {
		return nil, errUnexpected
	}
	return k, nil
}

// more reads what follows a value in an object: ',' (true) or '}'.
func (p *scanner) more() (bool, error) {
	if p.next(',') {
		return true, nil
	}
	if p.next('}') {
		return false, nil
	}
	return false, errUnexpected
}

func (p *scanner) array(elem func() error) error {
	if !p.next('[') {
		return errUnexpected
	}
	if p.next(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if p.next(']') {
			return nil
		}
		if !p.next(',') {
			return errUnexpected
		}
	}
}

// strings reads a list of strings; an element equal to common is that
// string rather than a new copy. The list is gathered on the stack and
// allocated once, at its size.
func (p *scanner) strings(common string) ([]string, error) {
	var small [4]string
	out := small[:0]
	if !p.next('[') {
		return nil, errUnexpected
	}
	for more := !p.next(']'); more; {
		var s string
		var err error
		if common != "" {
			s, err = p.known(common, common)
		} else {
			s, err = p.str()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		switch {
		case p.next(']'):
			more = false
		case !p.next(','):
			return nil, errUnexpected
		}
	}
	return append(make([]string, 0, len(out)), out...), nil
}

func (p *scanner) boolean() (bool, error) {
	switch {
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return true, nil
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return false, nil
	}
	return false, errUnexpected
}

// integer reads a whole number that fits an int64, as encoding/json takes
// one; a fraction, an exponent or null is errUnexpected.
func (p *scanner) integer() (int64, error) {
	neg := p.next('-')
	start := p.i
	var n uint64
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		d := uint64(p.b[p.i] - '0')
		if n > (1<<63-d)/10 {
			return 0, errUnexpected
		}
		n = n*10 + d
		p.i++
	}
	digits := p.i - start
	if digits == 0 || (digits > 1 && p.b[start] == '0') || (!neg && n == 1<<63) {
		return 0, errUnexpected
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, errUnexpected
	}
	if neg {
		return -int64(n), nil
	}
	return int64(n), nil
}

// rawStr returns a string without escapes as a slice of the input; an
// escaped one is an error (keys never hold escapes).
func (p *scanner) rawStr() ([]byte, error) {
	if !p.next('"') {
		return nil, errUnexpected
	}
	start := p.i
	p.i += plainRun(p.b[p.i:])
	if !p.next('"') {
		return nil, errUnexpected
	}
	return p.b[start : p.i-1], nil
}

// str reads a JSON string, decoding its escapes.
func (p *scanner) str() (string, error) {
	if !p.next('"') {
		return "", errUnexpected
	}
	start := p.i
	p.i += plainRun(p.b[p.i:])
	if p.i < len(p.b) && p.b[p.i] == '"' {
		p.i++
		return string(p.b[start : p.i-1]), nil
	}
	if p.i < len(p.b) && p.b[p.i] < 0x20 {
		return "", errUnexpected
	}
	buf := append(p.buf[:0], p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = buf
			return string(buf), nil
		case c < 0x20:
			return "", errUnexpected
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return "", errUnexpected
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", errUnexpected
			}
			if utf16.IsSurrogate(r) {
				// As encoding/json: a valid pair makes one rune, anything
				// else leaves U+FFFD and the next escape to be read alone.
				dec := utf8.RuneError
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok {
						dec = utf16.DecodeRune(r, r2)
					}
					if dec == utf8.RuneError {
						p.i = save
					}
				}
				r = dec
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", errUnexpected
		}
	}
	return "", errUnexpected
}

func (p *scanner) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	r, ok := hexRune(p.b[p.i : p.i+4])
	if ok {
		p.i += 4
	}
	return r, ok
}

// hexRune reads the four hex digits of a \u escape.
func hexRune(digits []byte) (rune, bool) {
	var r rune
	for _, c := range digits {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// value passes over one JSON value and returns its bytes. It checks the
// value only as far as finding its end needs; the caller checks the rest.
func (p *scanner) value() ([]byte, error) {
	start := p.i
	depth := 0
	for p.i < len(p.b) {
		c := p.b[p.i]
		p.i++
		switch c {
		case '"':
			for p.i < len(p.b) && p.b[p.i] != '"' {
				if p.b[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			p.i++ // the closing quote
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ':', ',':
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return nil, errUnexpected // white space around the value
			}
		default:
			// a number or literal: runs to the next delimiter
		literal:
			for ; p.i < len(p.b); p.i++ {
				switch p.b[p.i] {
				case ',', ':', '}', ']', ' ', '\t', '\n', '\r':
					break literal
				}
			}
		}
		if depth <= 0 {
			break
		}
	}
	if depth != 0 || p.i > len(p.b) || p.i == start {
		return nil, errUnexpected
	}
	return p.b[start:p.i], nil
}

// plainRun returns how many bytes of b a string holds as they are: up to
// the first quote, backslash or control character. It looks at eight
// bytes at a time, as most text has none of them.
func plainRun(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (ones * '"')
		s := x ^ (ones * '\\')
		// The first byte below 0x20, or zero after an xor, sets its high
		// bit here; a borrow may set later ones too (never one of 0x80 or
		// more), so this only says where to look byte by byte.
		if ((x-ones*0x20)|(q-ones)|(s-ones))&^x&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			break
		}
	}
	return i
}
