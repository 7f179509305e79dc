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

// TestProviderDataLenientDrop: a call a lenient render drops takes the
// provider item standing for it along; one placed before it stays.
func TestProviderDataLenientDrop(t *testing.T) {
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
	if strings.Contains(got, `"sig"`) || !strings.Contains(got, `"before"`) || strings.Contains(got, "functionCall") {
		t.Errorf("rendered %s", got)
	}
}
