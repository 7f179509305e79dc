package otel

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/convo-cli/convo/pkg/store"
)

// receiver is an OTLP/HTTP receiver built on the collector's pdata
// decoders: it answers each request with the next of its answers (the last
// one for ever) and keeps the spans of every request it decoded.
type receiver struct {
	mu       sync.Mutex
	answers  []answer
	requests int
	spans    int
	names    []string
	headers  http.Header
}

type answer struct {
	status     int
	retryAfter string
	rejected   int64 // > 0: a partial success
	body       string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	a := rc.answers[min(rc.requests, len(rc.answers)-1)]
	rc.requests++
	rc.headers = r.Header.Clone()
	body, _ := io.ReadAll(r.Body)
	req := ptraceotlp.NewExportRequest()
	isJSON := r.Header.Get("Content-Type") == "application/json"
	var err error
	if isJSON {
		err = req.UnmarshalJSON(body)
	} else {
		err = req.UnmarshalProto(body)
	}
	if err != nil || r.URL.Path != "/v1/traces" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if a.retryAfter != "" {
		w.Header().Set("Retry-After", a.retryAfter)
	}
	if a.status != http.StatusOK {
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
		return
	}
	rc.spans += req.Traces().SpanCount()
	for _, rs := range req.Traces().ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				rc.names = append(rc.names, s.Name())
			}
		}
	}
	if a.body != "" {
		io.WriteString(w, a.body) // garbage
		return
	}
	resp := ptraceotlp.NewExportResponse()
	if a.rejected > 0 {
		resp.PartialSuccess().SetRejectedSpans(a.rejected)
		resp.PartialSuccess().SetErrorMessage("spans too old")
	}
	var out []byte
	if isJSON {
		out, _ = resp.MarshalJSON()
		w.Header().Set("Content-Type", "application/json")
	} else {
		out, _ = resp.MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}
	w.Write(out)
}

// testSpans are the spans of the chat fixture.
func testSpans(t *testing.T) []Span {
	var c Converter
	var spans []Span
	for _, b := range records(t, "chat.jsonl") {
		if err := c.Record(b, func(s *Span) error { spans = append(spans, s.Clone()); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return spans
}

// TestClient: what the receiver answers decides what Send does: 200 is
// delivered, a partial success is delivered and counted but never sent
// again, 429 and 503 are tried again after what Retry-After asks, and a
// garbage answer or a 400 fails at once.
func TestClient(t *testing.T) {
	cases := []struct {
		name     string
		json     bool
		answers  []answer
		wantErr  string
		requests int
		waits    []time.Duration
		rejected int64
	}{
		{name: "ok", answers: []answer{{status: 200}}, requests: 1},
		{name: "ok json", json: true, answers: []answer{{status: 200}}, requests: 1},
		{name: "partial success", answers: []answer{{status: 200, rejected: 1}}, requests: 1, rejected: 1},
		{name: "partial success json", json: true, answers: []answer{{status: 200, rejected: 2}}, requests: 1, rejected: 2},
		{name: "429 then ok", answers: []answer{{status: 429, retryAfter: "3"}, {status: 200}}, requests: 2, waits: []time.Duration{3 * time.Second}},
		{name: "503 then ok", answers: []answer{{status: 503, retryAfter: "120"}, {status: 200}}, requests: 2, waits: []time.Duration{MaxRetryAfter}},
		{name: "503 for good", answers: []answer{{status: 503, body: "overloaded"}}, requests: 3, wantErr: "HTTP 503: overloaded"},
		{name: "garbage", answers: []answer{{status: 200, body: "\xff\xff\xff"}}, requests: 1, wantErr: "no ExportTraceServiceResponse"},
		{name: "400", answers: []answer{{status: 400, body: `{"code":3,"message":"bad span"}`}}, requests: 1, wantErr: "HTTP 400: bad span"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := &receiver{answers: tc.answers}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			var waits []time.Duration
			c := &Client{
				Endpoint: Endpoint{URL: srv.URL + "/v1/traces", JSON: tc.json, Header: http.Header{"Authorization": {"Bearer s3cr3t-token"}}},
				Resource: testResource,
				Backoff: store.Backoff{Attempts: 3, First: time.Millisecond, Max: time.Millisecond,
					Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }},
			}
			spans := testSpans(t)
			for i := range spans {
				c.Add(&spans[i])
			}
			err := c.Send(context.Background())
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Send: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Send: %v, want an error with %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error shows a header value: %v", err)
			}
			if rc.requests != tc.requests {
				t.Errorf("%d requests, want %d", rc.requests, tc.requests)
			}
			if tc.waits != nil && (len(waits) != len(tc.waits) || waits[0] != tc.waits[0]) {
				t.Errorf("waits %v, want %v", waits, tc.waits)
			}
			if c.Rejected != tc.rejected || (tc.rejected > 0) != (c.Reason == "spans too old") {
				t.Errorf("rejected %d (%q), want %d", c.Rejected, c.Reason, tc.rejected)
			}
			if tc.wantErr == "" && rc.spans != len(spans) {
				t.Errorf("the receiver decoded %d spans, want %d", rc.spans, len(spans))
			}
			if got := rc.headers.Get("Authorization"); got != "Bearer s3cr3t-token" {
				t.Errorf("Authorization %q: the header was not sent", got)
			}
		})
	}
}

