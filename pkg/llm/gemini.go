package llm

// The Gemini transport, through google.golang.org/genai, the maintained
// successor of the deprecated github.com/google/generative-ai-go:
//   SDK:      https://pkg.go.dev/google.golang.org/genai
//   errors:   https://ai.google.dev/gemini-api/docs/troubleshooting (google.rpc.Status
//             bodies; 429s carry a google.rpc.RetryInfo detail)
//
// The SDK makes the request: the URL (models/M:generateContent, or
// models/M:streamGenerateContent?alt=sse for a stream), the key in
// x-goog-api-key, its client headers, and the reading of the stream. It has
// no call that takes a ready body: GenerateContent encodes its own typed
// parameters (through a map, twice). So it is called with none, and the
// recorder below, a RoundTripper wrapped around the caller's, puts
// pkg/format's body in place of the few bytes the SDK encoded: the body
// goes out byte for byte as format rendered it, encoded once. The SDK still
// decodes each response into its own types; only a stream's text is read
// from them (for Call.OnText, as it arrives), and the reply is the body as
// it came, a stream's assembled by pkg/format (gemini_stream.go) from the
// events as sent: the SDK's decoding of a chunk is its own, convo's is
// format's, once.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/convo-cli/convo/pkg/format"
)

type gemini struct {
	opts   Options
	client *genai.Client
	// assemble reads the recorded events of a stream (sseStream).
	assemble func(io.Reader, func(string)) ([]byte, error)
}

// newGemini returns the Gemini transport; opts.APIKey is required. The SDK
// never reads the environment here: key, backend and base URL are all set.
func newGemini(p format.Provider, opts Options) (Transport, error) {
	if opts.APIKey == "" {
		return nil, missingKey(p)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	// A copy, so the caller's client keeps its transport.
	hc := *opts.httpClient()
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	// The SDK puts its own query (alt=sse) in place of the base URL's:
	// the recorder adds the base's back to every request.
	root, query := splitQuery(base)
	hc.Transport = recorder{base: rt, query: strings.TrimPrefix(query, "?")}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      opts.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: root},
	})
	if err != nil {
		// The SDK's message may print its whole config, key included.
		msg, _, _ := strings.Cut(err.Error(), "ClientConfig:")
		return nil, fmt.Errorf("gemini: %s", opts.redactor().String(strings.TrimSpace(msg)))
	}
	return &gemini{opts: opts, client: client, assemble: sseStream(p)}, nil
}

func (c *gemini) Name() string { return "gemini" }

// Send implements Transport.
func (c *gemini) Send(ctx context.Context, call Call) (Reply, error) {
	if call.Model == "" {
		return Reply{}, errors.New("gemini: no model given")
	}
	noContinuation := false
	// One request per attempt, so that the reply is the body of the answer
	// and the retry policy alone decides what is sent again.
	config := &genai.GenerateContentConfig{AutomaticContinuation: &noContinuation}
	return c.opts.send(ctx, "gemini", call, func(ctx context.Context, onText func(string), progress func()) ([]byte, error) {
		rec := &capture{progress: progress, send: call.Body}
		ctx = context.WithValue(ctx, captureKey{}, rec)
		if onText == nil {
			_, err := c.client.Models.GenerateContent(ctx, call.Model, nil, config)
			if err != nil && !rec.readWhole(err) {
				return nil, geminiError(err, rec)
			}
			// A 2xx is returned whatever its body says, as by the other
			// transports: the SDK failing to decode it is format's to say.
			return bytes.Clone(rec.body.Bytes()), nil
		}
		for chunk, err := range c.client.Models.GenerateContentStream(ctx, call.Model, nil, config) {
			if err != nil {
				return nil, geminiError(err, rec)
			}
			if len(chunk.Candidates) > 0 && chunk.Candidates[0] != nil && chunk.Candidates[0].Content != nil {
				for _, p := range chunk.Candidates[0].Content.Parts {
					if p != nil && !p.Thought {
						onText(p.Text)
					}
				}
			}
		}
		// The SDK read the whole stream through the recorder: pkg/format
		// assembles the answer from the events as sent (the SDK's values
		// would reorder a function call's arguments and reformat its
		// numbers), and says whether they finish it; the text went on
		// from the SDK's values above.
		return c.assemble(&rec.body, func(string) {})
	})
}

// geminiError maps what the SDK returned to a *format.ProviderError when it
// understood the failure, and leaves transport errors for run to classify.
func geminiError(err error, rec *capture) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		status := apiErr.Code
		if status == 0 {
			status = rec.status
		}
		body := rec.body.Bytes()
		if rec.status < 300 || len(body) == 0 { // an error event in a stream
			body, _ = json.Marshal(map[string]any{"error": map[string]string{"message": apiErr.Message}})
		}
		e := statusError("gemini", status, rec.header, body)
		e.Err = apiErr
		if e.RetryAfter == 0 {
			e.RetryAfter = retryInfo(apiErr.Details)
		}
		return e
	}
	if rec.status >= 200 && rec.status < 300 && !transportError("gemini", err, 0).Retryable {
		// A 2xx stream the SDK could not read. Its message ends with the
		// whole body: the first line says enough.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return &format.ProviderError{Provider: "gemini", Status: rec.status, Message: "response body does not decode: " + msg, Err: err}
	}
	return err
}

// retryInfo reads the delay a google.rpc.RetryInfo error detail asks for
// ({"@type": ".../google.rpc.RetryInfo", "retryDelay": "37s"}).
func retryInfo(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if dur, err := time.ParseDuration(s); err == nil && dur > 0 {
			return dur
		}
	}
	return 0
}

// recorder, wrapped around the caller's transport, sends the body of the
// attempt whose context carries a capture in place of the SDK's, and keeps
// the response's status, headers (Retry-After) and body, which the SDK
// hides. It adds query, the base URL's own, to every request's.
type recorder struct {
	base  http.RoundTripper
	query string
}

type captureKey struct{}

type capture struct {
	send   []byte // the request body to send
	status int
	header http.Header
	body   bytes.Buffer
	eof    bool
	// progress, when set, is called as body bytes arrive (a stream's
	// silence timer, see Options.send).
	progress func()
}

func (c *capture) Write(p []byte) (int, error) {
	if c.progress != nil && len(p) > 0 {
		c.progress()
	}
	return c.body.Write(p)
}

// readWhole reports whether err came after a 2xx body was read to its end:
// the SDK failed to decode it, no connection failed.
func (c *capture) readWhole(err error) bool {
	var apiErr genai.APIError
	return c.status >= 200 && c.status < 300 && c.eof && !errors.As(err, &apiErr)
}

func (t recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.query != "" {
		req = req.Clone(req.Context())
		if req.URL.RawQuery == "" {
			req.URL.RawQuery = t.query
		} else {
			req.URL.RawQuery = t.query + "&" + req.URL.RawQuery
		}
	}
	rec, ok := req.Context().Value(captureKey{}).(*capture)
	if !ok {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(rec.send))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(rec.send)), nil }
	req.ContentLength = int64(len(rec.send))
	res, err := t.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	rec.status, rec.header = res.StatusCode, res.Header
	rec.body.Reset()
	rec.eof = false
	res.Body = &recordedBody{r: io.TeeReader(io.LimitReader(res.Body, maxBody), rec), c: res.Body, rec: rec}
	return res, nil
}

// recordedBody notes when the response was read to its end.
type recordedBody struct {
	r   io.Reader
	c   io.Closer
	rec *capture
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if errors.Is(err, io.EOF) {
		b.rec.eof = true
	}
	return n, err
}

func (b *recordedBody) Close() error { return b.c.Close() }
