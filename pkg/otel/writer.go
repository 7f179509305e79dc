package otel

import (
	"bufio"
	"context"
	"io"
)

// Batch bounds: a batch closes at the end of a conversation once it holds
// MinSpans spans or MinBytes of span data, and within one at MaxSpans or
// MaxBytes, so that memory stays bounded and a receiver that confirms
// batches confirms whole conversations where it can.
var (
	MinSpans = 512
	MinBytes = 1 << 20
	MaxSpans = 4096
	MaxBytes = 4 << 20
)

// Sink takes batches of spans. Send must not keep spans.
type Sink interface {
	Send(ctx context.Context, spans []Span) error
	// Confirms says whether a nil error from Send means the batch was
	// delivered (a receiver accepted it), so a cursor may move on it.
	Confirms() bool
}

// Writer is an export format (pkg/export's Writer and Staged): it turns
// records into spans and hands them to a Sink in batches.
type Writer struct {
	ctx     context.Context
	conv    Converter
	sink    Sink
	batch   []Span
	size    int
	pending []func()     // conversations waiting for the next batch to be delivered
	commit  func() error // commits the conversations done (export.Staged)
	err     error
}

// NewWriter returns a Writer sending to sink; content puts message texts on
// the spans. ctx bounds every Send.
func NewWriter(ctx context.Context, sink Sink, content bool) *Writer {
	return &Writer{ctx: ctx, sink: sink, conv: Converter{Content: content}}
}

// Write takes one record as canonical JSON.
func (w *Writer) Write(body []byte) error {
	if w.err != nil {
		return w.err
	}
	err := w.conv.Record(body, func(s *Span) error {
		w.batch = append(w.batch, *s)
		w.size += s.size()
		if len(w.batch) >= MaxSpans || w.size >= MaxBytes {
			return w.flush()
		}
		return nil
	})
	return err
}

// Confirms says whether the sink confirms delivery batch by batch.
func (w *Writer) Confirms() bool { return w.sink.Confirms() }

// SetCommit sets what runs after the dones of a delivered batch.
func (w *Writer) SetCommit(commit func() error) { w.commit = commit }

// EndConversation marks the end of a conversation's records; done (nil:
// none) runs once every span written so far was delivered, then the
// commit SetCommit gave.
func (w *Writer) EndConversation(done func()) error {
	if w.err != nil {
		return w.err
	}
	if done != nil {
		w.pending = append(w.pending, done)
	}
	if len(w.batch) == 0 || len(w.batch) >= MinSpans || w.size >= MinBytes {
		return w.flush() // with nothing to send, it only commits
	}
	return nil
}

// Close sends what is left and runs the commits waiting on it.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if err := w.flush(); err != nil {
		return err
	}
	if f, ok := w.sink.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

func (w *Writer) flush() error {
	if len(w.batch) > 0 {
		if err := w.sink.Send(w.ctx, w.batch); err != nil {
			w.err = err
			return err
		}
	}
	clear(w.batch) // drop the strings the spans held
	w.batch, w.size = w.batch[:0], 0
	if len(w.pending) == 0 {
		return nil
	}
	for _, done := range w.pending {
		done()
	}
	clear(w.pending)
	w.pending = w.pending[:0]
	if w.commit != nil {
		if err := w.commit(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// JSONSink writes each batch as one line of OTLP/JSON to a stream; it
// confirms nothing (whether the reader got it is the caller's to learn).
type JSONSink struct {
	w   *bufio.Writer
	res Resource
	buf []byte
}

// NewJSONSink writes to w; Flush (or the Writer's Close through Send)
// pushes the lines out.
func NewJSONSink(w io.Writer, res Resource) *JSONSink {
	return &JSONSink{w: bufio.NewWriterSize(w, 64<<10), res: res}
}

func (j *JSONSink) Send(_ context.Context, spans []Span) error {
	j.buf = append(AppendJSON(j.buf[:0], j.res, spans), '\n')
	_, err := j.w.Write(j.buf)
	return err
}

func (j *JSONSink) Confirms() bool { return false }

// Flush writes out what is buffered.
func (j *JSONSink) Flush() error { return j.w.Flush() }
