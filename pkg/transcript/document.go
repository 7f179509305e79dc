package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A document is input that is JSON but not JSONL: a top-level array of
// records or messages, an OpenAI request body ({"model":...,"messages":
// [...]}), or values pretty-printed across lines. The Decoder reads one
// when its first line says so (see isDocumentStart), each element or value
// then being read as one line of JSONL would be, with the same checks and
// limits (a value is bounded by MaxLineBytes, summaryIds included), and
// errors naming the line where the element starts.
type document struct {
	dec     *json.Decoder
	lines   *lineCounter
	base    int  // lines read before the document
	inArray bool // within a top-level array
	// pending are the messages of a request body still to read, at the
	// line each starts.
	pending []docValue
	noted   bool
	limit   *valueLimit
	cur     int // the line where the value read last starts
}

type docValue struct {
	raw  []byte
	line int
}

// isDocumentStart says whether line, the first that is not blank, starts a
// document rather than JSONL.
func isDocumentStart(line []byte) bool {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return false
	case t[0] == '[':
		return true
	case t[0] != '{':
		return false
	case !json.Valid(t):
		// An object left open at the end of its line is pretty-printed;
		// any other fault is JSONL's to name.
		var v any
		err := json.Unmarshal(t, &v)
		return err != nil && strings.Contains(err.Error(), "unexpected end of JSON input")
	}
	_, ok := requestMessages(t)
	return ok
}

// requestMessages returns the messages of an OpenAI request body: an
// object holding a "messages" list and neither "role" nor "message".
func requestMessages(obj []byte) (json.RawMessage, bool) {
	var w struct {
		Messages json.RawMessage `json:"messages"`
		Role     json.RawMessage `json:"role"`
		Message  json.RawMessage `json:"message"`
	}
	if json.Unmarshal(obj, &w) != nil || w.Role != nil || w.Message != nil {
		return nil, false
	}
	m := bytes.TrimSpace(w.Messages)
	return w.Messages, len(m) > 0 && m[0] == '['
}

func newDocument(r io.Reader, base int) *document {
	lc := &lineCounter{}
	lim := &valueLimit{r: r, lc: lc}
	return &document{dec: json.NewDecoder(lim), lines: lc, base: base, limit: lim}
}

// next returns the next element or value, compacted onto one line, and the
// line it starts on; io.EOF after the last.
func (d *document) next(note func(line int, msg string)) ([]byte, int, error) {
	for {
		d.limit.reset(d.dec.Buffered())
		if len(d.pending) > 0 {
			v := d.pending[0]
			d.pending = d.pending[1:]
			return v.raw, v.line, nil
		}
		if d.inArray {
			if d.dec.More() {
				raw, line, err := d.value()
				return compact(raw), line, err
			}
			if _, err := d.dec.Token(); err != nil { // the closing ]
				return nil, 0, d.syntax(err)
			}
			d.inArray = false
			continue
		}
		if !d.dec.More() {
			if _, err := d.dec.Token(); err != io.EOF {
				if err == nil {
					err = errors.New("unexpected ] or }")
				}
				return nil, 0, d.syntax(err)
			}
			return nil, 0, io.EOF
		}
		if d.peek() == '[' {
			line := d.base + d.lines.lineAt(d.dec.InputOffset()+d.leadingSpace())
			d.cur = line
			if _, err := d.dec.Token(); err != nil {
				return nil, 0, d.syntax(err)
			}
			if !d.noted && note != nil {
				note(line, "read a JSON array: each element is one record or message")
			}
			d.noted, d.inArray = true, true
			continue
		}
		raw, line, err := d.value()
		if err != nil {
			return nil, 0, err
		}
		msgs, ok := requestMessages(raw)
		if !ok {
			if !d.noted && note != nil {
				note(line, "read JSON spread over lines: each value is one record or message")
			}
			d.noted = true
			return compact(raw), line, nil
		}
		if note != nil {
			note(line, "read a request body: each of its messages is one record; "+otherKeys(raw)+" ignored")
		}
		d.noted = true
		if d.pending, err = splitArray(msgs, line+bytes.Count(raw[:bytes.Index(raw, msgs)], []byte{'\n'})); err != nil {
			return nil, 0, err
		}
	}
}

