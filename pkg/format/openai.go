package format

// OpenAI Chat Completions.
//
// Request: https://platform.openai.com/docs/api-reference/chat/create and
// https://platform.openai.com/docs/guides/function-calling
//   - the system prompt is the first message, {"role":"system","content":...};
//   - an assistant message with tool calls has
//     "tool_calls":[{"id","type":"function","function":{"name","arguments"}}],
//     arguments being the JSON text as the model wrote it (kept byte for
//     byte), and "content": null when it has no text;
//   - each result is its own {"role":"tool","tool_call_id","content"} message,
//     right after the assistant message; the API has no error flag, so an
//     error result is told by its text;
//   - content is one string (contents joined by a blank line), which every
//     OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1) accepts;
//   - --body: {"model","max_completion_tokens","temperature","stream",
//     "stream_options","tools","response_format","messages"};
//     max_completion_tokens replaces the deprecated max_tokens, and every
//     current OpenAI-compatible server (vLLM, llama.cpp) takes it too; a
//     stream asks for the usage in its last chunk (stream_options
//     include_usage);
//   - tools: "tools":[{"type":"function","function":{"name","description",
//     "parameters"}}] (https://platform.openai.com/docs/guides/function-calling);
//   - an answer schema: "response_format":{"type":"json_schema",
//     "json_schema":{"name","schema"}}
//     (https://platform.openai.com/docs/guides/structured-outputs); "strict"
//     is left unset, since strict mode rejects schemas that do not close
//     every object: the answer is validated locally anyway.
//
// Response: https://platform.openai.com/docs/api-reference/chat/object
// choices[0].message.{content,refusal,tool_calls}, a tool call being a
// function call or a custom tool's {"id","type":"custom","custom":{"name",
// "input"}} (https://platform.openai.com/docs/guides/function-calling#custom-tools),
// whose free-form input becomes the arguments {"input": text} and which
// goes back to openai as it came (provider data); choices[0].finish_reason
// (see openaiCut), usage, model, id; a refusal (message.refusal) is an
// incomplete answer whatever the finish reason; errors are
// {"error":{"message","type",...}}.

import (
	"encoding/json"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

type openaiWire struct{}

func (openaiWire) objectArgs() bool { return false }

type openaiFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// The messages are written by hand, not through encoding/json: openai is the
// format a long stored conversation is most often rendered in, and this
// keeps render close to the cost of reading the store (see
// BenchmarkRenderOpenAI). Key order: role, content, tool_calls, tool_call_id.

func (openaiWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		j.bodySettings(r, "max_completion_tokens")
		if r.Stream {
			j.raw(`"stream":true,"stream_options":{"include_usage":true},`)
		}
		functionTools(j, r.Tools)
		if len(r.Schema) > 0 {
			j.field("response_format", openaiResponseFormat{
				JSONSchema: openaiJSONSchema{SchemaNameOf(r.SchemaName), r.Schema}, Type: "json_schema"})
		}
	}
	j.openArray("messages")
	if len(system) > 0 {
		b := append(j.scratch[:0], `{"role":"system","content":`...)
		j.elemBytes(append(appendJoined(b, system), '}'))
	}
}

func (openaiWire) turn(j *jsonWriter, t *Turn) {
	if t.Role == transcript.RoleAssistant {
		b := append(j.scratch[:0], `{"role":"assistant","content":`...)
		if len(t.Texts) > 0 {
			b = appendJoined(b, t.Texts)
		} else {
			b = append(b, "null"...)
		}
		if len(t.Calls) > 0 {
			b = append(b, `,"tool_calls":[`...)
			for i, c := range t.Calls {
				if i > 0 {
					b = append(b, ',')
				}
				if item := t.replacement(c.ID); item != nil {
					b = append(b, item...) // a custom tool call, as it came
					continue
				}
				args := c.Args
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				b = append(b, `{"id":`...)
				b = transcript.AppendString(b, c.ID)
				b = append(b, `,"type":"function","function":{"name":`...)
				b = transcript.AppendString(b, c.Name)
				b = append(b, `,"arguments":`...)
				b = transcript.AppendString(b, args)
				b = append(b, "}}"...)
			}
			b = append(b, ']')
		}
		j.elemBytes(append(b, '}'))
		return
	}
	for _, r := range t.Results {
		b := append(j.scratch[:0], `{"role":"tool","content":`...)
		b = appendJoined(b, r.Texts)
		b = append(b, `,"tool_call_id":`...)
		b = transcript.AppendString(b, r.CallID)
		j.elemBytes(append(b, '}'))
	}
	if len(t.Texts) > 0 {
		b := append(j.scratch[:0], `{"role":"user","content":`...)
		j.elemBytes(append(appendJoined(b, t.Texts), '}'))
	}
}

func (openaiWire) close(j *jsonWriter) { j.raw("]}") }

type openaiResponseFormat struct {
	JSONSchema openaiJSONSchema `json:"json_schema"`
	Type       string           `json:"type"`
}

type openaiJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// functionTool is a tool as openai and ollama take it.
type functionTool struct {
	Type     string       `json:"type"`
	Function functionDecl `json:"function"`
}

type functionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// functionTools writes "tools" in the form openai and ollama share.
func functionTools(j *jsonWriter, tools []Tool) {
	if len(tools) == 0 {
		return
	}
	out := make([]functionTool, 0, len(tools))
	for i := range tools {
		t := &tools[i]
		out = append(out, functionTool{"function", functionDecl{t.Name, t.Description, t.params()}})
	}
	j.field("tools", out)
}

// openaiCut is the finish-reason table: length (the output limit) and
// content_filter mean the answer was cut; stop, tool_calls and
// function_call are normal ends.
func openaiCut(reason string) bool { return reason == "length" || reason == "content_filter" }

func parseOpenAI(body []byte) (*answer, error) {
	if err := errorBody("openai", body); err != nil {
		return nil, err
	}
	var resp struct {
		ID      string          `json:"id"`
		Created json.RawMessage `json:"created"`
		Model   string          `json:"model"`
		Choices []struct {
			Message struct {
				Content   *string           `json:"content"`
				Refusal   *string           `json:"refusal"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := unmarshal("openai", body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, shapeError("openai", "no choices")
	}
	ch := resp.Choices[0]
	a := &answer{model: resp.Model, responseID: resp.ID, finish: ch.FinishReason, usage: resp.Usage, cut: openaiCut(ch.FinishReason),
		created: createdAt(resp.Created)}
	var u struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
	}
	if json.Unmarshal(resp.Usage, &u) == nil {
		a.in, a.out = u.Prompt, u.Completion
	}
	if s := ch.Message.Content; s != nil && *s != "" {
		a.texts = append(a.texts, *s)
	}
	if s := ch.Message.Refusal; s != nil && *s != "" {
		// kept as the text too, for a caller that stores it anyway
		a.refusal = *s
		a.texts = append(a.texts, *s)
	}
	for i, raw := range ch.Message.ToolCalls {
		var c struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
			Custom struct {
				Name  string `json:"name"`
				Input string `json:"input"`
			} `json:"custom"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, shapeError("openai", "tool_calls[%d]: %v", i, err)
		}
		if c.Type == "custom" {
			// A custom tool's free-form input: the arguments {"input": text}
			// for every provider, and the call as it came for openai.
			a.keepForCall(raw)
			args, _ := marshalNoEscape(map[string]string{"input": c.Custom.Input})
			a.calls = append(a.calls, transcript.ToolCall{ID: c.ID, Name: c.Custom.Name, Arguments: string(args)})
			continue
		}
		a.calls = append(a.calls, transcript.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return a, nil
}
