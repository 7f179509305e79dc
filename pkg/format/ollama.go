package format

// Ollama /api/chat.
//
// Request: https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
// and the Message/ToolCall types of github.com/ollama/ollama/api:
//   - the system prompt is the first message, {"role":"system","content"};
//   - content is one string, contents joined by a blank line;
//   - an assistant tool call is {"function":{"name","arguments"}} under
//     "tool_calls", arguments a JSON object (not a string, unlike OpenAI);
//   - each result is a {"role":"tool","content","tool_name"} message; there
//     is neither a call id to match nor an error flag, so results follow
//     their calls in order and an error is told by its text;
//   - --body: {"model","stream","options":{"num_predict","temperature"},
//     "tools","format","messages"}; stream is false unless asked for,
//     because Ollama streams by default and append --from reads one body;
//   - tools: "tools" as openai's; an answer schema: "format": the schema
//     (https://github.com/ollama/ollama/blob/main/docs/api.md#request-with-structured-outputs).
//
// Response: the same page, "Chat request (No streaming)" and "(with tools)":
// message.{content,tool_calls}, done, done_reason (see ollamaCut),
// model, and the counters prompt_eval_count, eval_count, total_duration...
// kept as usage; errors are {"error": "..."}. Tool calls carry no id: one is
// made up for each.

import (
	"encoding/json"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

type ollamaWire struct{}

func (ollamaWire) objectArgs() bool { return true }

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

type ollamaToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type ollamaOptions struct {
	NumPredict  int      `json:"num_predict,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

func (ollamaWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		j.field("model", r.Model)
		j.field("stream", r.Stream)
		if r.MaxTokens > 0 || r.Temperature != nil {
			j.field("options", ollamaOptions{r.MaxTokens, r.Temperature})
		}
		functionTools(j, r.Tools)
		if len(r.Schema) > 0 {
			j.fieldRaw("format", r.Schema)
		}
	}
	j.openArray("messages")
	if len(system) > 0 {
		j.elem(ollamaMessage{Role: "system", Content: strings.Join(system, "\n\n")})
	}
}

func (ollamaWire) turn(j *jsonWriter, t *Turn) {
	if t.Role == transcript.RoleAssistant {
		m := ollamaMessage{Role: "assistant", Content: strings.Join(t.Texts, "\n\n")}
		for _, c := range t.Calls {
			var tc ollamaToolCall
			tc.Function.Name, tc.Function.Arguments = c.Name, c.Input
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		j.elem(m)
		return
	}
	for _, r := range t.Results {
		j.elem(ollamaMessage{Role: "tool", Content: r.Text(), ToolName: r.Name})
	}
	if len(t.Texts) > 0 {
		j.elem(ollamaMessage{Role: "user", Content: strings.Join(t.Texts, "\n\n")})
	}
}

func (ollamaWire) close(j *jsonWriter) { j.raw("]}") }

// ollamaCut is the finish-reason table: done_reason "length" (num_predict
// reached) means cut; stop, and load or unload for an empty request, are
// normal ends.
func ollamaCut(reason string) bool { return reason == "length" }

func parseOllama(body []byte) (*answer, error) {
	if err := errorBody("ollama", body); err != nil {
		return nil, err
	}
	var resp struct {
		Model   string `json:"model"`
		Message *struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		Done       bool            `json:"done"`
		DoneReason string          `json:"done_reason"`
		CreatedAt  json.RawMessage `json:"created_at"`
	}
	if err := unmarshal("ollama", body, &resp); err != nil {
		return nil, err
	}
	if resp.Message == nil {
		return nil, shapeError("ollama", "no message")
	}
	if !resp.Done {
		return nil, shapeError("ollama", `"done" is false: a streamed chunk? ask with "stream": false`)
	}
	a := &answer{model: resp.Model, finish: resp.DoneReason, cut: ollamaCut(resp.DoneReason), created: createdAt(resp.CreatedAt)}
	if resp.Message.Content != "" {
		a.texts = append(a.texts, resp.Message.Content)
	}
	for _, c := range resp.Message.ToolCalls {
		args := compactArgs(c.Function.Arguments)
		if s := []byte(args); len(s) > 0 && s[0] == '"' { // some builds send a JSON string
			var str string
			if json.Unmarshal(s, &str) == nil {
				args = str
			}
		}
		a.calls = append(a.calls, transcript.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
	}
	// Ollama has no usage object: its counters stand at the top level.
	var counters map[string]json.RawMessage
	_ = json.Unmarshal(body, &counters)
	usage := map[string]json.RawMessage{}
	for _, k := range []string{"prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration", "eval_duration"} {
		if v, ok := counters[k]; ok {
			usage[k] = v
		}
	}
	if len(usage) > 0 {
		a.usage, _ = json.Marshal(usage)
	}
	_ = json.Unmarshal(usage["prompt_eval_count"], &a.in)
	_ = json.Unmarshal(usage["eval_count"], &a.out)
	return a, nil
}
