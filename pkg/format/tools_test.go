package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// renderBody renders one question for provider with the tools and schema
// of x.
func renderBody(t *testing.T, provider string, x Request) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	x.Provider, x.Body, x.Model, x.MaxTokens, x.System = provider, true, "m", 100, []string{"Be brief."}
	x.Messages = []transcript.Record{{ID: "1", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Capital of <France>?"}}}}
	err := Render(&b, x)
	return b.Bytes(), err
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

// TestToolsAndSchema: tools and the answer schema land where each provider
// documents them, in the one pass that writes the body.
func TestToolsAndSchema(t *testing.T) {
	x := Request{
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
			out, err := renderBody(t, provider, x)
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

func TestToolsAndSchemaRejected(t *testing.T) {
	array := Request{Schema: json.RawMessage(`{"type":"array"}`)}
	if _, err := renderBody(t, "anthropic", array); err == nil || !strings.Contains(err.Error(), "object") {
		t.Errorf("anthropic, array schema: %v", err)
	}
	if _, err := renderBody(t, "openai", array); err != nil {
		t.Errorf("openai, array schema: %v", err)
	}
	if _, err := renderBody(t, "openai", Request{Schema: json.RawMessage(`true`)}); err == nil {
		t.Error("a schema that is no object accepted")
	}
	for _, name := range []string{"no spaces please", "", strings.Repeat("x", 65)} {
		bad := Request{Tools: []Tool{{Name: name}}}
		if _, err := renderBody(t, "openai", bad); err == nil {
			t.Errorf("bad tool name %q accepted", name)
		}
	}
	taken := Request{Tools: []Tool{{Name: AnswerTool}}, Schema: json.RawMessage(`{"type":"object"}`)}
	if _, err := renderBody(t, "anthropic", taken); err == nil {
		t.Error("anthropic: a tool named like the structured answer accepted")
	}
	if _, err := renderBody(t, "bedrock", array); err == nil {
		t.Error("bedrock accepted a schema")
	}
	noBody := Request{Provider: "openai", Tools: []Tool{{Name: "f"}}}
	if err := noBody.Check(); err == nil {
		t.Error("tools without a whole body accepted")
	}
	if err := (&Request{Provider: "openai", Body: true, MaxTokens: -1}).Check(); err == nil {
		t.Error("a negative limit accepted")
	}
	var unknown *UnknownError
	if err := (&Request{Provider: "cohere"}).Check(); !errors.As(err, &unknown) || !strings.Contains(err.Error(), NameList(CanRender)) {
		t.Errorf("unknown provider: %v", err)
	}
}

// TestStream: a streamed request says so in the body where the provider
// reads it there.
func TestStream(t *testing.T) {
	for provider, want := range map[string]string{
		"openai":    `"stream":true,"stream_options":{"include_usage":true}`,
		"anthropic": `"stream":true`,
		"ollama":    `"stream":true`,
		"gemini":    "",
	} {
		out, err := renderBody(t, provider, Request{Stream: true})
		if err != nil {
			t.Fatal(err)
		}
		if want != "" && !strings.Contains(string(out), want) || want == "" && strings.Contains(string(out), "stream") {
			t.Errorf("%s: %s", provider, out)
		}
		out, _ = renderBody(t, provider, Request{})
		if provider != "ollama" && strings.Contains(string(out), "stream") || provider == "ollama" && !strings.Contains(string(out), `"stream":false`) {
			t.Errorf("%s, no stream: %s", provider, out)
		}
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

func TestSchemaName(t *testing.T) {
	for in, want := range map[string]string{"City answer": "City_answer", "": "answer", "..": "answer", strings.Repeat("x", 70): strings.Repeat("x", 64)} {
		if got := SchemaNameOf(in); got != want {
			t.Errorf("SchemaNameOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTools(t *testing.T) {
	tools, err := ParseTools([]byte(`[{"name":"a","parameters":{"type":"object"}},
		{"type":"function","function":{"name":"b","description":"B"}},
		{"name":"c","input_schema":{"type":"object","properties":{}}}]`))
	if err != nil || len(tools) != 3 || tools[1].Name != "b" || tools[1].Description != "B" || string(tools[2].Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("%+v %v", tools, err)
	}
	for _, bad := range []string{`{}`, `[{"description":"no name"}]`, `not json`} {
		if _, err := ParseTools([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// FuzzParseTools: a tool file either fails or gives tools that a request
// can carry: the file is refused up front, never after a paid call.
func FuzzParseTools(f *testing.F) {
	f.Add([]byte(`[{"name":"get_weather","description":"d","parameters":{"type":"object"}}]`))
	f.Add([]byte(`[{"type":"function","function":{"name":"f","parameters":{}}}]`))
	f.Add([]byte(`{"tools":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, err := ParseTools(data)
		if err != nil {
			return
		}
		// What ParseTools accepts every provider's request carries.
		req := Request{Provider: "openai", Body: true, Model: "m", Tools: tools}
		if err := req.Check(); err != nil {
			t.Fatalf("ParseTools accepted %q, which a request refuses: %v", data, err)
		}
	})
}
