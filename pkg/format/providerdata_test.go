package format

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// TestLegacyThoughtSignatures: records stored before provider data kept
// Gemini's signatures under aux thought_signatures; they still go back.
func TestLegacyThoughtSignatures(t *testing.T) {
	recs := []transcript.Record{
		{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Weather?"}}},
		{ID: "a", Message: transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: "fc_1", Name: "get_weather", Arguments: `{}`}}},
			Metadata: transcript.Metadata{Aux: map[string]json.RawMessage{"thought_signatures": json.RawMessage(`{"fc_1":"c2lnMQ=="}`)}}},
		{ID: "t", Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "fc_1", Contents: []string{"sunny"}}},
	}
	var out strings.Builder
	if err := Render(&out, Request{Provider: "gemini", Messages: recs}); err != nil {
		t.Fatal(err)
	}
	if want := `{"functionCall":{"id":"fc_1","name":"get_weather","args":{}},"thoughtSignature":"c2lnMQ=="}`; !strings.Contains(out.String(), want) {
		t.Errorf("rendered %s\nwant it to hold %s", out.String(), want)
	}
}

// TestProviderDataInterrupted: a call without its result is sent as it
// came, the provider item standing for it (Gemini's call with its
// signature) and the one before it included, with the result NoResult.
func TestProviderDataInterrupted(t *testing.T) {
	recs := []transcript.Record{
		{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Hi"}}},
		{ID: "a", Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"Checking."},
			ToolCalls: []transcript.ToolCall{{ID: "c1", Name: "f", Arguments: `{}`}},
			ProviderData: []transcript.ProviderItem{
				{Provider: "gemini", At: 1, Item: json.RawMessage(`{"functionCall":{"name":"f","args":{}},"thoughtSignature":"sig"}`), Replaces: true},
				{Provider: "gemini", At: 1, Item: json.RawMessage(`{"text":"","thoughtSignature":"before"}`)},
			}}},
	}
	var out strings.Builder
	if err := Render(&out, Request{Provider: "gemini", Messages: recs, Lenient: true}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{`{"text":"","thoughtSignature":"before"},{"functionCall":{"name":"f","args":{}},"thoughtSignature":"sig"}`,
		`{"functionResponse":{"name":"f","response":{"output":"` + NoResult + `"}}}`} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered %s\nwant it to hold %s", got, want)
		}
	}
}

// TestCustomToolCallRoundTrip: a custom tool's call goes back to the API
// that made it as it came (and its result in that API's form for it); to
// any other provider it is a call with arguments {"input": text}.
func TestCustomToolCallRoundTrip(t *testing.T) {
	for _, c := range []struct {
		provider, body string
		want           []string
	}{
		{"openai", `{"id":"c","model":"gpt-5","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"custom","custom":{"name":"code_exec","input":"print(1)"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			[]string{`"tool_calls":[{"id":"call_1","type":"custom","custom":{"name":"code_exec","input":"print(1)"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]`,
				`{"role":"tool","content":"1","tool_call_id":"call_1"}`}},
		{"openai-responses", `{"id":"r","object":"response","status":"completed","model":"gpt-5","output":[{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"code_exec","input":"print(1)"},{"type":"function_call","id":"fc_2","call_id":"call_2","name":"f","arguments":"{}"}]}`,
			[]string{`{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"code_exec","input":"print(1)"},{"type":"function_call","call_id":"call_2","name":"f","arguments":"{}"}`,
				`{"type":"custom_tool_call_output","call_id":"call_1","output":"1"},{"type":"function_call_output","call_id":"call_2","output":"ok"}`}},
	} {
		ans, err := ParseResponse(c.provider, []byte(c.body), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.provider, err)
		}
		recs := []transcript.Record{
			{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Run it."}}},
			ans.Record,
			{ID: "t1", Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "call_1", Contents: []string{"1"}}},
			{ID: "t2", Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "call_2", Contents: []string{"ok"}}},
		}
		for _, p := range []string{c.provider, "anthropic"} {
			var out strings.Builder
			if err := Render(&out, Request{Provider: p, Messages: recs}); err != nil {
				t.Fatalf("%s to %s: %v", c.provider, p, err)
			}
			for _, w := range c.want {
				if got := strings.Contains(out.String(), w); got != (p == c.provider) {
					t.Errorf("%s to %s: %s\nholds %s: %v", c.provider, p, out.String(), w, got)
				}
			}
			if p == "anthropic" && !strings.Contains(out.String(), `{"type":"tool_use","id":"call_1","name":"code_exec","input":{"input":"print(1)"}}`) {
				t.Errorf("%s to anthropic: %s", c.provider, out.String())
			}
		}
	}
}
