package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestJaegerEndToEnd: an imported Claude Code session exported with --to
// otlp+http:// to a real Jaeger (v2, run by .ci/run from tools/jaeger) reads
// back through Jaeger's query API as the spans export --format otel prints:
// the same span count, names, models, token counts and, with
// --otel-content, texts. CONVO_TEST_JAEGER is the query API's root
// (http://127.0.0.1:16686), CONVO_TEST_JAEGER_OTLP the OTLP/HTTP one
// (http://127.0.0.1:4318).
func TestJaegerEndToEnd(t *testing.T) {
	query, otlp := os.Getenv("CONVO_TEST_JAEGER"), os.Getenv("CONVO_TEST_JAEGER_OTLP")
	if query == "" || otlp == "" {
		t.Skip("CONVO_TEST_JAEGER and CONVO_TEST_JAEGER_OTLP unset: no Jaeger to export to (.ci/run starts one)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	if out, err := convoCmd(t, db, "import", "--from", "claude-code", "pkg/importer/testdata/claude-code/proj").CombinedOutput(); err != nil {
		t.Fatalf("import: %v: %s", err, out)
	}
	printed, err := convoCmd(t, db, "export", "--all", "--format", "otel", "--otel-content").Output()
	if err != nil {
		t.Fatalf("export --format otel: %v", err)
	}
	want := map[string]ptrace.Span{} // by span id
	traces := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(printed))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					want[s.SpanID().String()] = s
					traces[s.TraceID().String()] = true
				}
			}
		}
	}
	if len(want) < 5 {
		t.Fatalf("the fixture made %d spans: too few to prove anything", len(want))
	}
	if out, err := convoCmd(t, db, "export", "--all", "--otel-content", "--to", "otlp+"+otlp).CombinedOutput(); err != nil {
		t.Fatalf("export --to: %v: %s", err, out)
	}

	got := map[string]jaegerSpan{}
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < len(want) && time.Now().Before(deadline) {
		for id := range traces {
			for _, s := range jaegerTrace(t, query, id) {
				got[s.SpanID] = s // a span sent twice by earlier runs is one
			}
		}
		if len(got) < len(want) {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("Jaeger holds %d spans of the %d exported", len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("span %s (%s) is not in Jaeger", id, w.Name())
			continue
		}
		if g.OperationName != w.Name() {
			t.Errorf("span %s: Jaeger names it %q, want %q", id, g.OperationName, w.Name())
		}
		for _, k := range []string{"gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
			"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.result", "gen_ai.tool.name"} {
			v, ok := w.Attributes().Get(k)
			if gv, gok := g.tag(k); ok != gok || ok && gv != v.AsString() {
				t.Errorf("span %s (%s) %s: Jaeger has %q (%v), want %q (%v)", id, w.Name(), k, gv, gok, v.AsString(), ok)
			}
		}
	}
}

// jaegerSpan is a span as Jaeger's query API (/api/traces/ID) gives it.
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	Tags          []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tag(k string) (string, bool) {
	for _, t := range s.Tags {
		if t.Key == k {
			return fmt.Sprint(t.Value), true
		}
	}
	return "", false
}

// jaegerTrace reads a trace through the query API; none yet is no span.
func jaegerTrace(t *testing.T, query, traceID string) []jaegerSpan {
	t.Helper()
	resp, err := http.Get(query + "/api/traces/" + traceID)
	if err != nil {
		t.Fatalf("Jaeger query API: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	var body struct {
		Data []struct {
			Spans []jaegerSpan `json:"spans"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("Jaeger query API: HTTP %d, %v", resp.StatusCode, err)
	}
	var spans []jaegerSpan
	for _, d := range body.Data {
		spans = append(spans, d.Spans...)
	}
	return spans
}
