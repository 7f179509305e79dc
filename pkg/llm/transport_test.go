package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
)

// callable are the providers with a transport, with where each sends its
// request and its key.
var callable = []struct {
	provider, path, streamPath, keyHeader, keyValue string
}{
	{"openai", "/v1/chat/completions", "/v1/chat/completions", "Authorization", "Bearer [KEY]"},
	{"openai-responses", "/v1/responses", "/v1/responses", "Authorization", "Bearer [KEY]"},
	{"anthropic", "/v1/messages", "/v1/messages", "X-Api-Key", "[KEY]"},
	{"gemini", "/v1beta/models/gemini-2.5-flash:generateContent", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "X-Goog-Api-Key", "[KEY]"},
	{"ollama", "/api/chat", "/api/chat", "Authorization", ""},
	{"bedrock", "/model/" + bedrockModel + "/converse", "/model/" + bedrockModel + "/converse-stream", "Authorization", "AWS4-HMAC-SHA256 [SECRET]"},
}

// bedrockModel has a ':' the path must carry escaped.
const bedrockModel = "anthropic.claude-3-haiku-20240307-v1:0"

// model is the model a test asks provider for.
func model(provider string) string {
	if provider == "bedrock" {
		return bedrockModel
	}
	if p, _ := format.Lookup(provider); p.DefaultModel != "" {
		return p.DefaultModel
	}
	return "llama3.2"
}