// value reads the next value whole, compacted, with the line it starts on.
func (d *document) value() ([]byte, int, error) {
	var raw json.RawMessage
	d.cur = d.base + d.lines.lineAt(d.dec.InputOffset()+d.leadingSpace())
	if err := d.dec.Decode(&raw); err != nil {
		return nil, 0, d.syntax(err)
	}
	line := d.base + d.lines.lineAt(d.dec.InputOffset()-int64(len(raw)))
	if len(raw) > MaxLineBytes {
		return nil, 0, &InputError{Line: line, Err: fmt.Errorf("value is longer than %d bytes (give long records as JSONL, one a line)", MaxLineBytes)}
	}
	return raw, line, nil
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw // the parser names the fault
	}
	return b.Bytes()
}

// syntax types a fault of the document's JSON, naming its line.
func (d *document) syntax(err error) error {
	var syn *json.SyntaxError
	var ie *InputError
	switch {
	case errors.As(err, &ie):
		return err
	case errors.As(err, &syn):
		return &InputError{Line: d.base + d.lines.lineAt(syn.Offset), Err: fmt.Errorf("invalid JSON: %s", strings.TrimPrefix(syn.Error(), "json: "))}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &InputError{Line: d.cur, Err: errors.New("invalid JSON: the input ends inside the value that starts here")}
	case errors.Is(err, errValueTooLong):
		return &InputError{Line: d.cur, Err: fmt.Errorf("value is longer than %d bytes (give long records as JSONL, one a line)", MaxLineBytes)}
	}
	return err
}

// peek is the next byte that is not white space (More has filled it).
func (d *document) peek() byte {
	b, _ := io.ReadAll(io.LimitReader(d.dec.Buffered(), 1<<16))
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 {
		return t[0]
	}
	return 0
}

func (d *document) leadingSpace() int64 {
	b, _ := io.ReadAll(io.LimitReader(d.dec.Buffered(), 1<<16))
	return int64(len(b) - len(bytes.TrimLeft(b, " \t\r\n")))
}

// splitArray returns the elements of the JSON list raw, compacted, each
// with its line (line being raw's first).
func splitArray(raw []byte, line int) ([]docValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, &InputError{Line: line, Err: err}
	}
	var out []docValue
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &InputError{Line: line, Err: err}
		}
		start := int(dec.InputOffset()) - len(v)
		out = append(out, docValue{compact(v), line + bytes.Count(raw[:start], []byte{'\n'})})
	}
	return out, nil
}

// otherKeys names a request body's keys but messages.
func otherKeys(obj []byte) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(obj, &m)
	delete(m, "messages")
	if len(m) == 0 {
		return "nothing else"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, fmt.Sprintf("%q", k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// lineCounter counts the newlines of what is read, for the line of an
// offset; offsets are asked in increasing order, so only the newlines not
// yet passed are kept.
type lineCounter struct {
	read     int64   // bytes read
	newlines []int64 // offsets of the newlines not yet passed
	lines    int     // 1 + the newlines passed
}

func (c *lineCounter) feed(p []byte) {
	for i, b := range p {
		if b == '\n' {
			c.newlines = append(c.newlines, c.read+int64(i))
		}
	}
	c.read += int64(len(p))
}

// lineAt is the line (from 1) holding offset off.
func (c *lineCounter) lineAt(off int64) int {
	if c.lines == 0 {
		c.lines = 1
	}
	i := 0
	for i < len(c.newlines) && c.newlines[i] < off {
		i++
	}
	c.lines += i
	c.newlines = c.newlines[i:]
	return c.lines
}

var errValueTooLong = errors.New("value too long")

// valueLimit bounds what one value may make the json.Decoder read, so that
// a document's value is refused, as a JSONL line is, before it takes more
// memory than MaxLineBytes and a read-ahead.
type valueLimit struct {
	r    io.Reader
	lc   *lineCounter
	left int64
}

func (l *valueLimit) reset(buffered io.Reader) {
	n, _ := io.Copy(io.Discard, buffered)
	l.left = MaxLineBytes + 64<<10 - n
}

func (l *valueLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errValueTooLong
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.lc.feed(p[:n])
	l.left -= int64(n)
	return n, err
}
