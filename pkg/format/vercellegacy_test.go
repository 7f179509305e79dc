package format

import (
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// TestVercelLegacyIDs: every message carries an id, as the AI SDK's legacy
// Message type requires: the record's.
func TestVercelLegacyIDs(t *testing.T) {
	recs := []transcript.Record{
		{ID: "01JRZJ166J2WRMF990535EVSQS", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Roll twice."}}},
		{ID: "01JRZJ166J2WRMF990535EVSQT", Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"Rolling."},
			ToolCalls: []transcript.ToolCall{{ID: "c1", Name: "roll", Arguments: "{}"}, {ID: "c2", Name: "roll", Arguments: "{}"}}}},
		{ID: "01JRZJ166J2WRMF990535EVSQV", Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "c1", Contents: []string{"4"}}},
		{ID: "01JRZJ166J2WRMF990535EVSQW", Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "c2", Contents: []string{"2"}}},
	}
	var out strings.Builder
	if err := Render(&out, Request{Provider: "vercel-legacy", System: []string{"Be fair."}, Messages: recs}); err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"id":"system","role":"system","content":"Be fair."},` +
		`{"id":"01JRZJ166J2WRMF990535EVSQS","role":"user","content":"Roll twice."},` +
		`{"id":"01JRZJ166J2WRMF990535EVSQT","role":"assistant","content":"Rolling.","function_call":{"name":"roll","arguments":"{}"}},` +
		`{"id":"01JRZJ166J2WRMF990535EVSQV","role":"function","content":"4","name":"roll"},` +
		`{"id":"01JRZJ166J2WRMF990535EVSQT-2","role":"assistant","content":"","function_call":{"name":"roll","arguments":"{}"}},` +
		`{"id":"01JRZJ166J2WRMF990535EVSQW","role":"function","content":"2","name":"roll"}]}` + "\n"
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
}