// request renders a question as provider's body, as ask and summarize do.
func request(t *testing.T, provider string, stream bool) Call {
	t.Helper()
	var b bytes.Buffer
	err := format.Render(&b, format.Request{Provider: provider, Body: true, Model: model(provider), Stream: stream,
		System:   []string{"Be brief."},
		Messages: []transcript.Record{{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Capital of <France>?"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return Call{Model: model(provider), Body: b.Bytes()}
}

// transport aims provider's transport at s, with the test key.
func transport(t *testing.T, provider string, s *providertest.Server, o Options) Transport {
	t.Helper()
	switch provider {
	case "ollama":
	case "bedrock": // signed: the test key is the secret access key
		o.Region, o.Credentials = "us-east-1", staticCredentials(testKey)
	default:
		o.APIKey = testKey
	}
	o.BaseURL = s.BaseURL(provider)
	c, err := New(provider, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func start(t *testing.T, steps ...providertest.Step) *providertest.Server {
	s := providertest.Start(providertest.Options{Key: testKey, Steps: steps})
	t.Cleanup(s.Close)
	return s
}

func parse(t *testing.T, provider string, body []byte) transcript.Record {
	t.Helper()
	ans, err := format.ParseResponse(provider, body, func() string { return "call_x" })
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return ans.Record
}

// noSecret fails when testKey shows in err, however formatted, or in body.
func noSecret(t *testing.T, body []byte, err error) {
	t.Helper()
	texts := []string{string(body)}
	if err != nil {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var e *format.ProviderError
		if errors.As(err, &e) {
			texts = append(texts, fmt.Sprintf("%#v", *e))
			if e.Err != nil {
				texts = append(texts, e.Err.Error(), fmt.Sprintf("%#v", e.Err))
			}
		}
	}
	for _, s := range texts {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key leaked: %s", s)
		}
	}
}

func wantError(t *testing.T, err error) *format.ProviderError {
	t.Helper()
	var e *format.ProviderError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *format.ProviderError", err, err)
	}
	return e
}

// TestSend: every transport sends format's body byte for byte (gemini's
// through the SDK too) to its endpoint with its key, and returns the body
// of the answer as it came; a stream is assembled into that same answer.
func TestSend(t *testing.T) {
	paris := &providertest.Answer{Text: "Paris is the capital of France."}
	for _, f := range callable {
		t.Run(f.provider, func(t *testing.T) {
			s := start(t, providertest.Step{Answer: paris})
			c := transport(t, f.provider, s, Options{})
			call := request(t, f.provider, false)
			got, err := c.Send(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			if want := providertest.Body(f.provider, model(f.provider), paris); string(got.Body) != want || got.Streamed {
				t.Errorf("reply %s\nwant %s", got.Body, want)
			}
			req := s.Requests()[0]
			if req.Path != f.path || req.Raw != string(call.Body) || req.Stream {
				t.Errorf("sent %s %s\nwant %s %s", req.Path, req.Raw, f.path, call.Body)
			}
			if got := req.Header.Get(f.keyHeader); got != f.keyValue {
				t.Errorf("%s = %q, want %q", f.keyHeader, got, f.keyValue)
			}

			var pieces []string
			call = request(t, f.provider, true)
			call.OnText = func(s string) { pieces = append(pieces, s) }
			got, err = c.Send(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pieces, "") != paris.Text || len(pieces) < 2 {
				t.Errorf("pieces %q", pieces)
			}
			want := parse(t, f.provider, []byte(providertest.Body(f.provider, model(f.provider), paris)))
			if !got.Streamed || !reflect.DeepEqual(parse(t, f.provider, got.Body), want) {
				t.Errorf("assembled %s\nwant as %+v", got.Body, want)
			}
			if req := s.Requests()[1]; req.Path != f.streamPath || !req.Stream || req.Raw != string(call.Body) {
				t.Errorf("stream sent to %s: %s", req.Path, req.Raw)
			}
		})
	}
}

// TestFailures: what every transport does with the failures a provider
// can show, retries and redaction included.
func TestFailures(t *testing.T) {
	cases := []struct {
		name  string
		steps []providertest.Step
		opts  Options
		check func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration)
	}{
		{"429 with Retry-After, then 503, then success", []providertest.Step{
			{Status: 429, Header: map[string]string{"Retry-After": "7"}, Error: "Rate limit reached for requests"},
			{Status: 503, Error: "overloaded"}, {Answer: &providertest.Answer{Text: "ok"}}}, Options{},
			func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration) {
				if err != nil || hits != 3 || len(slept) != 2 || slept[0] != 7*time.Second || slept[1] >= 2*time.Second {
					t.Errorf("err %v, %d hits, slept %v: want 7s (Retry-After) then a backoff", err, hits, slept)
				}
			}},
		{"500 until the cap", []providertest.Step{{Status: 500, Error: "The model is overloaded."}},
			Options{Retry: RetryPolicy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond}},
			func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if e.Status != 500 || !e.Retryable || e.Attempts != 3 || e.Message != "The model is overloaded." || hits != 3 {
					t.Errorf("%+v after %d hits", e, hits)
				}
				if !strings.Contains(err.Error(), "after 3 attempts") || len(slept) != 2 || slept[0] > 100*time.Millisecond || slept[1] > 200*time.Millisecond {
					t.Errorf("%v, slept %v", err, slept)
				}
			}},
		{"400 is not retried", []providertest.Step{{Status: 400, Error: "model: unknown model"}}, Options{},
			func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if e.Status != 400 || e.Retryable || e.Attempts != 1 || e.Message != "model: unknown model" || hits != 1 {
					t.Errorf("%+v after %d hits", e, hits)
				}
			}},
		{"the provider echoes the key", []providertest.Step{{Status: 401, Error: "Incorrect API key provided: " + testKey}}, Options{},
			func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration) {
				if e := wantError(t, err); e.Retryable || !strings.Contains(e.Message, "Incorrect API key provided: [REDACTED]") {
					t.Errorf("%+v", e)
				}
			}},
		{"timeout", []providertest.Step{{Hang: true}}, Options{Timeout: 50 * time.Millisecond, Retry: RetryPolicy{MaxAttempts: 2}},
			func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if !e.Retryable || e.Attempts != 2 || e.Status != 0 || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no response within 50ms") {
					t.Errorf("%+v", e)
				}
			}},
		{"a garbage 2xx is returned as it came", []providertest.Step{{Body: "<html>502 Bad Gateway</html>"}}, Options{},
			func(t *testing.T, reply Reply, err error, hits int, slept []time.Duration) {
				if err != nil || string(reply.Body) != "<html>502 Bad Gateway</html>" || hits != 1 {
					t.Errorf("%v %s", err, reply.Body)
				}
			}},
	}
	for _, f := range callable {
		for _, tc := range cases {
			if f.provider == "ollama" && strings.Contains(tc.name, "key") {
				continue // it sends no key, so none to redact
			}
			t.Run(f.provider+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				s := start(t, tc.steps...)
				sl := &sleeps{}
				o := tc.opts
				o.Sleep = sl.sleep
				limits := 0
				o.Limit = func(context.Context) error { limits++; return nil }
				reply, err := transport(t, f.provider, s, o).Send(context.Background(), request(t, f.provider, false))
				hits := len(s.Requests())
				tc.check(t, reply, err, hits, sl.get())
				if limits < hits {
					t.Errorf("Limit called %d times for %d attempts", limits, hits)
				}
				noSecret(t, reply.Body, err)
			})
		}
	}
}

