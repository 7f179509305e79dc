package format

// Request fields a transcript does not hold, for ask: the tools the model may
// call and the JSON Schema its answer must match (structured output). Each
// provider's file writes them in its own form; this file holds what they
// share. A schema's top-level "$schema" (its dialect, 2020-12 here) is left
// out of what the provider is sent: some reject keywords they do not know.

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Tool is a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object; nil takes none.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// params is the tool's parameters schema, an empty object schema for none:
// providers that require one get that.
func (t *Tool) params() json.RawMessage {
	if len(t.Parameters) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return t.Parameters
}

// AnswerTool is the tool anthropic is forced to call to give a structured
// answer: its input is the answer.
const AnswerTool = "structured_answer"

// validToolName: 1 to 64 letters, digits, _ or -, what every provider takes.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// SchemaNameOf makes a name providers accept (letters, digits, _ and -, at
// most 64) of s, "answer" when nothing is left.
func SchemaNameOf(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !nameByte(c) {
			b[i] = '_'
		}
	}
	b = bytes.Trim(b, "_")
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "answer"
	}
	return string(b)
}

// providerSchema is the schema as providers are sent it: compact, without
// its top-level "$schema".
func providerSchema(schema json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(schema, &m); err != nil || m == nil {
		// true, false: schemas too, but no provider takes them.
		return nil, fmt.Errorf("the schema is not a JSON object")
	}
	delete(m, "$schema")
	return marshalNoEscape(m)
}

// objectSchema reports whether schema can only describe an object: its
// "type" is "object", or it has "properties" and no "type".
func objectSchema(schema json.RawMessage) bool {
	var s struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	if len(s.Type) == 0 {
		return len(s.Properties) > 0
	}
	return string(s.Type) == `"object"`
}

func marshalNoEscape(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// UnwrapAnswer turns anthropic's forced AnswerTool call back into the
// answer: its input becomes the record's one content string (replacing any
// text before it), and the call goes. It reports whether rec held such a
// call. Other providers' answers are left as they are.
func UnwrapAnswer(provider string, rec *transcript.Record) bool {
	if provider != "anthropic" {
		return false
	}
	m := &rec.Message
	for i, c := range m.ToolCalls {
		if c.Name == AnswerTool {
			m.Contents = []string{c.Arguments}
			m.ToolCalls = append(m.ToolCalls[:i:i], m.ToolCalls[i+1:]...)
			if len(m.ToolCalls) == 0 {
				m.ToolCalls = nil
			}
			return true
		}
	}
	return false
}
