package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// AddJSON feeds the next record as its JSON text, e.g. a stored body. It is
// Add without encoding/json's reflection on the hot path: rendering a long
// stored conversation is mostly decoding, and the canonical form
// (transcript.AppendJSON) is simple enough to read by hand. Anything it does
// not expect goes through encoding/json instead.
func (r *Renderer) AddJSON(body []byte) error {
	r.rec = transcript.Record{}
	if decodeRecord(body, &r.rec) != nil {
		r.rec = transcript.Record{}
		if err := json.Unmarshal(body, &r.rec); err != nil {
			return fmt.Errorf("record is not valid JSON: %w", err)
		}
	}
	return r.Add(&r.rec)
}

var errUnexpected = errors.New("unexpected JSON")

// decodeRecord reads what rendering needs of a record: id, message, and the
// aux of a record that holds thought signatures.
func decodeRecord(b []byte, rec *transcript.Record) error {
	if !utf8.Valid(b) { // encoding/json turns bad bytes into U+FFFD
		return errUnexpected
	}
	p := &parser{b: b}
	return p.object(func(key []byte) error {
		switch string(key) {
		case "id":
			s, err := p.str()
			rec.ID = s
			return err
		case "message":
			return p.message(&rec.Message)
		case "metadata":
			start := p.i
			if err := p.skip(); err != nil {
				return err
			}
			if raw := b[start:p.i]; bytes.Contains(raw, []byte(`"`+thoughtSignaturesKey+`"`)) {
				return json.Unmarshal(raw, &rec.Metadata)
			}
			return nil
		case "conversation":
			return p.skip()
		}
		// encoding/json matches keys case-insensitively: leave the rest to it.
		return errUnexpected
	})
}

func (p *parser) message(m *transcript.Message) error {
	return p.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "role":
			var s string
			s, err = p.str()
			m.Role = transcript.Role(s)
		case "contents":
			m.Contents = []string{}
			err = p.array(func() error {
				s, err := p.str()
				m.Contents = append(m.Contents, s)
				return err
			})
		case "tool_calls":
			m.ToolCalls = nil
			err = p.array(func() error {
				var c transcript.ToolCall
				err := p.object(func(key []byte) error {
					var err error
					switch string(key) {
					case "id":
						c.ID, err = p.str()
					case "name":
						c.Name, err = p.str()
					case "arguments":
						c.Arguments, err = p.str()
					default:
						err = errUnexpected
					}
					return err
				})
				m.ToolCalls = append(m.ToolCalls, c)
				return err
			})
		case "tool_call_id":
			m.ToolCallID, err = p.str()
		case "name":
			m.Name, err = p.str()
		case "is_error":
			m.IsError, err = p.boolean()
		default:
			err = errUnexpected
		}
		return err
	})
}

// parser reads compact JSON (no white space between tokens, as the
// canonical form is written).
type parser struct {
	b   []byte
	i   int
	buf []byte
}

func (p *parser) next(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object reads {"key":value,...}, calling field with each key; field reads
// the value.
func (p *parser) object(field func(key []byte) error) error {
	if !p.next('{') {
		return errUnexpected
	}
	if p.next('}') {
		return nil
	}
	for {
		key, err := p.rawStr()
		if err != nil || !p.next(':') {
			return errUnexpected
		}
		if err := field(key); err != nil {
			return err
		}
		if p.next('}') {
			return nil
		}
		if !p.next(',') {
			return errUnexpected
		}
	}
}

func (p *parser) array(elem func() error) error {
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

func (p *parser) boolean() (bool, error) {
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

// rawStr returns a string without escapes as a slice of the input; an
// escaped one is an error (keys never hold escapes).
func (p *parser) rawStr() ([]byte, error) {
	if !p.next('"') {
		return nil, errUnexpected
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], nil
		case c == '\\' || c < 0x20:
			return nil, errUnexpected
		}
		p.i++
	}
	return nil, errUnexpected
}

// str reads a JSON string, decoding its escapes.
func (p *parser) str() (string, error) {
	if !p.next('"') {
		return "", errUnexpected
	}
	start := p.i
	for p.i < len(p.b) && p.b[p.i] != '"' && p.b[p.i] != '\\' {
		if p.b[p.i] < 0x20 {
			return "", errUnexpected
		}
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '"' {
		p.i++
		return string(p.b[start : p.i-1]), nil
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

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
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
	p.i += 4
	return r, true
}

// skip passes over one value of any kind.
func (p *parser) skip() error {
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
		default:
			// a number or literal: runs to the next delimiter
		number:
			for ; p.i < len(p.b); p.i++ {
				switch p.b[p.i] {
				case ',', ':', '}', ']':
					break number
				}
			}
		}
		if depth == 0 {
			break
		}
	}
	if depth != 0 || p.i > len(p.b) {
		return errUnexpected
	}
	return nil
}
