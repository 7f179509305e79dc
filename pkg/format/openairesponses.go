package format

// OpenAI Responses API (also served by Ollama at /v1/responses).
//
// Request: https://platform.openai.com/docs/api-reference/responses/create,
// https://platform.openai.com/docs/guides/function-calling?api-mode=responses
// and the CreateResponse/InputItem schemas of github.com/openai/openai-openapi:
//   - the system prompt and the summary are the top-level "instructions",
//     one string (the parts joined by a blank line);
//   - the history is "input", a list of items: a user turn is
//     {"type":"message","role":"user","content":[{"type":"input_text",
//     "text"}...]}, one part per content string; an assistant turn is the
//     easy input message {"role":"assistant","content":"..."} (an input
//     message's content is a string or input_* parts only), or, for a
//     message the Responses API gave, its OutputMessage whole ({"id",
//     "type":"message","role","status","phase","content":[{"type":
//     "output_text","text","annotations":[]}...]}), followed by one
//     {"type":"function_call","call_id","name","arguments"} item per tool
//     call, arguments the stored JSON text byte for byte;
//   - each result is {"type":"function_call_output","call_id","output"},
//     output the content strings joined by a blank line; there is no error
//     flag: an error is told by its text;
//   - --body: {"model","max_output_tokens","temperature","stream","store",
//     "include","tools","text","instructions","input"}. "store": false
//     keeps the conversation where convo keeps it, and "include":
//     ["reasoning.encrypted_content"] asks for the reasoning items a
//     reasoning model needs back on the next turn (see provider data);
//   - tools: "tools":[{"type":"function","name","description","parameters",
//     "strict":false}] (flat, unlike Chat Completions; strict is off because
//     strict mode rejects schemas that do not close every object, and it is
//     on by default here); an answer schema: "text":{"format":{"type":
//     "json_schema","name","schema"}}.
//
// Provider data: a message item's id, status and phase (see
// responsesStub), and a reasoning item of the output ({"type":"reasoning","id",
// "summary","encrypted_content"}) is kept on the record
// (message.provider_data) and sent back as it came, at its place among the
// message and function_call items, to openai-responses only.
//
// Response: https://platform.openai.com/docs/api-reference/responses/object
// output[] of message items (content parts output_text and refusal),
// function_call items, reasoning items and others (custom_tool_call: a call
// of a custom tool, whose "input" is free text, kept as the arguments
// {"input": text}, and sent back as it came, its result as a
// custom_tool_call_output item); status ("completed", "incomplete", "failed"),
// incomplete_details.reason (max_output_tokens, content_filter), error,
// usage (input_tokens, output_tokens), model, id. The finish reason convo
// keeps is the status, or for an incomplete answer its reason. Errors are
// {"error":{"message","type",...}}, and a failed response carries
// "error":{"code","message"}.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// openaiResponses is the provider's registry name.
const openaiResponses = "openai-responses"

type responsesWire struct {
	// custom holds the calls of the last assistant turn that were custom
	// tool calls: their results are custom_tool_call_output items.
	custom map[string]bool
}

func (*responsesWire) objectArgs() bool { return false }

type responsesPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type responsesMessage struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content []responsesPart `json:"content"`
}

type responsesCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type responsesOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type responsesText struct {
	Format responsesFormat `json:"format"`
}

type responsesFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

func (*responsesWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		j.bodySettings(r, "max_output_tokens")
		if r.Stream {
			j.field("stream", true)
		}
		j.raw(`"store":false,"include":["reasoning.encrypted_content"],`)
		responsesTools(j, r.Tools)
		if len(r.Schema) > 0 {
			j.field("text", responsesText{responsesFormat{"json_schema", SchemaNameOf(r.SchemaName), r.Schema}})
		}
		if cm := r.ContextManagement; cm != nil {
			j.fieldRaw(cm.Field, cm.Value)
		}
	}
	if len(system) > 0 {
		j.field("instructions", strings.Join(system, "\n\n"))
	}
	j.openArray("input")
}

// responsesTools writes "tools" in the Responses API's flat form.
func responsesTools(j *jsonWriter, tools []Tool) {
	if len(tools) == 0 {
		return
	}
	out := make([]responsesTool, 0, len(tools))
	for i := range tools {
		t := &tools[i]
		out = append(out, responsesTool{"function", t.Name, t.Description, t.params(), false})
	}
	j.field("tools", out)
}

func responsesParts(kind string, texts []string) []responsesPart {
	parts := make([]responsesPart, 0, len(texts))
	for _, t := range texts {
		parts = append(parts, responsesPart{kind, t})
	}
	return parts
}

func (w *responsesWire) turn(j *jsonWriter, t *Turn) {
	if t.Role == transcript.RoleAssistant {
		clear(w.custom)
		for _, o := range t.Items {
			if o.replaces && o.call != "" && strings.Contains(string(o.item), `"custom_tool_call"`) {
				if w.custom == nil {
					w.custom = map[string]bool{}
				}
				w.custom[o.call] = true
			}
		}
		// Texts in one message, split where provider data stands between
		// them; provider data and calls in their places. A message the
		// Responses API gave goes back whole, as the OutputMessage it was
		// (its id, status and phase kept in a stub before its texts); any
		// other is the easy input form, which takes the text as one string
		// (an input message's content is a string or input_* parts only).
		var texts []string
		var stub *responsesStub
		flush := func() {
			switch {
			case len(texts) == 0:
			case stub != nil:
				j.elem(stub.message(texts))
			default:
				j.elem(responsesEasy{"assistant", strings.Join(texts, "\n\n")})
			}
			texts, stub = nil, nil
		}
		t.walk(func(p piece) {
			switch {
			case p.item != nil:
				flush()
				if s := messageStub(p.item); s != nil {
					stub = s
					return
				}
				j.elem(responsesInput(p.item))
			case p.text >= 0:
				texts = append(texts, t.Texts[p.text])
			default:
				flush()
				c := &t.Calls[p.call]
				args := c.Args
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				j.elem(responsesCall{"function_call", c.ID, c.Name, args})
			}
		})
		flush()
		return
	}
	for _, r := range t.Results {
		kind := "function_call_output"
		if w.custom[r.CallID] {
			kind = "custom_tool_call_output"
		}
		j.elem(responsesOutput{kind, r.CallID, r.Text()})
	}
	if len(t.Texts) > 0 {
		j.elem(responsesMessage{"message", "user", responsesParts("input_text", t.Texts)})
	}
}

