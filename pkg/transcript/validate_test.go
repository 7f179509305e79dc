package transcript

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestValidateUTF8: a record whose text is not valid UTF-8 is refused, the
// field named, whichever way it came (a flag, a provider, a subprocess).
func TestValidateUTF8(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Record)
	}{
		{"conversation", func(r *Record) { r.Conversation = "a\xffb" }},
		{"message.contents[1]", func(r *Record) { r.Message.Contents = []string{"ok", "bad \xc3"} }},
		{"message.tool_calls[0]", func(r *Record) {
			r.Message.Role = RoleAssistant
			r.Message.ToolCalls = []ToolCall{{ID: "c1", Name: "f", Arguments: "{\"a\":\"\xff\"}"}}
		}},
		{"message.tool_call_id", func(r *Record) { r.Message.Role, r.Message.ToolCallID = RoleTool, "c\xff" }},
		{"metadata.aux.k", func(r *Record) { r.Metadata.Aux = map[string]json.RawMessage{"k": json.RawMessage("\"\xff\"")} }},
	} {
		r := Record{Message: Message{Role: RoleUser, Contents: []string{"hi"}}}
		tc.edit(&r)
		err := Validate(&r)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != tc.field || !strings.Contains(err.Error(), "invalid UTF-8") {
			t.Errorf("%s: err = %v", tc.field, err)
		}
	}
}

// TestAppendStringInvalidUTF8: whatever slips past the checks, the encoder
// never writes invalid JSON.
func TestAppendStringInvalidUTF8(t *testing.T) {
	got := string(AppendString(nil, "a\xffb\xc3"))
	if got != `"a\ufffdb\ufffd"` {
		t.Errorf("AppendString = %q", got)
	}
	var s string
	if err := json.Unmarshal([]byte(got), &s); err != nil {
		t.Error(err)
	}
}
