package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is the API key every test client sends. No error text, Raw field
// or formatted error may ever contain it.
const testKey = "sk-test-4f1c2b9e-SECRET"

// fixture is what one HTTP provider looks like on the wire: its bodies are
// modelled on the examples in the provider's documentation.
type fixture struct {
	provider string
	// newClient aims a client at base, the test server's URL.
	newClient func(t *testing.T, base string, o Options) Client
	path      string
	key       bool // the client sends testKey
	// errBody is the provider's error body carrying msg.
	errBody func(status int, msg string) string
	// checkRequest checks headers and body of a request for testRequest.
	checkRequest func(t *testing.T, h http.Header, body map[string]any)
	reason       string // finish reason of the _length body
	model        string // model named in the _ok body
}

var testTemp = 0.25

// testRequest is sent in every provider test: a system prompt and three
// turns.
var testRequest = Request{
	Model:  "test-model",
	System: "Answer in one sentence.",
	Messages: []Message{
		{Role: RoleUser, Text: "What is the capital of France?"},
		{Role: RoleAssistant, Text: "Do you mean today?"},
		{Role: RoleUser, Text: "Yes."},
	},
	MaxTokens:   300,
	Temperature: &testTemp,
}

func fixtures() []fixture {
	openaiErr := func(_ int, msg string) string {
		return fmt.Sprintf(`{"error":{"message":%q,"type":"requests","param":null,"code":"rate_limit_exceeded"}}`, msg)
	}
	openaiCheck := func(key bool) func(t *testing.T, h http.Header, b map[string]any) {
		return func(t *testing.T, h http.Header, b map[string]any) {
			want := ""
			if key {
				want = "Bearer " + testKey
			}
			if got := h.Get("Authorization"); got != want {
				t.Errorf("Authorization = %q, want %q", got, want)
			}
			wantJSON(t, b, "model", "test-model")
			wantJSON(t, b, "max_tokens", 300.0)
			wantJSON(t, b, "temperature", 0.25)
			wantJSON(t, b, "messages", []any{
				map[string]any{"role": "system", "content": "Answer in one sentence."},
				map[string]any{"role": "user", "content": "What is the capital of France?"},
				map[string]any{"role": "assistant", "content": "Do you mean today?"},
				map[string]any{"role": "user", "content": "Yes."},
			})
		}
	}
	return []fixture{
		{
			provider: "gemini",
			newClient: func(t *testing.T, base string, o Options) Client {
				o.APIKey, o.BaseURL = testKey, base
				c, err := NewGemini(o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path: "/v1beta/models/test-model:generateContent",
			key:  true,
			errBody: func(status int, msg string) string {
				return fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":"UNAVAILABLE"}}`, status, msg)
			},
			checkRequest: func(t *testing.T, h http.Header, b map[string]any) {
				if got := h.Get("x-goog-api-key"); got != testKey {
					t.Errorf("x-goog-api-key = %q", got)
				}
				wantJSON(t, b, "contents", []any{
					map[string]any{"role": "user", "parts": []any{map[string]any{"text": "What is the capital of France?"}}},
					map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Do you mean today?"}}},
					map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Yes."}}},
				})
				wantJSON(t, b, "systemInstruction", map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Answer in one sentence."}}})
				wantJSON(t, b, "generationConfig", map[string]any{"maxOutputTokens": 300.0, "temperature": 0.25})
			},
			reason: "MAX_TOKENS",
			model:  "gemini-2.5-flash",
		},
		{
			provider: "openai",
			newClient: func(t *testing.T, base string, o Options) Client {
				o.APIKey, o.BaseURL = testKey, base+"/v1"
				c, err := NewOpenAI(o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path:         "/v1/chat/completions",
			key:          true,
			errBody:      openaiErr,
			checkRequest: openaiCheck(true),
			reason:       "length",
			model:        "gpt-4o-mini-2024-07-18",
		},
		{
			// Ollama's /v1 speaks the OpenAI format and takes no key.
			provider: "ollama",
			newClient: func(t *testing.T, base string, o Options) Client {
				o.BaseURL = base + "/v1"
				c, err := NewOllama(o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path: "/v1/chat/completions",
			errBody: func(_ int, msg string) string {
				return fmt.Sprintf(`{"error":{"message":%q,"type":"api_error","param":null,"code":null}}`, msg)
			},
			checkRequest: openaiCheck(false),
			reason:       "length",
			model:        "gpt-4o-mini-2024-07-18",
		},
		{
			provider: "anthropic",
			newClient: func(t *testing.T, base string, o Options) Client {
				o.APIKey, o.BaseURL = testKey, base
				c, err := NewAnthropic(o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path: "/v1/messages",
			key:  true,
			errBody: func(_ int, msg string) string {
				return fmt.Sprintf(`{"type":"error","error":{"type":"overloaded_error","message":%q},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, msg)
			},
			checkRequest: func(t *testing.T, h http.Header, b map[string]any) {
				if got := h.Get("x-api-key"); got != testKey {
					t.Errorf("x-api-key = %q", got)
				}
				if got := h.Get("anthropic-version"); got != "2023-06-01" {
					t.Errorf("anthropic-version = %q", got)
				}
				if got := h.Get("Authorization"); got != "" {
					t.Errorf("Authorization = %q, want none", got)
				}
				wantJSON(t, b, "model", "test-model")
				wantJSON(t, b, "max_tokens", 300.0)
				wantJSON(t, b, "temperature", 0.25)
				wantJSON(t, b, "system", "Answer in one sentence.")
				wantJSON(t, b, "messages", []any{
					map[string]any{"role": "user", "content": "What is the capital of France?"},
					map[string]any{"role": "assistant", "content": "Do you mean today?"},
					map[string]any{"role": "user", "content": "Yes."},
				})
			},
			reason: "max_tokens",
			model:  "claude-haiku-4-5-20251001",
		},
	}
}

// body reads testdata/<provider>_<name>.json; ollama answers as openai.
func body(t *testing.T, provider, name string) string {
	t.Helper()
	if provider == "ollama" {
		provider = "openai"
	}
	b, err := os.ReadFile(filepath.Join("testdata", provider+"_"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantJSON(t *testing.T, obj map[string]any, key string, want any) {
	t.Helper()
	got, _ := json.Marshal(obj[key])
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Errorf("request %s = %s, want %s", key, got, w)
	}
}

// received is one request as the test server saw it.
type received struct {
	path   string
	header http.Header
	body   map[string]any
}

// server answers the n-th request (from 1) with handle, and records them all.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []received
}

func newServer(t *testing.T, handle func(n int, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var b map[string]any
		_ = json.Unmarshal(data, &b)
		s.mu.Lock()
		s.reqs = append(s.reqs, received{path: r.URL.Path, header: r.Header.Clone(), body: b})
		n := len(s.reqs)
		s.mu.Unlock()
		handle(n, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.reqs...)
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// sleeps records the delays the retry policy asks for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// scenario is one behaviour every HTTP provider must show.
type scenario struct {
	name   string
	handle func(f fixture, t *testing.T) func(n int, w http.ResponseWriter, r *http.Request)
	opts   Options
	// keyed: only for providers that send a key.
	keyed bool
	// check looks at the outcome; hits is the number of requests served.
	check func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration)
}

func scenarios() []scenario {
	return []scenario{
		{
			name: "success",
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, 200, body(t, f.provider, "ok")) }
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Text != "Paris is the capital of France." {
					t.Errorf("Text = %q", resp.Text)
				}
				if resp.Model != f.model {
					t.Errorf("Model = %q, want %q", resp.Model, f.model)
				}
				if resp.Usage != (Usage{InputTokens: 19, OutputTokens: 10}) {
					t.Errorf("Usage = %+v", resp.Usage)
				}
				if resp.FinishReason == "" {
					t.Error("no FinishReason")
				}
				if string(resp.Raw) != body(t, f.provider, "ok") {
					t.Errorf("Raw = %s", resp.Raw)
				}
				if hits != 1 || len(slept) != 0 {
					t.Errorf("hits = %d, slept %v", hits, slept)
				}
			},
		},
		{
			name: "429 with Retry-After, then success",
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(n int, w http.ResponseWriter, _ *http.Request) {
					if n == 1 {
						w.Header().Set("Retry-After", "7")
						reply(w, 429, f.errBody(429, "Rate limit reached for requests"))
						return
					}
					reply(w, 200, body(t, f.provider, "ok"))
				}
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Text != "Paris is the capital of France." {
					t.Errorf("Text = %q", resp.Text)
				}
				if hits != 2 || len(slept) != 1 || slept[0] != 7*time.Second {
					t.Errorf("hits = %d, slept %v, want 2 and [7s]", hits, slept)
				}
			},
		},
		{
			name: "500 three times, then failure",
			opts: Options{Retry: RetryPolicy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond}},
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) {
					reply(w, 500, f.errBody(500, "The model is overloaded. Please try again later."))
				}
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if e.Status != 500 || !e.Retryable || e.Attempts != 3 || e.Provider != f.provider {
					t.Errorf("error = %+v", e)
				}
				if e.Message != "The model is overloaded. Please try again later." {
					t.Errorf("Message = %q", e.Message)
				}
				if !strings.Contains(err.Error(), "The model is overloaded") || !strings.Contains(err.Error(), "after 3 attempts") {
					t.Errorf("Error() = %q", err)
				}
				if hits != 3 || len(slept) != 2 {
					t.Fatalf("hits = %d, slept %v", hits, slept)
				}
				// Full jitter under a doubling ceiling.
				if slept[0] > 100*time.Millisecond || slept[1] > 200*time.Millisecond {
					t.Errorf("slept %v, want ≤ [100ms 200ms]", slept)
				}
			},
		},
		{
			name: "400 is not retried",
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) {
					reply(w, 400, f.errBody(400, "model: unknown model test-model"))
				}
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if e.Status != 400 || e.Retryable || e.Attempts != 1 || e.Message != "model: unknown model test-model" {
					t.Errorf("error = %+v", e)
				}
				if hits != 1 {
					t.Errorf("hits = %d", hits)
				}
			},
		},
		{
			name:  "the provider echoes the key",
			keyed: true,
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) {
					reply(w, 401, f.errBody(401, "Incorrect API key provided: "+testKey))
				}
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if e.Status != 401 || e.Retryable || !strings.Contains(e.Message, "Incorrect API key provided: [REDACTED]") {
					t.Errorf("error = %+v", e)
				}
			},
		},
		{
			name: "timeout",
			opts: Options{Timeout: 50 * time.Millisecond, Retry: RetryPolicy{MaxAttempts: 2}},
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-time.After(5 * time.Second):
					}
				}
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if !e.Retryable || e.Attempts != 2 || e.Status != 0 || !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error = %+v", e)
				}
				if !strings.Contains(err.Error(), "no response within 50ms") {
					t.Errorf("Error() = %q", err)
				}
				// A request given up on may not reach the handler under load.
				if hits > 2 {
					t.Errorf("hits = %d", hits)
				}
			},
		},
		{
			name: "garbage body",
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
				}
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if e.Retryable || e.Attempts != 1 || !strings.Contains(e.Message, "does not decode") {
					t.Errorf("error = %+v", e)
				}
			},
		},
		{
			name: "empty answer",
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, 200, body(t, f.provider, "empty")) }
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				e := wantError(t, err)
				if !errors.Is(err, ErrEmptyAnswer) || e.Retryable || e.Attempts != 1 {
					t.Errorf("error = %+v", e)
				}
			},
		},
		{
			name: "incomplete finish reason",
			handle: func(f fixture, t *testing.T) func(int, http.ResponseWriter, *http.Request) {
				return func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, 200, body(t, f.provider, "length")) }
			},
			check: func(t *testing.T, f fixture, resp Response, err error, hits int, slept []time.Duration) {
				var inc *IncompleteError
				if !errors.As(err, &inc) {
					t.Fatalf("err = %v, want *IncompleteError", err)
				}
				if inc.Reason != f.reason || inc.Provider != f.provider {
					t.Errorf("IncompleteError = %+v", inc)
				}
				if resp.Text != "Paris is the" || inc.Response.Text != "Paris is the" || resp.FinishReason != f.reason {
					t.Errorf("Response = %+v, in error %+v", resp, inc.Response)
				}
				if hits != 1 {
					t.Errorf("hits = %d", hits)
				}
			},
		},
	}
}

func wantError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	return e
}

// TestProviders runs every scenario against every HTTP provider through its
// real client (the genai SDK for gemini), checks each request the server
// received, and that the key appears in no error or Raw.
func TestProviders(t *testing.T) {
	for _, f := range fixtures() {
		for _, sc := range scenarios() {
			if sc.keyed && !f.key {
				continue
			}
			t.Run(f.provider+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				srv := newServer(t, sc.handle(f, t))
				sl := &sleeps{}
				o := sc.opts
				o.Sleep = sl.sleep
				c := f.newClient(t, srv.URL, o)
				if c.Name() != f.provider {
					t.Errorf("Name() = %q", c.Name())
				}
				resp, err := c.Complete(context.Background(), testRequest)
				reqs := srv.requests()
				sc.check(t, f, resp, err, len(reqs), sl.get())
				for _, r := range reqs {
					if r.path != f.path {
						t.Errorf("path = %q, want %q", r.path, f.path)
					}
					f.checkRequest(t, r.header, r.body)
				}
				noSecret(t, resp, err)
			})
		}
	}
}

// noSecret fails when testKey shows in err, however formatted, or in Raw.
func noSecret(t *testing.T, resp Response, err error) {
	t.Helper()
	var texts []string
	if err != nil {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var e *Error
		if errors.As(err, &e) {
			texts = append(texts, fmt.Sprintf("%#v", *e))
			if e.Err != nil {
				texts = append(texts, e.Err.Error(), fmt.Sprintf("%#v", e.Err))
			}
		}
		var inc *IncompleteError
		if errors.As(err, &inc) {
			texts = append(texts, string(inc.Response.Raw))
		}
	}
	texts = append(texts, string(resp.Raw), fmt.Sprintf("%+v", resp))
	for _, s := range texts {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key leaked: %s", s)
		}
	}
}

// TestConnectionRefused: nothing listens, every attempt fails to connect and
// is retried.
func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	for _, f := range fixtures() {
		t.Run(f.provider, func(t *testing.T) {
			sl := &sleeps{}
			c := f.newClient(t, base, Options{Sleep: sl.sleep, Retry: RetryPolicy{MaxAttempts: 2}})
			resp, err := c.Complete(context.Background(), testRequest)
			e := wantError(t, err)
			if !e.Retryable || e.Attempts != 2 || e.Status != 0 || len(sl.get()) != 1 {
				t.Errorf("error = %+v, slept %v", e, sl.get())
			}
			noSecret(t, resp, err)
		})
	}
}

// TestCancel: a cancelled context ends the wait between attempts at once
// with the context's error, not a provider failure.
func TestCancel(t *testing.T) {
	srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		reply(w, 429, `{"error":{"message":"slow down"}}`)
	})
	c, err := NewOpenAI(Options{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Complete(ctx, Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
	var e *Error
	if errors.As(err, &e) {
		t.Errorf("a cancelled call is no *Error: %v", err)
	}
}

// TestGeminiRetryInfo: Google's 429 says how long to wait in a RetryInfo
// detail rather than a header.
func TestGeminiRetryInfo(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			reply(w, 429, `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",
			  "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},
			             {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`)
			return
		}
		reply(w, 200, body(t, "gemini", "ok"))
	})
	sl := &sleeps{}
	c, err := NewGemini(Options{APIKey: testKey, BaseURL: srv.URL, Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if err != nil || resp.Text == "" {
		t.Fatalf("resp = %+v, err = %v", resp, err)
	}
	if got := sl.get(); len(got) != 1 || got[0] != 37*time.Second {
		t.Errorf("slept %v, want [37s]", got)
	}
	if p := srv.requests()[0].path; p != "/v1beta/models/"+DefaultGeminiModel+":generateContent" {
		t.Errorf("path = %q: the default model was not used", p)
	}
}

// TestRequestDefaults: what is sent when the request leaves fields out.
func TestRequestDefaults(t *testing.T) {
	srv := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/messages":
			reply(w, 200, body(t, "anthropic", "ok"))
		default:
			reply(w, 200, body(t, "openai", "ok"))
		}
	})
	req := Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}

	a, err := NewAnthropic(Options{APIKey: testKey, BaseURL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// Official OpenAI takes max_completion_tokens; aim the official host at
	// the test server through the transport.
	o, err := NewOpenAI(Options{APIKey: testKey, HTTPClient: &http.Client{Transport: redirect(srv.URL)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Complete(context.Background(), Request{Messages: req.Messages, MaxTokens: 50}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	ab := reqs[0].body
	wantJSON(t, ab, "max_tokens", float64(DefaultAnthropicMaxTokens))
	wantJSON(t, ab, "model", DefaultAnthropicModel)
	for _, k := range []string{"system", "temperature"} {
		if _, ok := ab[k]; ok {
			t.Errorf("anthropic request has %s, which was not set", k)
		}
	}
	ob := reqs[1].body
	wantJSON(t, ob, "model", DefaultOpenAIModel)
	wantJSON(t, ob, "max_completion_tokens", 50.0)
	wantJSON(t, ob, "messages", []any{map[string]any{"role": "user", "content": "hi"}})
	for _, k := range []string{"max_tokens", "temperature"} {
		if _, ok := ob[k]; ok {
			t.Errorf("openai request has %s", k)
		}
	}
}

// redirect sends every request to base, whatever its host.
type redirect string

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = "http", strings.TrimPrefix(string(r), "http://")
	req.URL.Path = strings.TrimPrefix(req.URL.Path, "/v1")
	return http.DefaultTransport.RoundTrip(req)
}

func TestBadRequests(t *testing.T) {
	srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, 200, body(t, "openai", "ok")) })
	c, err := NewOllama(Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]Request{
		"no model":    {Messages: []Message{{Role: RoleUser, Text: "hi"}}},
		"no messages": {Model: "m"},
		"bad role":    {Model: "m", Messages: []Message{{Role: "system", Text: "hi"}}},
	} {
		if _, err := c.Complete(context.Background(), req); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
