package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/format"
)

// xfixture is one provider as Exchange speaks to it.
type xfixture struct {
	provider string
	newX     func(t *testing.T, base string, o Options) Exchanger
	path     string // of a non-streaming request
	// request is a body as pkg/format renders it.
	request string
	// ok is a non-streaming answer; stream the same answer streamed, in two
	// pieces of text: "Paris is" and " the capital of France."
	ok, stream  string
	contentType string
	errBody     func(status int) string
	keyHeader   string // where the key travels, "" for none
}

func xfixtures() []xfixture {
	return []xfixture{
		{
			provider: "openai",
			newX: func(t *testing.T, base string, o Options) Exchanger {
				o.APIKey, o.BaseURL = testKey, base+"/v1"
				c, err := NewExchanger("openai", o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path:    "/v1/chat/completions",
			request: `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Capital of France?"}]}`,
			ok:      `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Paris is the capital of France."},"finish_reason":"stop"}],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29}}`,
			stream: `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"Paris is"},"finish_reason":null}]}

: a comment line, to be skipped

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":" the capital of France."},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29}}

data: [DONE]

`,
			contentType: "text/event-stream",
			errBody: func(int) string {
				return `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`
			},
			keyHeader: "Authorization",
		},
		{
			provider: "anthropic",
			newX: func(t *testing.T, base string, o Options) Exchanger {
				o.APIKey, o.BaseURL = testKey, base
				c, err := NewExchanger("anthropic", o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path:    "/v1/messages",
			request: `{"model":"claude-haiku-4-5","max_tokens":4096,"system":[{"type":"text","text":"Be brief."}],"messages":[{"role":"user","content":[{"type":"text","text":"Capital of France?"}]}]}`,
			ok:      `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"Paris is the capital of France."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":19,"output_tokens":10}}`,
			stream: `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":19,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Paris is"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the capital of France."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":10}}

event: message_stop
data: {"type":"message_stop"}

`,
			contentType: "text/event-stream",
			errBody:     func(int) string { return `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` },
			keyHeader:   "x-api-key",
		},
		{
			provider: "gemini",
			newX: func(t *testing.T, base string, o Options) Exchanger {
				o.APIKey, o.BaseURL = testKey, base
				c, err := NewExchanger("gemini", o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path:    "/v1beta/models/gemini-2.5-flash:generateContent",
			request: `{"systemInstruction":{"role":"user","parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"Capital of France?"}]}]}`,
			ok:      `{"candidates":[{"content":{"parts":[{"text":"Paris is the capital of France."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":19,"candidatesTokenCount":10,"totalTokenCount":29},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`,
			stream: "data: " + `{"candidates":[{"content":{"parts":[{"text":"Paris is"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r1"}` + "\r\n\r\n" +
				"data: " + `{"candidates":[{"content":{"parts":[{"text":" the capital of France."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":19,"candidatesTokenCount":10,"totalTokenCount":29},"modelVersion":"gemini-2.5-flash","responseId":"r1"}` + "\r\n\r\n",
			contentType: "text/event-stream",
			errBody: func(status int) string {
				return fmt.Sprintf(`{"error":{"code":%d,"message":"Resource has been exhausted","status":"UNAVAILABLE"}}`, status)
			},
			keyHeader: "x-goog-api-key",
		},
		{
			provider: "ollama",
			newX: func(t *testing.T, base string, o Options) Exchanger {
				o.BaseURL = base + "/v1" // as FromEnv makes it of OLLAMA_HOST
				c, err := NewExchanger("ollama", o)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			path:    "/api/chat",
			request: `{"model":"llama3.2","stream":false,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Capital of France?"}]}`,
			ok:      `{"model":"llama3.2","created_at":"2023-12-12T14:13:43Z","message":{"role":"assistant","content":"Paris is the capital of France."},"done":true,"done_reason":"stop","prompt_eval_count":19,"eval_count":10}`,
			stream: `{"model":"llama3.2","created_at":"2023-12-12T14:13:43Z","message":{"role":"assistant","content":"Paris is"},"done":false}
{"model":"llama3.2","created_at":"2023-12-12T14:13:43Z","message":{"role":"assistant","content":" the capital of France."},"done":false}
{"model":"llama3.2","created_at":"2023-12-12T14:13:43Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":19,"eval_count":10}
`,
			contentType: "application/x-ndjson",
			errBody:     func(int) string { return `{"error":"model is loading"}` },
		},
	}
}

func sameJSONText(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

func parse(t *testing.T, provider, body string) any {
	t.Helper()
	rec, err := format.ParseResponse(provider, strings.NewReader(body), func() string { return "call_x" })
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return rec
}

func TestExchange(t *testing.T) {
	for _, f := range xfixtures() {
		t.Run(f.provider+"/plain", func(t *testing.T) {
			srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, 200, f.ok) })
			c := f.newX(t, srv.URL, Options{Model: "gemini-2.5-flash"})
			got, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request)})
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Body) != f.ok || got.Streamed {
				t.Errorf("reply %s", got.Body)
			}
			req := srv.requests()[0]
			if req.path != f.path {
				t.Errorf("path %s, want %s", req.path, f.path)
			}
			if g, ok := req.body["generationConfig"].(map[string]any); ok && len(g) == 0 {
				delete(req.body, "generationConfig") // the SDK sends an empty one
			}
			sent, _ := json.Marshal(req.body)
			if !sameJSONText(t, string(sent), f.request) {
				t.Errorf("sent %s\nwant %s", sent, f.request)
			}
			if f.keyHeader != "" && !strings.Contains(req.header.Get(f.keyHeader), testKey) {
				t.Errorf("%s = %q", f.keyHeader, req.header.Get(f.keyHeader))
			}
		})
		t.Run(f.provider+"/stream", func(t *testing.T) {
			srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", f.contentType)
				io.WriteString(w, f.stream)
			})
			c := f.newX(t, srv.URL, Options{Model: "gemini-2.5-flash"})
			var pieces []string
			got, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(s string) { pieces = append(pieces, s) }})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pieces, "") != "Paris is the capital of France." || len(pieces) < 2 {
				t.Errorf("pieces %q", pieces)
			}
			if !got.Streamed || !reflect.DeepEqual(parse(t, f.provider, string(got.Body)), parse(t, f.provider, f.ok)) {
				t.Errorf("assembled %s\nwant as %s", got.Body, f.ok)
			}
			req := srv.requests()[0]
			if f.provider == "gemini" {
				if req.path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" {
					t.Errorf("path %s", req.path)
				}
			} else if req.body["stream"] != true {
				t.Errorf("stream not asked: %v", req.body)
			}
		})
		t.Run(f.provider+"/retry", func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				switch n {
				case 1:
					w.Header().Set("Retry-After", "7")
					reply(w, 429, f.errBody(429))
				case 2:
					reply(w, 503, f.errBody(503))
				default:
					reply(w, 200, f.ok)
				}
			})
			var sl sleeps
			limits := 0
			c := f.newX(t, srv.URL, Options{Model: "gemini-2.5-flash", Sleep: sl.sleep, Limit: func(context.Context) error { limits++; return nil }})
			got, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request)})
			if err != nil || string(got.Body) != f.ok {
				t.Fatalf("%v %s", err, got.Body)
			}
			if d := sl.get(); len(d) != 2 || d[0] != 7*time.Second || d[1] >= 2*time.Second {
				t.Errorf("slept %v, want 7s (Retry-After) then a backoff", d)
			}
			if limits != 3 {
				t.Errorf("Limit called %d times for 3 attempts", limits)
			}
		})
		t.Run(f.provider+"/persistent 500", func(t *testing.T) {
			srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, 500, f.errBody(500)) })
			var sl sleeps
			c := f.newX(t, srv.URL, Options{Model: "gemini-2.5-flash", Sleep: sl.sleep})
			_, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request)})
			var e *Error
			if !errors.As(err, &e) || e.Status != 500 || e.Attempts != DefaultMaxAttempts || len(srv.requests()) != DefaultMaxAttempts {
				t.Fatalf("%#v", err)
			}
			if strings.Contains(fmt.Sprintf("%v %+v", err, e), testKey) {
				t.Fatal("key in the error")
			}
		})
		t.Run(f.provider+"/timeout", func(t *testing.T) {
			srv := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			var sl sleeps
			c := f.newX(t, srv.URL, Options{Model: "gemini-2.5-flash", Sleep: sl.sleep, Timeout: 50 * time.Millisecond, Retry: RetryPolicy{MaxAttempts: 2}})
			_, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(string) {}})
			var e *Error
			if !errors.As(err, &e) || !e.Retryable || e.Attempts != 2 || !strings.Contains(e.Error(), "no response within 50ms") {
				t.Fatalf("%v", err)
			}
		})
		t.Run(f.provider+"/stream cut short", func(t *testing.T) {
			// The stream stops after its first piece of text, then the
			// connection closes: the text cannot be taken back, so no retry.
			cut := f.stream[:strings.Index(f.stream, "Paris is")]
			cut += f.stream[len(cut):][:strings.Index(f.stream[len(cut):], "\n")+1]
			if f.contentType == "text/event-stream" {
				cut += "\n"
			}
			srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", f.contentType)
				io.WriteString(w, cut)
			})
			var sl sleeps
			c := f.newX(t, srv.URL, Options{Model: "gemini-2.5-flash", Sleep: sl.sleep})
			var text string
			_, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(s string) { text += s }})
			var e *Error
			if !errors.As(err, &e) || e.Retryable || len(srv.requests()) != 1 || !strings.Contains(e.Error(), "stream broke") {
				t.Fatalf("%v (%d requests)", err, len(srv.requests()))
			}
			if !strings.HasPrefix("Paris is", text) {
				t.Errorf("text %q", text)
			}
		})
	}
}

