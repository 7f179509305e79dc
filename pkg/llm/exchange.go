package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Exchange is one call whose request body was rendered elsewhere: pkg/format
// renders the conversation (tool calls and results included), the tools and
// the answer schema in the provider's wire format. The client adds only what
// travels around the body: endpoint, authentication, streaming and retries.
type Exchange struct {
	// Model names the model where the endpoint takes it in the URL
	// (gemini); empty means Options.Model. Providers that take the model in
	// the body read it there.
	Model string
	// Body is the provider's JSON request body of a non-streaming call.
	Body []byte
	// OnText, when set, streams the answer: the client asks for a stream and
	// passes on each piece of the answer's text as it arrives. A failure
	// after some text was passed on is not retried: the text cannot be
	// taken back.
	OnText func(text string)
}

// Reply is the answer to an Exchange.
type Reply struct {
	// Body is the provider's response body. A streamed answer is assembled
	// from its events into the body the same call makes without streaming,
	// so that one parser (format.ParseResponse) reads both and what is
	// stored does not depend on streaming. The API key never appears in it.
	Body []byte
	// Streamed says Body was assembled from a stream.
	Streamed bool
}

// Exchanger sends rendered request bodies. Exchange is safe for concurrent
// use. Errors: *Error when the call failed after the retries the policy
// allows (a 2xx response is returned whatever its body says: reading it is
// the caller's job), the context's error when ctx is cancelled.
type Exchanger interface {
	Exchange(ctx context.Context, x Exchange) (Reply, error)
	// Name is the provider's name: gemini, openai, ollama, anthropic.
	Name() string
}

// ExchangeProviders lists the names NewExchanger accepts.
var ExchangeProviders = []string{"gemini", "openai", "anthropic", "ollama"}

// NewExchanger returns the Exchanger of the named provider. For ollama it
// speaks the native /api/chat (format "ollama"), not the OpenAI-compatible
// /v1 that Complete uses; see NewOllamaChat.
func NewExchanger(provider string, opts Options) (Exchanger, error) {
	switch provider {
	case "gemini":
		return NewGemini(opts)
	case "openai":
		return NewOpenAI(opts)
	case "anthropic":
		return NewAnthropic(opts)
	case "ollama":
		return NewOllamaChat(opts)
	}
	return nil, fmt.Errorf("llm: provider %q cannot exchange rendered requests (want one of %s)", provider, strings.Join(ExchangeProviders, ", "))
}

// DefaultModel is the model a provider's client uses when none is given, ""
// when the user must name one (ollama, exec).
func DefaultModel(provider string) string {
	switch provider {
	case "gemini":
		return DefaultGeminiModel
	case "openai":
		return DefaultOpenAIModel
	case "anthropic":
		return DefaultAnthropicModel
	}
	return ""
}

// exchange runs one Exchange under the options' limit and retry policy.
// attempt makes one request and returns the response body; onText is nil
// unless the call streams, and then progress must be called whenever bytes
// of the stream arrive.
//
// Options.Timeout bounds a whole attempt of a call that does not stream. A
// stream may rightly take longer than that to finish, so for a streaming
// attempt Timeout bounds the wait for the response and every silence in it.
func (o Options) exchange(ctx context.Context, provider, key string, x Exchange,
	attempt func(ctx context.Context, onText func(string), progress func()) ([]byte, error)) (Reply, error) {
	var onText func(string)
	delivered := false
	red := &textRedactor{key: key, out: x.OnText}
	idle := o.timeout()
	run := o
	if x.OnText != nil {
		onText = func(s string) {
			if s != "" {
				delivered = true
				red.write(s)
			}
		}
		run.Timeout = streamTimeout
	}
	resp, err := run.run(ctx, provider, key, func(actx context.Context) (Response, error) {
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
			err = &Error{Provider: provider, Message: fmt.Sprintf("no response within %s", idle), Retryable: true, Err: context.DeadlineExceeded}
		}
		if err != nil {
			if delivered {
				return Response{}, streamBroken(provider, err, idle)
			}
			return Response{}, err
		}
		return Response{Raw: redactBytes(body, key)}, nil
	})
	if err != nil {
		return Reply{}, err
	}
	red.flush()
	return Reply{Body: resp.Raw, Streamed: x.OnText != nil}, nil
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

// streamBroken is the final *Error of a stream that failed after part of the
// answer was passed on.
func streamBroken(provider string, err error, timeout time.Duration) error {
	var e *Error
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

// textRedactor passes streamed text on with the key replaced, holding back
// the last len(key)-1 bytes until more text (or the end) shows they do not
// start the key.
type textRedactor struct {
	key     string
	out     func(string)
	pending string
}

func (r *textRedactor) write(s string) {
	if r.key == "" {
		r.out(s)
		return
	}
	r.pending = redact(r.pending+s, r.key)
	if n := len(r.pending) - (len(r.key) - 1); n > 0 {
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

// setFields returns the JSON object body with the given top-level fields set
// (a nil value deletes the field). Keys come out sorted, which no API minds.
func setFields(body []byte, fields map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = b
	}
	return encodeJSON(m)
}

// encodeJSON is json.Marshal without HTML escaping: bodies keep the text the
// model wrote byte for byte.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// postStream makes one streaming attempt: it POSTs body to url and returns
// the response of a 2xx status, its body still to read. Any other status is
// an *Error, as postJSON makes it.
func postStream(ctx context.Context, hc *http.Client, provider, url, accept string, header http.Header, body []byte, errMessage func([]byte) string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Provider: provider, Message: "bad base URL", Err: err}
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		defer res.Body.Close()
		data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
		if err != nil {
			return nil, err
		}
		return nil, statusError(provider, res.StatusCode, res.Header, errMessage(data))
	}
	return res, nil
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

// errStop ends a stream early without error (OpenAI's [DONE]).
var errStop = errors.New("stop")

// errTruncated is the cause of a stream that ended before its last event: the
// connection was cut, so the attempt may be retried.
var errTruncated = fmt.Errorf("the stream ended before the answer did: %w", io.ErrUnexpectedEOF)
