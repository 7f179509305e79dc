package format

// Vercel AI SDK ModelMessage (the `ai` package, v5 and later).
//
// https://ai-sdk.dev/docs/reference/ai-sdk-core/model-message and the
// TextPart/ToolCallPart/ToolResultPart types of @ai-sdk/provider-utils
// (packages/provider-utils/src/types/content-part.ts):
//   - the system prompt is the top-level "system" string of generateText /
//     streamText (the docs recommend it over a system message);
//   - user and assistant content is a list of parts: {"type":"text","text"}
//     per content string, and {"type":"tool-call","toolCallId","toolName",
//     "input"} with input a JSON object;
//   - results are one {"role":"tool"} message after the assistant message,
//     holding a {"type":"tool-result","toolCallId","toolName","output"} part
//     per result; output is {"type":"text","value"} or, for a failed tool,
//     {"type":"error-text","value"}, the content strings joined;
//   - --body: the generateText options as JSON, {"model","maxOutputTokens",
//     "temperature","tools","system","messages"};
//   - tools: {"name":{"description","inputSchema"}}, the schema plain JSON
//     Schema, what jsonSchema() takes
//     (https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling). It is
//     no ToolSet as it stands (generateText throws "schema is not a
//     function"): a payload is JSON, and the caller wraps each schema
//     (examples/vercel-tools.mjs, tested by TestVercelToolsExample); no
//     answer schema.
//
// vercel renders no response: the SDK returns objects, not a wire body.

import (
	"encoding/json"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

type vercelWire struct{}

func (vercelWire) objectArgs() bool { return true }

type vercelMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type vercelToolCall struct {
	Type       string          `json:"type"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
}

type vercelToolResult struct {
	Type       string       `json:"type"`
	ToolCallID string       `json:"toolCallId"`
	ToolName   string       `json:"toolName"`
	Output     vercelOutput `json:"output"`
}

type vercelOutput struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

func (vercelWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		j.bodySettings(r, "maxOutputTokens")
	}
	if len(r.Tools) > 0 {
		// name -> {description, inputSchema}, the schema the JSON Schema
		// the caller wraps in jsonSchema() to make a ToolSet.
		j.raw(`"tools":{`)
		for i := range r.Tools {
			t := &r.Tools[i]
			if i > 0 {
				j.raw(",")
			}
			j.value(t.Name)
			j.raw(":")
			j.value(struct {
				Description string          `json:"description,omitempty"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}{t.Description, t.params()})
		}
		j.raw("},")
	}
	if len(system) > 0 {
		j.field("system", strings.Join(system, "\n\n"))
	}
	j.openArray("messages")
}

func (vercelWire) turn(j *jsonWriter, t *Turn) {
	if len(t.Results) > 0 {
		m := vercelMessage{Role: "tool"}
		for _, r := range t.Results {
			out := vercelOutput{"text", r.Text()}
			if r.IsError {
				out.Type = "error-text"
			}
			m.Content = append(m.Content, vercelToolResult{"tool-result", r.CallID, r.Name, out})
		}
		j.elem(m)
	}
	if len(t.Texts)+len(t.Calls) == 0 {
		return
	}
	m := vercelMessage{Role: string(t.Role), Content: textParts(t.Texts)}
	if t.Role == transcript.RoleAssistant {
		for _, c := range t.Calls {
			m.Content = append(m.Content, vercelToolCall{"tool-call", c.ID, c.Name, c.Input})
		}
	}
	j.elem(m)
}

func (vercelWire) close(j *jsonWriter) { j.raw("]}") }