// TestExchangeStreamErrors: an error reported inside a stream before any
// text is retried when it is transient; after text it is final.
func TestExchangeStreamErrors(t *testing.T) {
	f := xfixtures()[1] // anthropic
	overloaded := "event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}` +
		"\n\nevent: error\ndata: " + `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n"
	srv := newServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			io.WriteString(w, overloaded)
			return
		}
		io.WriteString(w, f.stream)
	})
	var sl sleeps
	c := f.newX(t, srv.URL, Options{Sleep: sl.sleep})
	var text string
	got, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(s string) { text += s }})
	if err != nil || text != "Paris is the capital of France." || len(srv.requests()) != 2 {
		t.Fatalf("%v %q %d requests: %s", err, text, len(srv.requests()), got.Body)
	}

	// ollama reports a failure as an error line, here after some text.
	o := xfixtures()[3]
	srv = newServer(t, func(int, http.ResponseWriter, *http.Request) {})
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"model":"llama3.2","message":{"role":"assistant","content":"Par"},"done":false}`+"\n"+`{"error":"an error was encountered while running the model"}`+"\n")
	})
	c = o.newX(t, srv.URL, Options{Sleep: sl.sleep})
	_, err = c.Exchange(context.Background(), Exchange{Body: []byte(o.request), OnText: func(string) {}})
	var e *Error
	if !errors.As(err, &e) || e.Retryable || !strings.Contains(e.Message, "an error was encountered while running the model") {
		t.Fatalf("%v", err)
	}
}

