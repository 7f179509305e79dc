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

// Sink takes spans in batches: Add encodes one into the batch being built,
// Send delivers that batch and starts the next. Holding encoded bytes, not
// spans, lets the Converter reuse one Span for every record.
type Sink interface {
	Add(s *Span)
	Send(ctx context.Context) error
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
	spans   int // in the batch being built
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
		w.sink.Add(s)
		w.spans++
		w.size += s.size()
		if w.spans >= MaxSpans || w.size >= MaxBytes {
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
	if w.spans == 0 || w.spans >= MinSpans || w.size >= MinBytes {
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
	if w.spans > 0 {
		if err := w.sink.Send(w.ctx); err != nil {
			w.err = err
			return err
		}
	}
	w.spans, w.size = 0, 0
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
	w     *bufio.Writer
	res   Resource
	spans []byte // the batch's spans, comma-separated
}

// NewJSONSink writes to w; the Writer's Close flushes it.
func NewJSONSink(w io.Writer, res Resource) *JSONSink {
	return &JSONSink{w: bufio.NewWriterSize(w, 64<<10), res: res}
}

func (j *JSONSink) Add(s *Span) {
	if len(j.spans) > 0 {
		j.spans = append(j.spans, ',')
	}
	j.spans = appendSpanJSON(j.spans, s)
}

func (j *JSONSink) Send(context.Context) error {
	var head [512]byte
	j.w.Write(appendJSONHead(head[:0], j.res))
	j.w.Write(j.spans)
	_, err := j.w.WriteString(jsonTail + "\n")
	j.spans = j.spans[:0]
	return err
}

func (j *JSONSink) Confirms() bool { return false }

// Flush writes out what is buffered.
func (j *JSONSink) Flush() error { return j.w.Flush() }