func (*responsesWire) close(j *jsonWriter) { j.raw("]}") }

// responsesEasy is the easy input form of a message: content one string.
type responsesEasy struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// responsesItem is one output item, with the fields of every type convo
// reads.
type responsesItem struct {
	Type      string             `json:"type"`
	ID        string             `json:"id"`
	Status    string             `json:"status"`
	Phase     *string            `json:"phase"`
	Role      string             `json:"role"`
	Content   []responsesContent `json:"content"`
	CallID    string             `json:"call_id"`
	Name      string             `json:"name"`
	Arguments string             `json:"arguments"`
	Input     string             `json:"input"`
}

type responsesContent struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

func parseOpenAIResponses(body []byte) (*answer, error) {
	var resp struct {
		CreatedAt         json.RawMessage   `json:"created_at"`
		ID                string            `json:"id"`
		Object            string            `json:"object"`
		Model             string            `json:"model"`
		Status            string            `json:"status"`
		Output            []json.RawMessage `json:"output"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := unmarshal(openaiResponses, body, &resp); err != nil {
		return nil, err
	}
	if resp.Error != nil && (resp.Status == "failed" || resp.Object != "response") {
		msg := resp.Error.Message
		if msg == "" {
			msg = resp.Error.Code
		}
		if msg == "" {
			msg = "the response failed"
		}
		return nil, &ProviderError{Provider: openaiResponses, Message: msg}
	}
	if resp.Object != "" && resp.Object != "response" && resp.Object != "response.compaction" {
		return nil, shapeError(openaiResponses, "object is %q, want \"response\" or \"response.compaction\"", resp.Object)
	}
	if resp.Output == nil {
		return nil, shapeError(openaiResponses, "no output")
	}
	if resp.Object == "response.compaction" {
		// POST /responses/compact: the output, user messages and the
		// compaction item, is what goes back in place of the input.
		return compactionAnswer(resp.Model, resp.ID, resp.Usage, resp.CreatedAt, resp.Output)
	}
	a := &answer{model: resp.Model, responseID: resp.ID, finish: resp.Status, usage: resp.Usage, created: createdAt(resp.CreatedAt)}
	if resp.Status == "incomplete" {
		a.cut = true
		if d := resp.IncompleteDetails; d != nil && d.Reason != "" {
			a.finish = d.Reason
		}
	}
	var u struct {
		In  int `json:"input_tokens"`
		Out int `json:"output_tokens"`
	}
	if json.Unmarshal(resp.Usage, &u) == nil {
		a.in, a.out = u.In, u.Out
	}
	for _, raw := range resp.Output {
		if err := a.readItem(raw); err != nil {
			return nil, err
		}
	}
	if a.refusal != "" {
		// kept as the text too, for a caller that stores it anyway
		a.texts = append(a.texts, a.refusal)
	}
	return a, nil
}

// compactionAnswer is the answer of POST /responses/compact: its output,
// which must hold a compaction item and items only.
func compactionAnswer(model, id string, usage, created json.RawMessage, output []json.RawMessage) (*answer, error) {
	a := &answer{model: model, responseID: id, usage: usage, created: createdAt(created),
		compaction: output, compactionAlone: true}
	if !slices.ContainsFunc(output, func(raw json.RawMessage) bool { return itemType(raw) == "compaction" }) {
		return nil, shapeError(openaiResponses, "a response.compaction without a compaction item")
	}
	for i, raw := range output {
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
			return nil, shapeError(openaiResponses, "output[%d]: not an item", i)
		}
	}
	return a, nil
}

// readItem reads one output item into a.
func (a *answer) readItem(raw json.RawMessage) error {
	var it responsesItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return shapeError(openaiResponses, "output item: %v", err)
	}
	switch it.Type {
	case "message":
		if it.ID != "" && slices.ContainsFunc(it.Content, func(c responsesContent) bool { return c.Type == "output_text" && c.Text != "" }) {
			// (a message without text, a refusal, has nothing to send back)
			stub, _ := marshalNoEscape(responsesStub{"message", it.ID, it.Status, it.Phase})
			a.keepBeforeText(stub, len(a.texts))
		}
		for _, c := range it.Content {
			switch c.Type {
			case "output_text":
				if c.Text != "" {
					a.texts = append(a.texts, c.Text)
				}
			case "refusal":
				a.refusal += c.Refusal
			}
		}
	case "function_call":
		a.calls = append(a.calls, transcript.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
	case "custom_tool_call":
		a.keepForCall(raw) // goes back to the Responses API as it came
		args, _ := marshalNoEscape(map[string]string{"input": it.Input})
		a.calls = append(a.calls, transcript.ToolCall{ID: it.CallID, Name: it.Name, Arguments: string(args)})
	case "reasoning":
		a.keep(raw)
	case "compaction":
		// context_management compaction: encrypted, sent back in
		// place of what it summarised (compaction.go).
		a.compaction = append(a.compaction, raw)
	}
	// Other items (web_search_call, file_search_call...) ran on
	// OpenAI's side and need nothing back.
	return nil
}