// TestClientDown: a receiver that is not there is tried again, then the
// error names the URL and what failed.
func TestClientDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1) + "/v1/traces"
	srv.Close()
	calls := 0
	c := &Client{Endpoint: Endpoint{URL: url}, Backoff: store.Backoff{Attempts: 2,
		Sleep: func(context.Context, time.Duration) error { calls++; return nil }}}
	spans := testSpans(t)
	c.Add(&spans[0])
	err := c.Send(context.Background())
	var re *ReceiverError
	shown := strings.Replace(url, "user:pa55word", "xxxxx", 1)
	if !errors.As(err, &re) || calls != 1 || !strings.Contains(err.Error(), shown) || strings.Contains(err.Error(), "pa55word") {
		t.Fatalf("Send to a closed port: %v after %d waits, want a ReceiverError naming %s, no password, after 1", err, calls, shown)
	}
}

// TestWriterCommitsAfterAcceptance: a conversation's commit runs only once
// the batch holding its last span was accepted; a batch refused runs none.
func TestWriterCommitsAfterAcceptance(t *testing.T) {
	defer func(n int) { MinSpans = n }(MinSpans)
	MinSpans = 1 // a batch a conversation
	rc := &receiver{answers: []answer{{status: 200}, {status: 400}}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := &Client{Endpoint: Endpoint{URL: srv.URL + "/v1/traces"}, Backoff: store.Backoff{Attempts: 1}}
	w := NewWriter(context.Background(), c, false)
	var done, committed []string
	w.SetCommit(func() error { committed = append(committed, done...); done = nil; return nil })
	for _, name := range []string{"chat", "summarized"} {
		for _, b := range records(t, name+".jsonl") {
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if len(committed) != 0 && name == "chat" {
			t.Fatalf("committed before the batch was sent")
		}
		err := w.EndConversation(func() { done = append(done, name) })
		if (err != nil) != (name == "summarized") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if strings.Join(committed, ",") != "chat" {
		t.Errorf("committed %v, want chat only (summarized's batch was refused)", committed)
	}
}

// TestLiveBatch: the spans of many calls go in batches of MinSpans and one
// at the end; a receiver that fails is said once, and nothing more is sent
// to it; without an endpoint there is no LiveBatch.
func TestLiveBatch(t *testing.T) {
	defer func(n int) { MinSpans = n }(MinSpans)
	MinSpans = 3
	bodies := records(t, "chat.jsonl")
	var calls [][]byte // the assistant records: a span each
	for _, b := range bodies {
		if strings.Contains(string(b), `"role":"assistant"`) {
			calls = append(calls, b)
		}
	}
	calls = append(append(calls, calls...), calls...)
	if len(calls)%MinSpans == 0 {
		calls = calls[1:]
	}
	ctx := context.Background()
	live := func(url string) *LiveBatch {
		env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}
		l, err := NewLiveBatch(func(k string) string { return env[k] }, Resource{ServiceName: "convo"})
		if err != nil || l == nil {
			t.Fatalf("NewLiveBatch: %v, %v", l, err)
		}
		return l
	}

	rc := &receiver{answers: []answer{{status: http.StatusOK}}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	l := live(srv.URL)
	for _, b := range calls {
		if err := l.Add(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if want := (len(calls) + MinSpans - 1) / MinSpans; rc.spans != len(calls) || rc.requests != want {
		t.Errorf("%d spans in %d requests, want %d in %d", rc.spans, rc.requests, len(calls), want)
	}

	down := &receiver{answers: []answer{{status: http.StatusServiceUnavailable}}}
	srv2 := httptest.NewServer(down)
	defer srv2.Close()
	l = live(srv2.URL)
	failures := 0
	for _, b := range calls {
		if l.Add(ctx, b) != nil {
			failures++
		}
	}
	if l.Close(ctx) != nil {
		failures++
	}
	if failures != 1 || down.requests != 1 {
		t.Errorf("a receiver down: %d errors, %d requests; want 1 and 1", failures, down.requests)
	}

	if l, err := NewLiveBatch(func(string) string { return "" }, Resource{}); l != nil || err != nil {
		t.Errorf("without an endpoint: %v, %v; want nil", l, err)
	}
	var none *LiveBatch
	if none.Add(ctx, calls[0]) != nil || none.Close(ctx) != nil {
		t.Error("a nil LiveBatch failed")
	}
}

// A partial success is an error naming the spans refused and, when the
// receiver gave one, its reason; none is nil.
func TestPartialError(t *testing.T) {
	for _, tc := range []struct {
		rejected int64
		reason   string
		want     string
	}{
		{0, "", ""},
		{3, "", "the otlp receiver rejected 3 span(s) of batches it accepted (a partial success, not sent again)"},
		{2, "spans too old", "the otlp receiver rejected 2 span(s) of batches it accepted (a partial success, not sent again): spans too old"},
		{0, "quota", "the otlp receiver rejected 0 span(s) of batches it accepted (a partial success, not sent again): quota"},
	} {
		c := &Client{Rejected: tc.rejected, Reason: tc.reason}
		got := ""
		if err := c.PartialError(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%d %q: got %q, want %q", tc.rejected, tc.reason, got, tc.want)
		}
	}
}
