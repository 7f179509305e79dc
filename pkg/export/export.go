// Package export turns canonical records into the logs a NoSQL store keeps:
// JSONL, one JSON array, Markdown for people, DynamoDB JSON items and
// BatchWriteItem request bodies. Every format is a streaming transform: a
// Writer takes one record at a time, as its canonical JSON, and keeps none.
package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Format names an output format.
type Format string

const (
	JSONL         Format = "jsonl"          // canonical records, one a line
	JSON          Format = "json"           // one array of records
	Markdown      Format = "markdown"       // a transcript for people
	DynamoDB      Format = "dynamodb"       // {"Item":{...}} a line, as DynamoDB's import from S3 reads it
	DynamoDBBatch Format = "dynamodb-batch" // BatchWriteItem request bodies of at most BatchSize items
	OTel          Format = "otel"           // OpenTelemetry spans as OTLP/JSON, written by pkg/otel
)

// Formats lists every format, the default first.
var Formats = []Format{JSONL, JSON, Markdown, DynamoDB, DynamoDBBatch, OTel}

// ParseFormat returns the format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Writer writes records in one format.
type Writer interface {
	// Write takes one record as canonical JSON (transcript.AppendJSON); it
	// keeps no reference to body.
	Write(body []byte) error
	// Close writes what the format ends with and flushes. The output is
	// complete only when Close returns nil.
	Close() error
}

// Staged is a Writer that delivers its output in parts, each confirmed on
// its own (pkg/otel's batches a receiver accepts one by one). Run tells it
// where each conversation's records end and, when Confirms, commits
// cursors as parts are delivered rather than all at the end: an export
// stopped midway has moved the cursors of what was delivered.
type Staged interface {
	Writer
	Confirms() bool
	// EndConversation says a conversation's records end here; done (nil:
	// none) is called once every record written before was delivered.
	EndConversation(done func()) error
	// SetCommit gives the function the writer calls after the dones of a
	// delivered part: it commits, in one transaction, the cursors of the
	// conversations done since its last call.
	SetCommit(commit func() error)
}

// Options tune a format.
type Options struct {
	// Table names the DynamoDB table of DynamoDBBatch request bodies.
	Table string
}

// NewWriter returns a Writer of format f writing to w.
func NewWriter(w io.Writer, f Format, opt Options) (Writer, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	switch f {
	case JSONL:
		return &jsonlWriter{w: bw}, nil
	case JSON:
		return &jsonWriter{w: bw}, nil
	case Markdown:
		return &markdownWriter{w: bw}, nil
	case DynamoDB:
		return &dynamoWriter{w: bw}, nil
	case DynamoDBBatch:
		if opt.Table == "" {
			return nil, fmt.Errorf("format %s needs a table name", f)
		}
		return &batchWriter{w: bw, table: transcript.AppendString(nil, opt.Table)}, nil
	case OTel:
		return nil, fmt.Errorf("format %s is pkg/otel's Writer", f)
	}
	return nil, fmt.Errorf("unknown format %q", f)
}

type jsonlWriter struct {
	w    *bufio.Writer
	line []byte // a record too long for what the buffer has left, and its newline
}

func (j *jsonlWriter) Write(body []byte) error {
	if len(body) < j.w.Available() {
		j.w.Write(body)
		return j.w.WriteByte('\n') // bufio keeps the first error, so one check does
	}
	j.line = append(append(j.line[:0], body...), '\n')
	return writeWhole(j.w, j.line)
}

// writeWhole writes line to w so that w hands its writer whole lines only
// (spec section 5): a line that does not fit in what w has left goes
// after a flush, and one longer than w's buffer in a write of its own. An
// export stopped between records so never ends inside one.
func writeWhole(w *bufio.Writer, line []byte) error {
	if len(line) > w.Available() && w.Buffered() > 0 {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	_, err := w.Write(line) // an empty buffer writes a longer line at once
	return err
}

func (j *jsonlWriter) Close() error { return j.w.Flush() }

// jsonWriter writes one array, a record a line, so a person can still read
// it and a tool can still stream it.
type jsonWriter struct {
	w *bufio.Writer
	n int
}

func (j *jsonWriter) Write(body []byte) error {
	sep := ",\n"
	if j.n == 0 {
		sep = "[\n"
	}
	j.n++
	j.w.WriteString(sep)
	_, err := j.w.Write(body)
	return err
}

func (j *jsonWriter) Close() error {
	end := "\n]\n"
	if j.n == 0 {
		end = "[]\n"
	}
	j.w.WriteString(end)
	return j.w.Flush()
}
