package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// MaxLineBytes bounds one input line, not counting the ids a summary lists
// (metadata.summaryIds: tens of megabytes for a long conversation, and no
// limit can know how long one grows). What it bounds is what a record
// within MaxRecordBytes may take, however written: a JSON escape spends at
// most six bytes on a byte of text (\u003c for <, as encoding/json writes
// it), and the rest (id, conversation, timing) takes little. A longer
// line is refused unread, rather than cut; the record limit judges the
// rest, with a message that names the part too large.
const MaxLineBytes = 6*MaxRecordBytes + 64<<10

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
	open      openRecord
	// started: the first line that is not blank was read; doc, when it
	// said the input is a JSON document rather than JSONL.
	started bool
	doc     *document
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
//
// It also follows the record a merge (rule 1) would grow, from the last of
// before on, so that a merge past MaxRecordBytes is refused at its line,
// before anything is written; the appender refuses it too, without the
// line, should the stored tail not show the record merged into.
func (d *Decoder) CheckAppend(before []Record, whole bool) {
	d.appending = true
	d.tools = toolResults{known: whole}
	d.open = openRecord{}
	for i := range before {
		d.tools.observe(&before[i])
		_ = d.open.add(&before[i]) // what is stored stands, whatever its size
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
	if d.doc != nil {
		return d.nextInDocument()
	}
	for {
		line, err := d.readLine()
		if err != nil {
			return Record{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !d.started {
			d.started = true
			if isDocumentStart(line) {
				// Not JSONL: read again from this line as one document.
				first := append(slices.Clip(bytes.Clone(line)), '\n')
				d.doc = newDocument(io.MultiReader(bytes.NewReader(first), d.r), d.line-1)
				return d.nextInDocument()
			}
		}
		return d.parse(line)
	}
}

// nextInDocument is Next within a document (document.go).
func (d *Decoder) nextInDocument() (Record, error) {
	line, n, err := d.doc.next(d.Warn)
	if err != nil {
		return Record{}, err
	}
	d.line = n
	return d.parse(line)
}

// parse reads line, the input's line d.line.
func (d *Decoder) parse(line []byte) (Record, error) {
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
	if err := CheckCalls(r); err != nil {
		return err
	}
	if err := d.tools.check(r); err != nil {
		return err
	}
	if err := d.open.add(r); err != nil {
		return err
	}
	d.tools.observe(r)
	return nil
}

// openRecord follows, as the Appender does, the record a later one of its
// role merges into (rule 1), and its size. What it merges goes into a copy
// of its own, never into the caller's record.
type openRecord struct {
	rec   *Record // nil: none (no record yet, or a summary last)
	owned bool    // rec is the copy of its own
	size  int     // RecordSize(rec)
}

// add follows r appended: an *InputError, and nothing followed, when r's
// merge would pass MaxRecordBytes.
func (o *openRecord) add(r *Record) error {
	switch {
	case r.Message.Role == RoleSystem:
		return nil
	case r.Message.Role == RoleSummary:
		o.rec = nil
		return nil
	case mergesInto(o.rec, r):
		n := o.size + mergeDelta(o.rec, r)
		if n > MaxRecordBytes {
			return mergeError(o.rec, r, n)
		}
		if !o.owned {
			c := o.rec.Clone()
			o.rec, o.owned = &c, true
		}
		mergeInto(o.rec, r)
		o.size = n
		return nil
	}
	c := *r // not grown unless copied first
	o.rec, o.owned, o.size = &c, false, RecordSize(r)
	return nil
}

// readLine returns the next line without its newline; the slice is valid
// until the next call.
func (d *Decoder) readLine() ([]byte, error) {
	d.buf = d.buf[:0]
	var meter lineMeter
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(d.buf)+len(chunk) > MaxLineBytes+1 {
			// Only a line this long is measured: its summaryIds do not count.
			if meter.counted == 0 {
				meter.feed(d.buf)
			}
			if meter.feed(chunk); meter.counted > MaxLineBytes+1 {
				d.line++
				// Stop here, the rest unread: one bad line rejects the
				// input, and a line that never ends (< /dev/zero) would
				// be skipped forever.
				return nil, &InputError{Line: d.line, Err: fmt.Errorf("line is longer than %d bytes (a summary's summaryIds not counted)", MaxLineBytes)}
			}
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

// lineMeter counts, fed a JSON line piece by piece, its bytes outside the
// list of a summary's ids (metadata.summaryIds of the record object), as
// encoding/json spells the keys in canonical records. Input that is no
// JSON is counted whole, more or less: the parser refuses it anyway.
type lineMeter struct {
	counted  int
	depth    int  // objects and lists open
	inString bool // within a string, escape: after its backslash
	escape   bool
	key      [len("summaryIds") + 1]byte // the start of the last string read
	keyLen   int
	metaKey  bool // the last key of the record object was "metadata"
	idsKey   bool // the last key of metadata was "summaryIds"
	inMeta   bool // within the metadata object
	inIDs    bool // within the summaryIds list
}

func (m *lineMeter) feed(b []byte) {
	for _, c := range b {
		if !m.inIDs {
			m.counted++
		}
		if m.inString {
			switch {
			case m.escape:
				m.escape = false
			case c == '\\':
				m.escape = true
			case c == '"':
				m.inString = false
			case m.keyLen < len(m.key):
				m.key[m.keyLen] = c
				m.keyLen++
			default:
				m.keyLen = len(m.key) + 1 // too long to be a key of note
			}
			continue
		}
		switch c {
		case '"':
			m.inString, m.keyLen = true, 0
		case ':':
			key := ""
			if m.keyLen <= len(m.key) {
				key = string(m.key[:m.keyLen])
			}
			switch {
			case m.depth == 1:
				m.metaKey = key == "metadata"
			case m.depth == 2 && m.inMeta:
				m.idsKey = key == "summaryIds"
			}
		case '{', '[':
			m.depth++
			switch {
			case m.depth == 2 && c == '{':
				m.inMeta = m.metaKey
			case m.depth == 3 && c == '[' && m.inMeta && m.idsKey:
				m.inIDs = true
			}
		case '}', ']':
			if m.depth == 3 && m.inIDs {
				m.inIDs = false
			}
			if m.depth--; m.depth < 2 {
				m.inMeta = false
			}
		}
	}
}
