package otel

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var testResource = Resource{ServiceName: "convo-test", Version: "v0.0.0-test"}

// records reads a testdata file of records, a line each.
func records(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		out = append(out, line)
	}
	return out
}

// export runs records through a Writer to OTLP/JSON lines.
func export(t *testing.T, bodies [][]byte, content bool) []byte {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(context.Background(), NewJSONSink(&out, testResource), content)
	for _, b := range bodies {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.EndConversation(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// decode reads OTLP/JSON lines with the collector's own unmarshaler, not
// with the code that wrote them, and returns every span.
func decode(t *testing.T, out []byte) []ptrace.Span {
	t.Helper()
	var spans []ptrace.Span
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatalf("pdata cannot read a line: %v\n%s", err, sc.Bytes())
		}
		spans = append(spans, allSpans(t, td)...)
	}
	return spans
}

func allSpans(t *testing.T, td ptrace.Traces) []ptrace.Span {
	t.Helper()
	var spans []ptrace.Span
	if td.ResourceSpans().Len() != 1 {
		t.Errorf("%d resources in a request, want 1", td.ResourceSpans().Len())
	}
	for _, rs := range td.ResourceSpans().All() {
		if v, _ := rs.Resource().Attributes().Get("service.name"); v.Str() != "convo-test" {
			t.Errorf("service.name %q, want convo-test", v.Str())
		}
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				spans = append(spans, s)
			}
		}
	}
	return spans
}

func attr(s ptrace.Span, k string) string {
	v, ok := s.Attributes().Get(k)
	if !ok {
		return "<none>"
	}
	return v.AsString()
}

// TestGolden: a chat, a tool-using agent session and a summarized
// conversation, with and without --otel-content, as the golden OTLP/JSON,
// which the collector's pdata reads back to the spans docs/export.md says.
func TestGolden(t *testing.T) {
	type want struct {
		names []string
		check func(t *testing.T, spans []ptrace.Span)
	}
	cases := map[string]want{
		"chat": {names: []string{"chat gpt-4o-mini-2024-07-18", "chat gpt-4o-mini-2024-07-18"}, check: func(t *testing.T, s []ptrace.Span) {
			if got := attr(s[0], "gen_ai.usage.input_tokens"); got != "19" {
				t.Errorf("input tokens %s, want 19 (prompt_tokens)", got)
			}
			if got := attr(s[0], "gen_ai.response.finish_reasons"); got != `["stop"]` {
				t.Errorf("finish reasons %s", got)
			}
			if d := s[0].EndTimestamp() - s[0].StartTimestamp(); d != pcommon.Timestamp(1800e6) {
				t.Errorf("first turn lasted %v ns, want llmEnd-llmStart = 1.8 s", d)
			}
			if s[1].StartTimestamp() != pcommon.Timestamp(1744815830000e6) {
				t.Errorf("second turn starts at %v, want the creation of the user record it answered", s[1].StartTimestamp())
			}
		}},
		"agent": {names: []string{"chat claude-sonnet-4-5", "execute_tool Read", "execute_tool Read", "chat claude-sonnet-4-5", // the Edit call was interrupted: no result, no execute_tool span
			"chat claude-sonnet-4-5", "summarize", "chat claude-sonnet-4-5"}, check: func(t *testing.T, s []ptrace.Span) {
			for _, i := range []int{1, 2} {
				if s[i].ParentSpanID() != s[0].SpanID() {
					t.Errorf("span %d (%s) has parent %v, want the chat span %v that called it", i, s[i].Name(), s[i].ParentSpanID(), s[0].SpanID())
				}
			}
			if got := attr(s[1], "gen_ai.tool.call.id"); got != "toolu_1" {
				t.Errorf("tool call id %s", got)
			}
			for _, sp := range s {
				if sp.TraceID() != s[0].TraceID() {
					t.Errorf("one conversation, two traces")
				}
			}
		}},
		"summarized": {names: []string{"chat gemini-2.5-flash", "summarize anthropic", "chat gemini-2.5-flash", "summarize extractive"}, check: func(t *testing.T, s []ptrace.Span) {
			if got := attr(s[0], "gen_ai.provider.name"); got != "gcp.gemini" {
				t.Errorf("provider %s, want gcp.gemini", got)
			}
			if got := attr(s[1], "convo.summary.tokens_before") + "/" + attr(s[1], "convo.summary.tokens_after") + "/" + attr(s[1], "gen_ai.usage.output_tokens"); got != "40/18/15" {
				t.Errorf("summary tokens before/after/output %s, want 40/18/15", got)
			}
			if got := attr(s[3], "gen_ai.request.model"); got != "<none>" {
				t.Errorf("the extractive summary has a model: %s", got)
			}
		}},
	}
	for name, w := range cases {
		for _, content := range []bool{false, true} {
			file := name + ".json"
			if content {
				file = name + ".content.json"
			}
			t.Run(file, func(t *testing.T) {
				bodies := records(t, name+".jsonl")
				got := export(t, bodies, content)
				path := filepath.Join("testdata", "golden", file)
				golden.Check(t, path, got, *update)
				spans := decode(t, got)
				var names []string
				for _, s := range spans {
					names = append(names, s.Name())
				}
				if strings.Join(names, "|") != strings.Join(w.names, "|") {
					t.Fatalf("spans %q, want %q", names, w.names)
				}
				w.check(t, spans)
				checkContent(t, spans, content)
			})
		}
	}
}

