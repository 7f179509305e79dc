package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxItemBytes is DynamoDB's limit on one item: 400 KB, attribute names and
// values together.
const MaxItemBytes = 400 << 10

// BatchSize is the most items one BatchWriteItem request takes.
const BatchSize = 25

// maxDigits is the precision of a DynamoDB number.
const maxDigits = 38

// RecordError is a record that cannot become a DynamoDB item. It names the
// record, since the item is refused whole rather than cut.
type RecordError struct {
	Conversation, ID string
	Err              error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("record %s of conversation %q: %v", e.ID, e.Conversation, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// ErrItemTooLarge is wrapped by the error of a record over MaxItemBytes.
var ErrItemTooLarge = errors.New("item over DynamoDB's 400 KB limit")

// AppendItem appends to dst the DynamoDB JSON attribute map of a record given
// as canonical JSON: {"id":{"S":...},"conversation":{"S":...},"message":{"M":
// {...}},"metadata":{"M":{...}}}. The record's fields are the attributes, so
// conversation and id serve as partition and sort key. JSON strings map to
// S, numbers to N (their decimal text as written, so exact), booleans to BOOL,
// null to NULL, lists to L, objects to M.
//
// It fails with a *RecordError when the item would exceed MaxItemBytes as
// DynamoDB counts them, or holds a number DynamoDB cannot keep exactly (more
// than 38 significant digits).
//
// It walks the JSON text rather than decoding it: nothing is allocated and
// every string and number is copied byte for byte.
func AppendItem(dst, body []byte) ([]byte, error) {
	c := itemConv{in: body, dst: dst}
	c.space()
	if c.peek() != '{' {
		return dst, fmt.Errorf("record is not a JSON object: %.40q", body)
	}
	size, err := c.object(true)
	if err == nil && size > MaxItemBytes {
		err = fmt.Errorf("%w: %d bytes as an item, limit %d", ErrItemTooLarge, size, MaxItemBytes)
	}
	if err != nil {
		re := &RecordError{Err: err}
		json.Unmarshal(c.id, &re.ID)
		json.Unmarshal(c.conv, &re.Conversation)
		return dst, re
	}
	return c.dst, nil
}

// itemConv converts JSON text to DynamoDB JSON and counts the item's size by
// DynamoDB's rules: strings by their UTF-8 length, numbers by about one byte
// per two significant digits plus one, BOOL and NULL one byte, L and M three
// bytes plus one per element, attribute names by their UTF-8 length.
type itemConv struct {
	in       []byte
	i        int
	dst      []byte
	id, conv []byte // the record's id and conversation, as JSON strings, for errors
}

var errSyntax = errors.New("malformed JSON")

func (c *itemConv) peek() byte {
	if c.i < len(c.in) {
		return c.in[c.i]
	}
	return 0
}

func (c *itemConv) space() {
	for c.i < len(c.in) {
		switch c.in[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// object converts the object at c.i to an attribute map and returns the sum
// of its attributes' sizes (with the per-element byte unless top, the item).
// Its element loop is the same as a list's in value, written twice on
// purpose: one shared through a callback made the conversion 17% slower
// (go test -bench DynamoDB ./pkg/export).
func (c *itemConv) object(top bool) (int, error) {
	c.i++
	c.dst = append(c.dst, '{')
	size := 0
	for n := 0; ; n++ {
		c.space()
		if c.peek() == '}' {
			c.i++
			break
		}
		if n > 0 {
			if c.peek() != ',' {
				return 0, errSyntax
			}
			c.i++
			c.space()
			c.dst = append(c.dst, ',')
		}
		if c.peek() != '"' {
			return 0, errSyntax
		}
		start := c.i
		kn, err := c.str()
		if err != nil {
			return 0, err
		}
		key := c.in[start:c.i]
		c.dst = append(c.dst, key...)
		c.space()
		if c.peek() != ':' {
			return 0, errSyntax
		}
		c.i++
		c.dst = append(c.dst, ':')
		c.space()
		vstart := c.i
		vn, err := c.value()
		if err != nil {
			return 0, err
		}
		size += kn + vn
		if !top {
			size++
			continue
		}
		switch string(key) {
		case `"id"`:
			c.id = c.in[vstart:c.i]
		case `"conversation"`:
			c.conv = c.in[vstart:c.i]
		}
	}
	c.dst = append(c.dst, '}')
	return size, nil
}

// value converts the value at c.i and returns its size.
func (c *itemConv) value() (int, error) {
	switch ch := c.peek(); ch {
	case '"':
		start := c.i
		n, err := c.str()
		c.dst = append(c.dst, `{"S":`...)
		c.dst = append(c.dst, c.in[start:c.i]...)
		c.dst = append(c.dst, '}')
		return n, err
	case '{':
		c.dst = append(c.dst, `{"M":`...)
		n, err := c.object(false)
		c.dst = append(c.dst, '}')
		return 3 + n, err
	case '[':
		c.i++
		c.dst = append(c.dst, `{"L":[`...)
		size := 3
		for n := 0; ; n++ {
			c.space()
			if c.peek() == ']' {
				c.i++
				break
			}
			if n > 0 {
				if c.peek() != ',' {
					return 0, errSyntax
				}
				c.i++
				c.space()
				c.dst = append(c.dst, ',')
			}
			vn, err := c.value()
			if err != nil {
				return 0, err
			}
			size += 1 + vn
		}
		c.dst = append(c.dst, "]}"...)
		return size, nil
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(c.in)-c.i >= len(lit) && string(c.in[c.i:c.i+len(lit)]) == lit {
				c.i += len(lit)
				if lit == "null" {
					c.dst = append(c.dst, `{"NULL":true}`...)
				} else {
					c.dst = append(c.dst, `{"BOOL":`...)
					c.dst = append(c.dst, lit...)
					c.dst = append(c.dst, '}')
				}
				return 1, nil
			}
		}
		return 0, errSyntax
	}
	return c.number()
}

// number copies the number at c.i as an N and checks DynamoDB can keep it.
func (c *itemConv) number() (int, error) {
	start := c.i
	digits, zeros := 0, 0 // significant digits so far, and trailing zeros among them
	mantissa := true
	for ; c.i < len(c.in); c.i++ {
		ch := c.in[c.i]
		switch {
		case ch >= '0' && ch <= '9':
			if !mantissa || (digits == 0 && ch == '0') {
				continue // exponent digits and leading zeros are not significant
			}
			digits++
			if ch == '0' {
				zeros++
			} else {
				zeros = 0
			}
			continue
		case ch == 'e' || ch == 'E':
			mantissa = false
			continue
		case ch == '-' || ch == '+' || ch == '.':
			continue
		}
		break
	}
	if c.i == start {
		return 0, errSyntax
	}
	text := c.in[start:c.i]
	if digits-zeros > maxDigits {
		return 0, fmt.Errorf("number %s has more than the %d significant digits DynamoDB keeps", text, maxDigits)
	}
	c.dst = append(c.dst, `{"N":"`...)
	c.dst = append(c.dst, text...)
	c.dst = append(c.dst, `"}`...)
	return (digits-zeros+1)/2 + 1, nil
}

// str skips the string at c.i and returns its length once unescaped. A byte
// of UTF-8 counts as a byte, so runs without escapes are measured whole.
func (c *itemConv) str() (int, error) {
	c.i++
	n := 0
	for {
		rest := c.in[c.i:]
		q := bytes.IndexByte(rest, '"')
		if q < 0 {
			return 0, errSyntax
		}
		b := bytes.IndexByte(rest[:q], '\\')
		if b < 0 {
			c.i += q + 1
			return n + q, nil
		}
		n += b
		c.i += b
		if c.i+1 >= len(c.in) {
			return 0, errSyntax
		}
		if c.in[c.i+1] != 'u' {
			c.i += 2 // \n, \", \\ and the like: one byte
			n++
			continue
		}
		r := c.hex4(c.i + 2)
		if r < 0 {
			return 0, errSyntax
		}
		c.i += 6
		if utf16.IsSurrogate(r) {
			if c.peek() == '\\' && c.i+1 < len(c.in) && c.in[c.i+1] == 'u' && utf16.DecodeRune(r, c.hex4(c.i+2)) != utf8.RuneError {
				c.i += 6
				n += 4
				continue
			}
			r = utf8.RuneError // as encoding/json decodes a lone surrogate
		}
		n += utf8.RuneLen(r)
	}
}

// hex4 reads the four hex digits of a \u escape at i; -1 when there are none.
func (c *itemConv) hex4(i int) rune {
	if i+4 > len(c.in) {
		return -1
	}
	var r rune
	for _, h := range c.in[i : i+4] {
		switch {
		case h >= '0' && h <= '9':
			h -= '0'
		case h >= 'a' && h <= 'f':
			h -= 'a' - 10
		case h >= 'A' && h <= 'F':
			h -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(h)
	}
	return r
}

// dynamoWriter writes one {"Item":{...}} a line, the form DynamoDB's import
// from S3 reads.
type dynamoWriter struct {
	w   *bufio.Writer
	buf []byte
}

func (d *dynamoWriter) Write(body []byte) error {
	buf, err := AppendItem(append(d.buf[:0], `{"Item":`...), body)
	if err != nil {
		return err
	}
	d.buf = append(buf, "}\n"...)
	return writeWhole(d.w, d.buf)
}

func (d *dynamoWriter) Close() error { return d.w.Flush() }

// batchWriter writes BatchWriteItem request bodies, one a line, as
// `aws dynamodb batch-write-item --request-items` reads them: {"TABLE":
// [{"PutRequest":{"Item":{...}}}, ...]} with at most BatchSize items.
type batchWriter struct {
	w     *bufio.Writer
	table []byte // JSON string
	buf   []byte
	n     int
}

func (b *batchWriter) Write(body []byte) error {
	buf := append(b.buf[:0], ',')
	if b.n == 0 {
		buf = append(append(append(buf[:0], '{'), b.table...), ":["...)
	}
	buf, err := AppendItem(append(buf, `{"PutRequest":{"Item":`...), body)
	if err != nil {
		return err
	}
	b.buf = append(buf, "}}"...)
	b.w.Write(b.buf)
	if b.n++; b.n == BatchSize {
		return b.end()
	}
	return nil
}

func (b *batchWriter) end() error {
	b.n = 0
	_, err := b.w.WriteString("]}\n")
	return err
}

func (b *batchWriter) Close() error {
	if b.n > 0 {
		b.end()
	}
	return b.w.Flush()
}
