package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/format"
)

// send runs one Call under the options' limit and retry policy. attempt
// makes one request and returns the response body; onText is nil unless
// the call streams, and then progress must be called whenever bytes of the
// stream arrive.
//
// Options.Timeout bounds a whole attempt of a call that does not stream. A
// stream may rightly take longer than that to finish, so for a streaming
// attempt Timeout bounds the wait for the response and every silence in it.
func (o Options) send(ctx context.Context, provider string, c Call,
	attempt func(ctx context.Context, onText func(string), progress func()) ([]byte, error)) (Reply, error) {
	var onText func(string)
	delivered := false
	red := o.redactor()
	text := &textRedactor{red: red, out: c.OnText}
	idle := o.timeout()
	run := o
	if c.OnText != nil {
		onText = func(s string) {
			if s != "" {
				delivered = true
				text.write(s)
			}
		}
		run.Timeout = streamTimeout
	}
	body, err := run.run(ctx, provider, red, func(actx context.Context) ([]byte, error) {
		progress := func() {}
		if onText != nil {
			wctx, cancel := context.WithCancelCause(actx)
			defer cancel(nil)
			timer := time.AfterFunc(idle, func() { cancel(errIdle) })
			defer timer.Stop()
			progress = func() { timer.Reset(idle) }
			actx = wctx
		}
		body, err := attempt(actx, onText, progress)
		if err != nil && errors.Is(context.Cause(actx), errIdle) && ctx.Err() == nil {
			err = &format.ProviderError{Provider: provider, Message: fmt.Sprintf("no response within %s", idle), Retryable: true, Err: context.DeadlineExceeded}
		}
		if err != nil {
			if delivered {
				return nil, streamBroken(provider, err, idle)
			}
			return nil, err
		}
		return body, nil
	})
	if err != nil {
		return Reply{}, err
	}
	text.flush()
	redacted := red.Bytes(body)
	if !bytes.Equal(redacted, body) {
		if err := keyInProviderData(provider, body, red); err != nil {
			return Reply{}, err
		}
	}
	return Reply{Body: redacted, Streamed: c.OnText != nil}, nil
}

// keyInProviderData refuses an answer whose provider data echoes a key:
// the body is handed on with every key hidden, but provider data must go
// back to the provider byte for byte, so hiding one there would break the
// next request. It is refused whole (a *transcript.InputError), once, not
// retried: the provider would answer alike.
func keyInProviderData(provider string, body []byte, red Redactor) error {
	ans, err := format.ParseResponse(provider, body, nil)
	if err != nil {
		return nil // not an answer: nothing of it is kept as provider data
	}
	if err := red.Record(&ans.Record); err != nil {
		return fmt.Errorf("%s answer: %w", provider, err)
	}
	return nil
}

// streamTimeout bounds a streaming attempt as a whole: only a stream that
// keeps trickling for this long is cut.
const streamTimeout = 24 * time.Hour

// errIdle is the cause of a streaming attempt cancelled for silence.
var errIdle = errors.New("stream idle")

// progressReader calls progress on every read that returns bytes.
type progressReader struct {
	r        io.Reader
	progress func()
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.progress()
	}
	return n, err
}

// streamBroken is the final *format.ProviderError of a stream that failed
// after part of the answer was passed on.
func streamBroken(provider string, err error, timeout time.Duration) error {
	var e *format.ProviderError
	if !errors.As(err, &e) {
		e = transportError(provider, err, timeout)
		if e.Message == "" && e.Err != nil {
			e.Message = e.Err.Error()
		}
	}
	e.Retryable = false
	e.Message = strings.TrimSuffix(e.Message, ".") + " (the stream broke after part of the answer arrived)"
	return e
}

// textRedactor passes streamed text on with the keys replaced, holding
// back the last len(key)-1 bytes until more text (or the end) shows they do
// not start a key, and from a backslash on, as many bytes as a key takes
// escaped: streamed text is decoded already, so an escaped key is rare and
// ordinary text is not held up for it.
type textRedactor struct {
	red     Redactor
	out     func(string)
	pending string
}

func (r *textRedactor) write(s string) {
	if r.red.maxLen() == 0 {
		r.out(s)
		return
	}
	r.pending = r.red.String(r.pending + s)
	n := len(r.pending) - (len(r.red.keys[0]) - 1)
	tail := max(0, len(r.pending)-r.red.maxLen())
	if i := strings.IndexByte(r.pending[tail:], '\\'); i >= 0 {
		n = min(n, tail+i)
	}
	if n > 0 {
		r.out(r.pending[:n])
		r.pending = r.pending[n:]
	}
}

func (r *textRedactor) flush() {
	if r.pending != "" {
		r.out(r.pending)
		r.pending = ""
	}
}

// sseEvent is one server-sent event: its name ("" when the stream names
// none) and its data lines joined.
type sseEvent struct {
	name string
	data []byte
}

// readSSE calls fn for each event of a text/event-stream
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
// "event:" and "data:" fields, a blank line ending each event, comments
// (":...") and other fields skipped. It stops at fn's first error or errStop.
func readSSE(r io.Reader, fn func(sseEvent) error) error {
	br := bufio.NewReaderSize(io.LimitReader(r, maxBody), 64<<10)
	var ev sseEvent
	var data bytes.Buffer
	hasData := false
	dispatch := func() error {
		if !hasData {
			ev = sseEvent{}
			return nil
		}
		ev.data = data.Bytes()
		err := fn(ev)
		ev, hasData = sseEvent{}, false
		data.Reset()
		return err
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 || err == nil {
			line = bytes.TrimRight(line, "\r\n")
			if len(line) == 0 {
				if derr := dispatch(); derr != nil {
					return derr
				}
			} else if line[0] != ':' {
				field, value, _ := bytes.Cut(line, []byte(":"))
				value = bytes.TrimPrefix(value, []byte(" "))
				switch string(field) {
				case "event":
					ev.name = string(value)
				case "data":
					if hasData {
						data.WriteByte('\n')
					}
					data.Write(value)
					hasData = true
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return dispatch()
		}
		if err != nil {
			return err
		}
	}
}

// errStop ends a stream early without error: its answer's last event came.
var errStop = errors.New("stop")

// errTruncated is the cause of a stream that ended before its last event: the
// connection was cut, so the attempt may be retried.
var errTruncated = format.ErrStreamCut

// sseStream reads a text/event-stream answer into p's assembler
// (format.Provider.NewStream), which decodes each event's data.
func sseStream(p format.Provider) func(io.Reader, func(string)) ([]byte, error) {
	return func(r io.Reader, onText func(string)) ([]byte, error) {
		asm := p.NewStream()
		err := readSSE(r, func(ev sseEvent) error {
			end, err := asm.Add(ev.name, ev.data, onText)
			if err == nil && end {
				return errStop
			}
			return err
		})
		if err != nil && err != errStop {
			return nil, err
		}
		return asm.Body()
	}
}