// checkContent: without content no span holds a message attribute; with
// it every chat span holds its output.
func checkContent(t *testing.T, spans []ptrace.Span, content bool) {
	t.Helper()
	for _, s := range spans {
		for k := range s.Attributes().All() {
			if !content && (strings.HasSuffix(k, ".messages") || strings.HasPrefix(k, "gen_ai.tool.call.a") || strings.HasPrefix(k, "gen_ai.tool.call.r")) {
				t.Errorf("span %s has %s without --otel-content", s.Name(), k)
			}
		}
		if content && strings.HasPrefix(s.Name(), "chat") && attr(s, "gen_ai.output.messages") == "<none>" {
			t.Errorf("span %s has no gen_ai.output.messages with --otel-content", s.Name())
		}
	}
}

// TestProtoIsJSON: the protobuf request and the JSON one are the same
// traces, as pdata reads them.
func TestProtoIsJSON(t *testing.T) {
	var conv Converter
	conv.Content = true
	var spans []Span
	for _, name := range []string{"chat.jsonl", "agent.jsonl", "summarized.jsonl"} {
		for _, b := range records(t, name) {
			if err := conv.Record(b, func(s *Span) error { spans = append(spans, s.Clone()); return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	fromJSON, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(AppendJSON(nil, testResource, spans))
	if err != nil {
		t.Fatal(err)
	}
	fromProto, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(AppendProto(nil, testResource, spans))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(fromJSON)
	b, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(fromProto)
	if !bytes.Equal(a, b) || fromJSON.SpanCount() != len(spans) {
		t.Errorf("protobuf and JSON differ, or spans were lost (%d of %d):\n%s\n%s", fromJSON.SpanCount(), len(spans), a, b)
	}
}

// TestSameSpanAlone: a record exported alone (an incremental export that
// found only it) is the same span, ids and parent included.
func TestSameSpanAlone(t *testing.T) {
	bodies := records(t, "agent.jsonl")
	all := decode(t, export(t, bodies, false))
	// the first assistant record, alone
	alone := decode(t, export(t, bodies[1:2], false))
	if len(alone) != 1 || alone[0].SpanID() != all[0].SpanID() || alone[0].TraceID() != all[0].TraceID() {
		t.Fatalf("alone: %d spans, ids %v %v, want 1 with %v %v", len(alone), alone[0].TraceID(), alone[0].SpanID(), all[0].TraceID(), all[0].SpanID())
	}
}

// TestBatches: past MaxSpans a batch closes in the middle of a
// conversation; every line is a request of its own, and no span is lost.
func TestBatches(t *testing.T) {
	defer func(n int) { MaxSpans = n }(MaxSpans)
	MaxSpans = 2
	out := export(t, records(t, "agent.jsonl"), false)
	if lines := bytes.Count(out, []byte("\n")); lines != 4 {
		t.Errorf("%d requests for 7 spans at 2 a batch, want 4", lines)
	}
	if n := len(decode(t, out)); n != 7 {
		t.Errorf("%d spans, want 7", n)
	}
}

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }
