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
//   - --body: {"model","max_completion_tokens","temperature","messages"};
//     max_completion_tokens replaces the deprecated max_tokens.
//
// Response: https://platform.openai.com/docs/api-reference/chat/object
// choices[0].message.{content,refusal,tool_calls}, choices[0].finish_reason
// (stop, tool_calls, function_call; length and content_filter mean cut),
// usage, model, id; errors are {"error":{"message","type",...}}.

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

func (openaiWire) open(j *jsonWriter, o *Options, system []string) {
	j.raw("{")
	if o.Body {
		j.bodySettings(o, "max_completion_tokens", o.MaxTokens)
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

func parseOpenAI(body []byte, _ func() string) (*answer, error) {
	if msg, ok := errorMessage(body); ok {
		return nil, &ProviderError{"openai", msg}
	}
	var resp struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				Refusal   *string `json:"refusal"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
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
	a := &answer{model: resp.Model, responseID: resp.ID, finish: ch.FinishReason, usage: resp.Usage}
	a.cut = ch.FinishReason == "length" || ch.FinishReason == "content_filter"
	for _, s := range []*string{ch.Message.Content, ch.Message.Refusal} {
		if s != nil && *s != "" {
			a.texts = append(a.texts, *s)
		}
	}
	for _, c := range ch.Message.ToolCalls {
		a.calls = append(a.calls, transcript.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return a, nil
}
