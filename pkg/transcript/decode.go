package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLineBytes bounds one input line. Larger lines are rejected rather than
// cut: a record that big is almost always a mistake (DynamoDB, for one, takes
// 400 KB an item).
const MaxLineBytes = 4 << 20

// InputError is bad input: it names the line (0 when the input was not a
// stream, e.g. command-line arguments) and the field at fault.
type InputError struct {
	Line  int
	Field string
	Err   error
}

func (e *InputError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

func fieldErr(field, format string, args ...any) *InputError {
	return &InputError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Decoder reads records from JSONL, one per line, accepting the lenient input
// forms of SPEC section 1 and returning canonical records. Blank lines are
// skipped. The id, conversation and creation time may be left unset; the
// appender fills them.
type Decoder struct {
	r    *bufio.Reader
	line int
	buf  []byte
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Line is the number of the line last read.
func (d *Decoder) Line() int { return d.line }

// Next returns the next record, or io.EOF after the last one.
func (d *Decoder) Next() (Record, error) {
	for {
		line, err := d.readLine()
		if err != nil {
			return Record{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, err := ParseLine(line)
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				ie.Line = d.line
			}
			return Record{}, err
		}
		return rec, nil
	}
}

// readLine returns the next line without its newline; the slice is valid
// until the next call.
func (d *Decoder) readLine() ([]byte, error) {
	d.buf = d.buf[:0]
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(d.buf)+len(chunk) > MaxLineBytes+1 {
			d.line++
			// Skip the rest so the error names the right line, then stop.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = d.r.ReadSlice('\n')
			}
			return nil, &InputError{Line: d.line, Err: fmt.Errorf("line is longer than %d bytes", MaxLineBytes)}
		}
		d.buf = append(d.buf, chunk...)
		switch {
		case err == nil:
			d.line++
			return bytes.TrimSuffix(bytes.TrimSuffix(d.buf, []byte{'\n'}), []byte{'\r'}), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(d.buf) == 0 {
				return nil, io.EOF
			}
			d.line++
			return d.buf, nil
		default:
			return nil, err
		}
	}
}
