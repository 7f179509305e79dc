package transcript

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the canonical JSON form of r to dst: fixed key order,
// unset metadata fields left out, aux keys sorted, no HTML escaping. It is
// written by hand because it runs once per record on every hot path.
func AppendJSON(dst []byte, r *Record) []byte {
	dst = append(dst, `{"id":`...)
	dst = AppendString(dst, r.ID)
	dst = append(dst, `,"conversation":`...)
	dst = AppendString(dst, r.Conversation)
	dst = append(dst, `,"message":`...)
	dst = appendMessage(dst, &r.Message)
	dst = append(dst, `,"metadata":`...)
	dst = appendMetadata(dst, &r.Metadata)
	return append(dst, '}')
}

// MarshalJSON makes encoding/json produce the canonical form too.
func (r Record) MarshalJSON() ([]byte, error) { return AppendJSON(nil, &r), nil }

func appendMessage(dst []byte, m *Message) []byte {
	dst = append(dst, `{"role":`...)
	dst = AppendString(dst, string(m.Role))
	dst = append(dst, `,"contents":`...)
	dst = appendStrings(dst, m.Contents)
	if len(m.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i, c := range m.ToolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"id":`...)
			dst = AppendString(dst, c.ID)
			dst = append(dst, `,"name":`...)
			dst = AppendString(dst, c.Name)
			dst = append(dst, `,"arguments":`...)
			dst = AppendString(dst, c.Arguments)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if len(m.ProviderData) > 0 {
		dst = append(dst, `,"provider_data":[`...)
		for i, d := range m.ProviderData {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"provider":`...)
			dst = AppendString(dst, d.Provider)
			dst = append(dst, `,"at":`...)
			dst = strconv.AppendInt(dst, int64(d.At), 10)
			dst = append(dst, `,"item":`...)
			dst = append(dst, d.Item...)
			if d.Replaces {
				dst = append(dst, `,"replaces":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if m.ToolCallID != "" {
		dst = append(dst, `,"tool_call_id":`...)
		dst = AppendString(dst, m.ToolCallID)
	}
	if m.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = AppendString(dst, m.Name)
	}
	if m.IsError {
		dst = append(dst, `,"is_error":true`...)
	}
	return append(dst, '}')
}

func appendMetadata(dst []byte, md *Metadata) []byte {
	dst = append(dst, '{')
	if len(md.Attribute) > 0 {
		dst = append(dst, `"attribute":`...)
		dst = appendStrings(dst, md.Attribute)
		dst = append(dst, ',')
	}
	if len(md.SummaryIDs) > 0 {
		dst = append(dst, `"summaryIds":`...)
		dst = appendStrings(dst, md.SummaryIDs)
		dst = append(dst, ',')
	}
	dst = append(dst, `"timing":{"creation":`...)
	dst = strconv.AppendInt(dst, md.Timing.Creation, 10)
	for _, k := range TimingKeys[1:] {
		if v, ok := md.Timing.Get(k); ok {
			dst = append(dst, ',', '"')
			dst = append(dst, k...)
			dst = append(dst, '"', ':')
			dst = strconv.AppendInt(dst, v, 10)
		}
	}
	dst = append(dst, '}')
	if len(md.Aux) > 0 {
		dst = append(dst, `,"aux":`...)
		dst = appendAux(dst, md.Aux)
	}
	return append(dst, '}')
}

// appendAux appends the aux object, keys sorted.
func appendAux(dst []byte, aux map[string]json.RawMessage) []byte {
	dst = append(dst, '{')
	keys := make([]string, 0, len(aux))
	for k := range aux {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = append(dst, aux[k]...)
	}
	return append(dst, '}')
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Input is valid UTF-8 (the decoder
// rejects anything else); U+2028 and U+2029 are escaped so the output is also
// safe to paste into JavaScript.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Input is checked on the way in; this keeps the output valid
			// JSON whatever slipped through, as encoding/json does.
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Encoder writes canonical records as JSONL through a buffer; call Flush.
type Encoder struct {
	w   *bufio.Writer
	buf []byte
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: bufio.NewWriterSize(w, 64<<10)}
}

// Encode writes one record and a newline.
func (e *Encoder) Encode(r *Record) error {
	e.buf = AppendJSON(e.buf[:0], r)
	e.buf = append(e.buf, '\n')
	_, err := e.w.Write(e.buf)
	return err
}

// WriteLine writes an already canonical JSON line (e.g. a stored body).
func (e *Encoder) WriteLine(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.w.WriteByte('\n')
}

// Flush writes any buffered data.
func (e *Encoder) Flush() error { return e.w.Flush() }