// TestExchangeToolCallStreams: tool calls streamed in pieces are assembled
// as the unstreamed answer holds them, arguments byte for byte.
func TestExchangeToolCallStreams(t *testing.T) {
	cases := []struct {
		provider, ok, stream string
	}{
		{"openai",
			`{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\": \"Paris\", \"days\": 2.50}"}},{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}` + "\n\n" +
				"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\": \"Pa"}}]}}]}` + "\n\n" +
				"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ris\", \"days\": 2.50}"}}]}}]}` + "\n\n" +
				"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}}]}` + "\n\n" +
				"data: " + `{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"},
		{"anthropic",
			`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris","days":2.50}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":7}}`,
			"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}` + "\n\n" +
				"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
				"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}` + "\n\n" +
				"event: content_block_stop\ndata: " + `{"type":"content_block_stop","index":0}` + "\n\n" +
				"event: content_block_start\ndata: " + `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}` + "\n\n" +
				"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\":\"Pa"}}` + "\n\n" +
				"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ris\",\"days\":2.50}"}}` + "\n\n" +
				"event: content_block_stop\ndata: " + `{"type":"content_block_stop","index":1}` + "\n\n" +
				"event: message_delta\ndata: " + `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}` + "\n\n" +
				"event: message_stop\ndata: " + `{"type":"message_stop"}` + "\n\n"},
		{"gemini",
			`{"candidates":[{"content":{"parts":[{"text":"Checking the weather."},{"functionCall":{"name":"get_weather","args":{"location":"Paris","days":2.50}},"thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"STOP"}],"modelVersion":"m"}`,
			"data: " + `{"candidates":[{"content":{"parts":[{"text":"Checking "}],"role":"model"}}],"modelVersion":"m"}` + "\n\n" +
				"data: " + `{"candidates":[{"content":{"parts":[{"text":"the weather."},{"functionCall":{"name":"get_weather","args":{"location":"Paris","days":2.50}},"thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"STOP"}],"modelVersion":"m"}` + "\n\n"},
		{"ollama",
			`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"location":"Paris","days":2.50}}}]},"done":true,"done_reason":"stop"}`,
			`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"location":"Paris","days":2.50}}}]},"done":false}` + "\n" +
				`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.provider, func(t *testing.T) {
			var f xfixture
			for _, x := range xfixtures() {
				if x.provider == tc.provider {
					f = x
				}
			}
			srv := newServer(t, func(int, http.ResponseWriter, *http.Request) {})
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, tc.stream) })
			c := f.newX(t, srv.URL, Options{Model: "m"})
			got, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			want, have := parse(t, tc.provider, tc.ok), parse(t, tc.provider, string(got.Body))
			if !reflect.DeepEqual(want, have) {
				t.Errorf("assembled %s\nparsed %+v\nwant   %+v", got.Body, have, want)
			}
			if !bytes.Contains(got.Body, []byte(`2.50`)) {
				t.Errorf("arguments not kept byte for byte: %s", got.Body)
			}
		})
	}
}

func TestTextRedactor(t *testing.T) {
	var out strings.Builder
	r := &textRedactor{key: "sk-SECRET", out: func(s string) { out.WriteString(s) }}
	for _, p := range []string{"the key is sk-SE", "CRET and again sk-", "SECRET", "; bye sk-S"} {
		r.write(p)
	}
	r.flush()
	if got := out.String(); got != "the key is [REDACTED] and again [REDACTED]; bye sk-S" {
		t.Errorf("%q", got)
	}
}

func TestExchangeLimitError(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, func(int, http.ResponseWriter, *http.Request) { hits.Add(1) })
	f := xfixtures()[0]
	stop := errors.New("store is gone")
	c := f.newX(t, srv.URL, Options{Limit: func(context.Context) error { return stop }})
	if _, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request)}); !errors.Is(err, stop) || hits.Load() != 0 {
		t.Fatalf("%v, %d requests", err, hits.Load())
	}
}

func TestGeminiRequestRefusesUnknownFields(t *testing.T) {
	_, _, err := geminiRequest([]byte(`{"contents":[],"generationConfig":{"maxOutputTokens":5,"bogus":1}}`))
	if err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("%v", err)
	}
	contents, config, err := geminiRequest([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object"}}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}}`))
	if err != nil || len(contents) != 1 || config.ResponseMIMEType != "application/json" || config.ResponseJsonSchema == nil || len(config.Tools) != 1 {
		t.Fatalf("%v %+v", err, config)
	}
}

