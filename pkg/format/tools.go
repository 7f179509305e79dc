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
)

// Tool is a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object; nil takes none.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// ParseTools reads tool definitions: a JSON array of
// {"name","description","parameters"}, each possibly in OpenAI's
// {"type":"function","function":{...}} form or with Anthropic's
// "input_schema" for "parameters".
func ParseTools(data []byte) ([]Tool, error) {
	var list []struct {
		Tool
		Function    *Tool           `json:"function"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("want a JSON array of tools: %w", err)
	}
	tools := make([]Tool, 0, len(list))
	for i, t := range list {
		tool := t.Tool
		if t.Function != nil {
			tool = *t.Function
		}
		if len(tool.Parameters) == 0 {
			tool.Parameters = t.InputSchema
		}
		if tool.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i+1)
		}
		if !validToolName(tool.Name) {
			return nil, fmt.Errorf("tool %d: name %q: want 1 to 64 letters, digits, _ or -", i+1, tool.Name)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// params is the tool's parameters schema, an empty object schema for none:
// providers that require one get that.
func (t *Tool) params() json.RawMessage {
	if len(t.Parameters) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return t.Parameters
}

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

// marshalNoEscape is json.Marshal without HTML escaping: a body keeps the
// text the model wrote byte for byte.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
