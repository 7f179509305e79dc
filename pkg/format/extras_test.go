package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func renderBody(t *testing.T, provider string) []byte {
	t.Helper()
	var b bytes.Buffer
	r, err := NewRenderer(&b, Options{Provider: provider, Body: true, Model: "m", MaxTokens: 100, System: []string{"Be brief."}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(&transcript.Record{ID: "1", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Capital of <France>?"}}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestAddExtras: tools and the answer schema land where each provider
// documents them, the rest of the body untouched.
func TestAddExtras(t *testing.T) {
	x := Extras{
		Tools:      []Tool{{Name: "get_weather", Description: "Weather", Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}},
		Schema:     json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"city":{"type":"string"}}}`),
		SchemaName: "City answer",
	}
	checks := map[string][][]any{
		"openai": {
			{"tools", 0, "type", "function"}, {"tools", 0, "function", "name", "get_weather"},
			{"tools", 0, "function", "parameters", "type", "object"},
			{"response_format", "type", "json_schema"}, {"response_format", "json_schema", "name", "City_answer"},
			{"response_format", "json_schema", "schema", "type", "object"}, {"max_completion_tokens", 100.0},
		},
		"anthropic": {
			{"tools", 0, "name", "get_weather"}, {"tools", 0, "input_schema", "type", "object"},
			{"tools", 1, "name", AnswerTool}, {"tools", 1, "input_schema", "type", "object"},
			{"tool_choice", "type", "tool"}, {"tool_choice", "name", AnswerTool}, {"max_tokens", 100.0},
		},
		"gemini": {
			{"tools", 0, "functionDeclarations", 0, "name", "get_weather"},
			{"tools", 0, "functionDeclarations", 0, "parametersJsonSchema", "type", "object"},
			{"generationConfig", "responseMimeType", "application/json"},
			{"generationConfig", "responseJsonSchema", "type", "object"},
			{"generationConfig", "maxOutputTokens", 100.0},
		},
		"ollama": {
			{"tools", 0, "function", "name", "get_weather"}, {"format", "type", "object"}, {"stream", false},
		},
	}
	for provider, want := range checks {
		t.Run(provider, func(t *testing.T) {
			out, err := AddExtras(provider, renderBody(t, provider), x)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "Capital of <France>?") {
				t.Errorf("the messages changed or got escaped: %s", out)
			}
			if strings.Contains(string(out), "$schema") {
				t.Errorf("$schema sent: %s", out)
			}
			var body any
			if err := json.Unmarshal(out, &body); err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				path, value := w[:len(w)-1], w[len(w)-1]
				if got := at(body, path...); got != value {
					t.Errorf("%v = %v, want %v\n%s", path, got, value, out)
				}
			}
		})
	}
}

func TestAddExtrasRejects(t *testing.T) {
	array := Extras{Schema: json.RawMessage(`{"type":"array"}`)}
	if _, err := AddExtras("anthropic", renderBody(t, "anthropic"), array); err == nil || !strings.Contains(err.Error(), "object") {
		t.Errorf("anthropic, array schema: %v", err)
	}
	if _, err := AddExtras("openai", renderBody(t, "openai"), array); err != nil {
		t.Errorf("openai, array schema: %v", err)
	}
	bad := Extras{Tools: []Tool{{Name: "no spaces please"}}}
	if _, err := AddExtras("openai", renderBody(t, "openai"), bad); err == nil {
		t.Error("bad tool name accepted")
	}
	if _, err := AddExtras("bedrock", []byte(`{}`), array); err == nil {
		t.Error("bedrock accepted a schema")
	}
	if out, err := AddExtras("openai", []byte(`{"a":1}`), Extras{}); err != nil || string(out) != `{"a":1}` {
		t.Errorf("no extras changed the body: %s %v", out, err)
	}
}

func TestUnwrapAnswer(t *testing.T) {
	rec := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant,
		ToolCalls: []transcript.ToolCall{{ID: "toolu_1", Name: AnswerTool, Arguments: `{"city":"Paris"}`}}}}
	if !UnwrapAnswer("anthropic", &rec) || len(rec.Message.ToolCalls) != 0 || rec.Message.Contents[0] != `{"city":"Paris"}` {
		t.Fatalf("%+v", rec.Message)
	}
	other := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant,
		ToolCalls: []transcript.ToolCall{{ID: "c", Name: AnswerTool, Arguments: `{}`}}}}
	if UnwrapAnswer("openai", &other) || len(other.Message.ToolCalls) != 1 {
		t.Fatal("unwrapped another provider's tool call")
	}
}

func TestRefusalAndSchemaName(t *testing.T) {
	body := []byte(`{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't."},"finish_reason":"stop"}]}`)
	if got := Refusal("openai", body); got != "I can't." {
		t.Errorf("%q", got)
	}
	if got := Refusal("openai", []byte(`{"choices":[{"message":{"content":"ok","refusal":null}}]}`)); got != "" {
		t.Errorf("%q", got)
	}
	for in, want := range map[string]string{"City answer": "City_answer", "": "answer", "..": "answer", strings.Repeat("x", 70): strings.Repeat("x", 64)} {
		if got := SchemaNameOf(in); got != want {
			t.Errorf("SchemaNameOf(%q) = %q, want %q", in, got, want)
		}
	}
}