// TestConnectionRefused: nothing listens, every attempt fails to connect and
// is retried.
func TestConnectionRefused(t *testing.T) {
	s := providertest.Start(providertest.Options{})
	s.Close()
	for _, f := range callable {
		sl := &sleeps{}
		_, err := transport(t, f.provider, s, Options{Sleep: sl.sleep, Retry: RetryPolicy{MaxAttempts: 2}}).Send(context.Background(), request(t, f.provider, false))
		if e := wantError(t, err); !e.Retryable || e.Attempts != 2 || e.Status != 0 || len(sl.get()) != 1 {
			t.Errorf("%s: %+v, slept %v", f.provider, e, sl.get())
		}
		noSecret(t, nil, err)
	}
}

// TestCancel: a cancelled context ends the wait between attempts at once
// with the context's error, not a provider failure.
func TestCancel(t *testing.T) {
	s := start(t, providertest.Step{Status: 429, Header: map[string]string{"Retry-After": "30"}, Error: "slow down"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := transport(t, "openai", s, Options{}).Send(ctx, request(t, "openai", false))
	var e *format.ProviderError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &e) {
		t.Errorf("err = %v, want the context's error alone", err)
	}
}

func TestLimitError(t *testing.T) {
	s := start(t)
	stop := errors.New("store is gone")
	_, err := transport(t, "openai", s, Options{Limit: func(context.Context) error { return stop }}).Send(context.Background(), request(t, "openai", false))
	if !errors.Is(err, stop) || len(s.Requests()) != 0 {
		t.Fatalf("%v, %d requests", err, len(s.Requests()))
	}
}

// TestGeminiRetryInfo: Google's 429 says how long to wait in a RetryInfo
// detail rather than a header.
func TestGeminiRetryInfo(t *testing.T) {
	s := start(t, providertest.Step{Status: 429, Body: `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",
	  "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},
	             {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`},
		providertest.Step{Answer: &providertest.Answer{Text: "ok"}})
	sl := &sleeps{}
	_, err := transport(t, "gemini", s, Options{Sleep: sl.sleep}).Send(context.Background(), request(t, "gemini", false))
	if got := sl.get(); err != nil || len(got) != 1 || got[0] != 37*time.Second {
		t.Errorf("err %v, slept %v, want [37s]", err, got)
	}
}

// TestGeminiNeedsModel: gemini's URL names the model.
func TestGeminiNeedsModel(t *testing.T) {
	s := start(t)
	call := request(t, "gemini", false)
	call.Model = ""
	if _, err := transport(t, "gemini", s, Options{}).Send(context.Background(), call); err == nil || len(s.Requests()) != 0 {
		t.Errorf("%v", err)
	}
}

// TestStreamToolCalls: tool calls streamed in pieces are assembled as the
// unstreamed answer holds them, arguments byte for byte.
func TestStreamToolCalls(t *testing.T) {
	weather := &providertest.Answer{Text: "Checking.", Calls: []providertest.Call{{ID: "call_1", Name: "get_weather", Args: `{"location":"Paris","days":2.50}`}}}
	for _, f := range callable {
		t.Run(f.provider, func(t *testing.T) {
			s := start(t, providertest.Step{Answer: weather})
			call := request(t, f.provider, true)
			call.OnText = func(string) {}
			got, err := transport(t, f.provider, s, Options{}).Send(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			want := parse(t, f.provider, []byte(providertest.Body(f.provider, model(f.provider), weather)))
			if have := parse(t, f.provider, got.Body); !reflect.DeepEqual(want, have) {
				t.Errorf("assembled %s\nparsed %+v\nwant   %+v", got.Body, have, want)
			}
			if !bytes.Contains(got.Body, []byte(`2.50`)) {
				t.Errorf("arguments not kept byte for byte: %s", got.Body)
			}
		})
	}
}

// TestStreamCutShort: a stream that stops after its first piece of text is
// not retried: the text cannot be taken back.
func TestStreamCutShort(t *testing.T) {
	paris := &providertest.Answer{Text: "Paris is the capital of France."}
	for _, f := range callable {
		t.Run(f.provider, func(t *testing.T) {
			stream := providertest.Stream(f.provider, model(f.provider), paris)
			i := strings.Index(stream, "Paris is the ca")
			cut := stream[:i+strings.Index(stream[i:], "\n")+1]
			ctype := "text/event-stream"
			switch f.provider {
			case "ollama":
				ctype = "application/x-ndjson"
			case "bedrock": // binary: cut after the whole message holding the text
				cut, ctype = stream[:eventMessageEnd(stream, i)], providertest.BedrockStreamType
			default:
				cut += "\n"
			}
			s := start(t, providertest.Step{Body: cut, Header: map[string]string{"Content-Type": ctype}})
			var text string
			call := request(t, f.provider, true)
			call.OnText = func(s string) { text += s }
			_, err := transport(t, f.provider, s, Options{Sleep: (&sleeps{}).sleep}).Send(context.Background(), call)
			e := wantError(t, err)
			if e.Retryable || len(s.Requests()) != 1 || !strings.Contains(e.Error(), "stream broke") || !strings.HasPrefix(paris.Text, text) {
				t.Fatalf("%v (%d requests), text %q", err, len(s.Requests()), text)
			}
		})
	}
}

// TestStreamErrors: an error reported inside a stream before any text is
// retried when it is transient; after text it is final.
func TestStreamErrors(t *testing.T) {
	overloaded := "event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}` +
		"\n\nevent: error\ndata: " + `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n"
	s := start(t, providertest.Step{Body: overloaded, Header: map[string]string{"Content-Type": "text/event-stream"}},
		providertest.Step{Answer: &providertest.Answer{Text: "Paris."}})
	var text string
	call := request(t, "anthropic", true)
	call.OnText = func(s string) { text += s }
	if _, err := transport(t, "anthropic", s, Options{Sleep: (&sleeps{}).sleep}).Send(context.Background(), call); err != nil || text != "Paris." || len(s.Requests()) != 2 {
		t.Fatalf("%v %q, %d requests", err, text, len(s.Requests()))
	}

	// ollama reports a failure as an error line, here after some text.
	s = start(t, providertest.Step{Body: `{"model":"llama3.2","message":{"role":"assistant","content":"Par"},"done":false}` + "\n" + `{"error":"an error was encountered while running the model"}` + "\n"})
	call = request(t, "ollama", true)
	call.OnText = func(string) {}
	_, err := transport(t, "ollama", s, Options{Sleep: (&sleeps{}).sleep}).Send(context.Background(), call)
	if e := wantError(t, err); e.Retryable || !strings.Contains(e.Message, "an error was encountered while running the model") {
		t.Fatalf("%v", err)
	}
}

// TestStreamTimeout: a stream may take longer than Timeout as long as no
// silence in it does; a silence after some text is final.
func TestStreamTimeout(t *testing.T) {
	events := strings.SplitAfter(providertest.Stream("openai", "", &providertest.Answer{Text: "Paris is the capital of France."}), "\n\n")
	slow := func(stall bool) providertest.Step {
		return providertest.Step{Handle: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for i, ev := range events {
				io.WriteString(w, ev)
				w.(http.Flusher).Flush()
				// Gaps a third of the idle timeout, seven events: the whole
				// stream outlasts the timeout, no gap comes near it even on a
				// loaded machine.
				d := 300 * time.Millisecond
				if stall && i == 2 {
					d = 10 * time.Second
				}
				select {
				case <-time.After(d):
				case <-r.Context().Done():
					return
				}
			}
		}}
	}
	call := request(t, "openai", true)
	call.OnText = func(string) {}
	s := start(t, slow(false))
	start := time.Now()
	got, err := transport(t, "openai", s, Options{Timeout: 900 * time.Millisecond}).Send(context.Background(), call)
	if err != nil || time.Since(start) < 900*time.Millisecond {
		t.Fatalf("%v after %v: %s", err, time.Since(start), got.Body)
	}
	s = providertest.Start(providertest.Options{Key: testKey, Steps: []providertest.Step{slow(true)}})
	defer s.Close()
	_, err = transport(t, "openai", s, Options{Timeout: 900 * time.Millisecond}).Send(context.Background(), call)
	if e := wantError(t, err); e.Retryable || !strings.Contains(e.Error(), "no response within 900ms (the stream broke") || len(s.Requests()) != 1 {
		t.Fatalf("%v", err)
	}
}

func TestTextRedactor(t *testing.T) {
	var out strings.Builder
	r := &textRedactor{red: NewRedactor("sk-SECRET"), out: func(s string) { out.WriteString(s) }}
	for _, p := range []string{"the key is sk-SE", "CRET and again sk-", "SECRET", "; bye sk-S"} {
		r.write(p)
	}
	r.flush()
	if got := out.String(); got != "the key is [REDACTED] and again [REDACTED]; bye sk-S" {
		t.Errorf("%q", got)
	}
}

// TestOllamaRoots: OLLAMA_HOST or --base-url given as a bare host:port, or
// as the /v1 root of the OpenAI-compatible API, still reaches the native
// /api/chat.
func TestOllamaRoots(t *testing.T) {
	s := start(t)
	for _, base := range []string{s.URL + "/v1/", strings.TrimPrefix(s.URL, "http://")} {
		c, err := New("ollama", Options{BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Send(context.Background(), request(t, "ollama", false)); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
	}
	for _, r := range s.Requests() {
		if r.Path != "/api/chat" {
			t.Errorf("path %s", r.Path)
		}
	}
}

// TestCallerTransportKept: gemini wraps the caller's RoundTripper, never
// replaces it.
func TestCallerTransportKept(t *testing.T) {
	s := start(t)
	var seen int
	rt := roundTripper(func(r *http.Request) (*http.Response, error) { seen++; return http.DefaultTransport.RoundTrip(r) })
	c := transport(t, "gemini", s, Options{HTTPClient: &http.Client{Transport: rt}})
	if _, err := c.Send(context.Background(), request(t, "gemini", false)); err != nil || seen != 1 {
		t.Fatalf("%v, seen %d", err, seen)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// SlotLimit waits until the reserved slot starts, and not at all for a
// slot that started already.
func TestSlotLimit(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tt := range []struct {
		slot    time.Time
		waitMin time.Duration
	}{
		{now.Add(-time.Second), 0},
		{now.Add(30 * time.Millisecond), 30 * time.Millisecond},
	} {
		calls := 0
		limit := SlotLimit(func(context.Context) (time.Time, error) { calls++; return tt.slot, nil }, func() time.Time { return now }, nil)
		start := time.Now()
		if err := limit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited < tt.waitMin || calls != 1 {
			t.Errorf("slot %v: waited %v (want at least %v), %d reservations", tt.slot.Sub(now), waited, tt.waitMin, calls)
		}
	}
	stop := errors.New("store gone")
	if err := SlotLimit(func(context.Context) (time.Time, error) { return time.Time{}, stop }, time.Now, nil)(context.Background()); !errors.Is(err, stop) {
		t.Errorf("a failed reservation: %v", err)
	}
}
