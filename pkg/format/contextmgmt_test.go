package format

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
)

// TestParseContextManagement: each strategy by name, and JSON as given,
// with the beta headers anthropic needs; what a provider has not is refused.
func TestParseContextManagement(t *testing.T) {
	for _, c := range []struct {
		provider, in  string
		field, value  string
		betas, errMsg string
	}{
		{"anthropic", "compact", "context_management", `{"edits":[{"type":"compact_20260112"}]}`, "compact-2026-01-12", ""},
		{"anthropic", "compact:60000", "context_management", `{"edits":[{"type":"compact_20260112","trigger":{"type":"input_tokens","value":60000}}]}`, "compact-2026-01-12", ""},
		{"anthropic", "clear-tool-uses", "context_management", `{"edits":[{"type":"clear_tool_uses_20250919"}]}`, "context-management-2025-06-27", ""},
		{"anthropic", "summarize", "compaction", `{"type":"summarize"}`, "compact-2026-09-04", ""},
		{"anthropic", `{"edits": [{"type":"clear_thinking_20251015"}, {"type":"compact_20260112","pause_after_compaction":true}]}`, "context_management",
			`{"edits":[{"type":"clear_thinking_20251015"},{"type":"compact_20260112","pause_after_compaction":true}]}`, "context-management-2025-06-27,compact-2026-01-12", ""},
		{"anthropic", `{"type":"summarize","instructions":"Keep ids."}`, "compaction", `{"type":"summarize","instructions":"Keep ids."}`, "compact-2026-09-04", ""},
		{"openai-responses", "compact:200000", "context_management", `[{"type":"compaction","compact_threshold":200000}]`, "", ""},
		{"openai-responses", `[{"type":"compaction"}]`, "context_management", `[{"type":"compaction"}]`, "", ""},
		{"openai-responses", "clear-tool-uses", "", "", "", "compact and compact:TOKENS only"},
		{"anthropic", "compact:x", "", "", "", "want compact"},
		{"anthropic", `{"edits":[]}`, "", "", "", "at least one edit"},
		{"anthropic", `[1]`, "", "", "", "takes an object"},
		{"gemini", "compact", "", "", "", "no provider-side context management"},
	} {
		cm, err := ParseContextManagement(c.provider, c.in)
		if c.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), c.errMsg) {
				t.Errorf("%s %s: err %v, want %q", c.provider, c.in, err, c.errMsg)
			}
			continue
		}
		if err != nil || cm.Field != c.field || string(cm.Value) != c.value || strings.Join(cm.Betas, ",") != c.betas {
			t.Errorf("%s %s: %+v %s, %v", c.provider, c.in, cm, cm.Value, err)
		}
	}
}

// FuzzParseContextManagement: what it accepts is one JSON value, which the
// body it goes in keeps valid.
func FuzzParseContextManagement(f *testing.F) {
	f.Add("anthropic", "compact:150000")
	f.Add("anthropic", `{"edits":[{"type":"compact_20260112"}]}`)
	f.Add("openai-responses", `[{"type":"compaction"}]`)
	f.Fuzz(func(t *testing.T, provider, in string) {
		cm, err := ParseContextManagement(provider, in)
		if err != nil || cm == nil {
			return
		}
		var out strings.Builder
		req := Request{Provider: provider, Body: true, Model: "m", ContextManagement: cm}
		if err := Render(&out, req); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !json.Valid([]byte(out.String())) {
			t.Fatalf("%q: body is no JSON: %s", in, out.String())
		}
	})
}

// TestRenderContextManagementGolden: the bodies --context-management
// writes, one golden file per provider and strategy.
func TestRenderContextManagementGolden(t *testing.T) {
	input := `{"role":"user","content":"Weather in Paris?"}`
	for _, c := range []struct{ provider, name, strategy string }{
		{"anthropic", "context_compact", "compact:150000"},
		{"anthropic", "context_editing", `{"edits":[{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":100000},"keep":{"type":"tool_uses","value":3}}]}`},
		{"anthropic", "context_summarize", "summarize"},
		{"openai-responses", "context_compact", "compact:200000"},
	} {
		t.Run(c.provider+"/"+c.name, func(t *testing.T) {
			cm, err := ParseContextManagement(c.provider, c.strategy)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := render(t, c.provider, input, Request{Body: true, Model: "model-x", ContextManagement: cm})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", c.provider, c.name+".json"), out)
		})
	}
}

// checkGolden compares a one-line JSON payload, indented, with a golden
// file (-update rewrites it).
func checkGolden(t *testing.T, path, out string) {
	t.Helper()
	var got bytes.Buffer
	if err := json.Indent(&got, []byte(out), "", "  "); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	got.WriteString("\n")
	golden.Check(t, path, got.Bytes(), *update)
}
