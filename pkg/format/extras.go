package format

// Request fields a transcript does not hold, for ask: the tools the model may
// call and the JSON Schema its answer must match (structured output). Each
// provider takes them in its own form:
//
//   - openai: "tools":[{"type":"function","function":{"name","description",
//     "parameters"}}] and "response_format":{"type":"json_schema",
//     "json_schema":{"name","schema"}}
//     (https://platform.openai.com/docs/guides/structured-outputs); "strict"
//     is left unset, since strict mode rejects schemas that do not close
//     every object: the answer is validated locally anyway;
//   - anthropic: "tools":[{"name","description","input_schema"}]; a schema
//     becomes one more tool, AnswerTool, whose input is the answer, and
//     "tool_choice":{"type":"tool","name":AnswerTool} forces the model to
//     call it (https://docs.anthropic.com/en/docs/build-with-claude/tool-use#json-mode);
//     UnwrapAnswer turns that call back into the answer's text. Its input
//     must be an object, so the schema must describe one;
//   - gemini: "tools":[{"functionDeclarations":[{"name","description",
//     "parametersJsonSchema"}]}] and generationConfig "responseMimeType":
//     "application/json" with "responseJsonSchema"
//     (https://ai.google.dev/gemini-api/docs/structured-output);
//   - ollama: "tools" as openai's, and "format": the schema
//     (https://github.com/ollama/ollama/blob/main/docs/api.md#request-with-structured-outputs).
//
// A schema's top-level "$schema" (its dialect, 2020-12 here) is left out of
// what the provider is sent: some reject keywords they do not know.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Tool is a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object; nil takes none.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// Extras are the request fields of a call that the transcript does not hold.
type Extras struct {
	Tools []Tool
	// Schema is the JSON Schema the answer must match; nil for free text.
	Schema json.RawMessage
	// SchemaName names the schema where the provider wants a name (openai).
	SchemaName string
}

// AnswerTool is the tool anthropic is forced to call to give a structured
// answer: its input is the answer.
const AnswerTool = "structured_answer"

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// SchemaNameOf makes a name providers accept (letters, digits, _ and -, at
// most 64) of s, "answer" when nothing is left.
func SchemaNameOf(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
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

// AddExtras returns body, a request body rendered for provider with
// Options.Body, with the tools and the answer schema of x added.
func AddExtras(provider string, body []byte, x Extras) ([]byte, error) {
	if len(x.Tools) == 0 && len(x.Schema) == 0 {
		return body, nil
	}
	for _, t := range x.Tools {
		if !toolName.MatchString(t.Name) {
			return nil, fmt.Errorf("tool name %q: want 1 to 64 letters, digits, _ or -", t.Name)
		}
		if provider == "anthropic" && t.Name == AnswerTool && len(x.Schema) > 0 {
			return nil, fmt.Errorf("tool name %q is taken by the structured answer", t.Name)
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	var schema json.RawMessage
	if len(x.Schema) > 0 {
		var err error
		if schema, err = providerSchema(x.Schema); err != nil {
			return nil, err
		}
	}
	set := func(key string, v any) error {
		b, err := marshalNoEscape(v)
		top[key] = b
		return err
	}
	params := func(t Tool) json.RawMessage {
		if len(t.Parameters) == 0 {
			return json.RawMessage(`{"type":"object","properties":{}}`)
		}
		return t.Parameters
	}
	var err error
	switch provider {
	case "openai", "ollama":
		if len(x.Tools) > 0 {
			type fn struct {
				Name        string          `json:"name"`
				Description string          `json:"description,omitempty"`
				Parameters  json.RawMessage `json:"parameters"`
			}
			type tool struct {
				Type     string `json:"type"`
				Function fn     `json:"function"`
			}
			var tools []tool
			for _, t := range x.Tools {
				tools = append(tools, tool{"function", fn{t.Name, t.Description, params(t)}})
			}
			err = set("tools", tools)
		}
		if err == nil && schema != nil {
			if provider == "ollama" {
				err = set("format", schema)
			} else {
				err = set("response_format", map[string]any{
					"type":        "json_schema",
					"json_schema": map[string]any{"name": SchemaNameOf(x.SchemaName), "schema": schema},
				})
			}
		}
	case "anthropic":
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		var tools []tool
		for _, t := range x.Tools {
			tools = append(tools, tool{t.Name, t.Description, params(t)})
		}
		if schema != nil {
			if !objectSchema(schema) {
				return nil, fmt.Errorf("anthropic gives a structured answer as a tool's input, which is an object: the schema must describe an object")
			}
			tools = append(tools, tool{AnswerTool, "Give your answer by calling this tool: its input is the answer.", schema})
			if err = set("tool_choice", map[string]string{"type": "tool", "name": AnswerTool}); err != nil {
				return nil, err
			}
		}
		err = set("tools", tools)
	case "gemini":
		if len(x.Tools) > 0 {
			type decl struct {
				Name                 string          `json:"name"`
				Description          string          `json:"description,omitempty"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
			}
			var decls []decl
			for _, t := range x.Tools {
				decls = append(decls, decl{t.Name, t.Description, t.Parameters})
			}
			err = set("tools", []map[string]any{{"functionDeclarations": decls}})
		}
		if err == nil && schema != nil {
			gen := map[string]json.RawMessage{}
			if g, ok := top["generationConfig"]; ok {
				if err := json.Unmarshal(g, &gen); err != nil {
					return nil, fmt.Errorf("generationConfig: %w", err)
				}
			}
			gen["responseMimeType"] = json.RawMessage(`"application/json"`)
			gen["responseJsonSchema"] = schema
			err = set("generationConfig", gen)
		}
	default:
		return nil, fmt.Errorf("%s: tools and answer schemas are not supported", provider)
	}
	if err != nil {
		return nil, err
	}
	return marshalNoEscape(top)
}

// providerSchema is the schema as providers are sent it: compact, without
// its top-level "$schema".
func providerSchema(schema json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(schema, &m); err != nil {
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
// text before it), and the call goes. It reports whether rec held such a call. Other providers' answers
// are left as they are.
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

// Refusal returns the refusal an openai response body carries
// (choices[0].message.refusal: the model declined, typically under a
// response schema), "" when there is none. ParseResponse keeps a refusal as
// the answer's text; a caller that wants the structured answer treats it as
// an incomplete one.
func Refusal(provider string, body []byte) string {
	if provider != "openai" {
		return ""
	}
	var r struct {
		Choices []struct {
			Message struct {
				Refusal *string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &r) != nil || len(r.Choices) == 0 || r.Choices[0].Message.Refusal == nil {
		return ""
	}
	return *r.Choices[0].Message.Refusal
}
