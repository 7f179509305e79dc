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

	// Conversation, when set, is the conversation of every record read: a
	// record naming another is moved into it, and Warn told (once for each
	// other conversation), or refused when Warn is nil.
	Conversation string
	// Warn, when set, hears each change reading makes to what a line says,
	// so that nothing changes silently.
	Warn  func(line int, msg string)
	moved map[string]bool
	// sameConversation: the first record naming a conversation sets
	// Conversation (a transcript on stdin is one conversation).
	sameConversation bool
	// appending: see CheckAppend.
	appending bool
	tools     toolResults
}

// CheckAppend makes d refuse what an append must not store, though a
// transform may read it (render takes a summary without ids, export keeps
// arguments byte for byte): a summary record without summaryIds, tool call
// arguments that are no JSON object, and a tool result that answers no
// open tool call of the assistant record before it, all of which render
// or the record schema would refuse. before are the last records of the transcript appended to,
// oldest first; whole says they are all of it (or start at its latest
// summary). When they are neither and hold no assistant record, a tool
// result before the input's first assistant record cannot be judged and is
// taken as it is.
func (d *Decoder) CheckAppend(before []Record, whole bool) {
	d.appending = true
	d.tools = toolResults{known: whole}
	for i := range before {
		d.tools.observe(&before[i])
	}
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
		var note func(string)
		if d.Warn != nil {
			note = func(msg string) { d.Warn(d.line, msg) }
		}
		rec, err := parseLine(line, note)
		if err == nil {
			err = d.check(&rec)
		}
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

// check applies the checks the caller asked for to a record read.
func (d *Decoder) check(r *Record) error {
	if c := r.Conversation; c != "" {
		if d.Conversation == "" && d.sameConversation {
			d.Conversation = c
		}
		if d.Conversation != "" && c != d.Conversation {
			if d.Warn == nil {
				return fieldErr("conversation", "the record belongs to %q, not to %q", c, d.Conversation)
			}
			if !d.moved[c] {
				if d.moved == nil {
					d.moved = map[string]bool{}
				}
				d.moved[c] = true
				d.Warn(d.line, fmt.Sprintf("conversation %q moved into %q, as every later record of %q", c, d.Conversation, c))
			}
			r.Conversation = d.Conversation
		}
	}
	if !d.appending {
		return nil
	}
	if err := checkSummaryIDs(r); err != nil {
		return err
	}
	for i, c := range r.Message.ToolCalls {
		if err := checkArguments(c.Arguments); err != nil {
			return fieldErr(fmt.Sprintf("message.tool_calls[%d].arguments", i), "%v", err)
		}
	}
	if err := d.tools.check(r); err != nil {
		return err
	}
	d.tools.observe(r)
	return nil
}

// toolResults follows, record by record, which tool calls of the latest
// assistant record are still unanswered, as render pairs results with
// calls: a result answers a call of the assistant record before it
// (consecutive assistant records merge into one), once.
type toolResults struct {
	known         bool            // open holds every unanswered call
	open          map[string]bool // the calls awaiting a result
	lastAssistant bool            // the last record (system aside) was an assistant's
}

func (t *toolResults) observe(r *Record) {
	m := &r.Message
	switch m.Role {
	case RoleSystem:
		return
	case RoleSummary:
		t.known, t.open = true, nil
	case RoleAssistant:
		if !t.lastAssistant {
			t.open = nil
		}
		for _, c := range m.ToolCalls {
			if t.open == nil {
				t.open = map[string]bool{}
			}
			t.open[c.ID] = true
		}
		t.known = true
	case RoleTool:
		delete(t.open, m.ToolCallID)
	}
	t.lastAssistant = m.Role == RoleAssistant
}

// CheckToolResult checks a tool result r to be appended after before (the
// conversation's last records; whole when they are all of it), as
// CheckAppend does for a decoder's: it must answer an unanswered call of
// the assistant record before it.
func CheckToolResult(before []Record, whole bool, r *Record) error {
	t := toolResults{known: whole}
	for i := range before {
		t.observe(&before[i])
	}
	return t.check(r)
}

func (t *toolResults) check(r *Record) error {
	if r.Message.Role != RoleTool || !t.known || t.open[r.Message.ToolCallID] {
		return nil
	}
	return fieldErr("message.tool_call_id", "%q answers no unanswered tool call of the assistant record before it; render would refuse it", r.Message.ToolCallID)
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