// TestExchangeStreamTimeout: a stream may take longer than Timeout as long
// as no silence in it does; a silence after some text is final.
func TestExchangeStreamTimeout(t *testing.T) {
	f := xfixtures()[0] // openai
	events := strings.SplitAfter(f.stream, "\n\n")
	slow := func(stall bool) func(int, http.ResponseWriter, *http.Request) {
		return func(_ int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", f.contentType)
			for i, ev := range events {
				io.WriteString(w, ev)
				w.(http.Flusher).Flush()
				d := 40 * time.Millisecond
				if stall && i == 2 {
					d = time.Second
				}
				select {
				case <-time.After(d):
				case <-r.Context().Done():
					return
				}
			}
		}
	}
	srv := newServer(t, slow(false))
	c := f.newX(t, srv.URL, Options{Timeout: 150 * time.Millisecond})
	start := time.Now()
	got, err := c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(string) {}})
	if err != nil || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("%v after %v: %s", err, time.Since(start), got.Body)
	}
	srv = newServer(t, slow(true))
	c = f.newX(t, srv.URL, Options{Timeout: 150 * time.Millisecond})
	_, err = c.Exchange(context.Background(), Exchange{Body: []byte(f.request), OnText: func(string) {}})
	var e *Error
	if !errors.As(err, &e) || e.Retryable || !strings.Contains(e.Error(), "no response within 150ms (the stream broke") || len(srv.requests()) != 1 {
		t.Fatalf("%v", err)
	}
}
