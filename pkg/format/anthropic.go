package format

// Anthropic Messages API.
//
// Request: https://docs.anthropic.com/en/api/messages and
// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
//   - the system prompt is the top-level "system", here a list of text blocks
//     (one per content string, the summary its own block);
//   - messages alternate strictly user/assistant, the first from the user;
//   - an assistant tool call is {"type":"tool_use","id","name","input"},
//     input a JSON object parsed from the stored arguments;
//   - every tool_result answering one assistant message goes in the single
//     user message after it, the tool_result blocks first and any user text
//     after them, with "is_error": true on a failed tool;
//   - text blocks are never empty ("text content blocks must be non-empty");
//   - --body: {"model","max_tokens","temperature","stream","tools",
//     "tool_choice","system","messages"}; max_tokens is required, the
//     registry's default (4096) when not given. A request whose history
//     holds tool_use blocks must also define "tools", which a transcript
//     does not know: give them (ask --tools) or add them to the body;
//   - tools: "tools":[{"name","description","input_schema"}]; an answer
//     schema becomes one more tool, AnswerTool, whose input is the answer,
//     and "tool_choice":{"type":"tool","name":AnswerTool} forces the model to
//     call it (https://docs.anthropic.com/en/docs/build-with-claude/tool-use#json-mode);
//     UnwrapAnswer turns that call back into the answer's text. Its input
//     must be an object, so the schema must describe one.
//
// Provider data: thinking blocks {"type":"thinking","thinking",
// "signature"} and {"type":"redacted_thinking","data"}
// (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking:
// "pass thinking blocks back to the API unmodified", required in a tool use
// loop), and server tool blocks (server_tool_use, web_search_tool_result...)
// are kept on the record (message.provider_data) and sent back in their
// places, to anthropic only.
//
// Response: https://docs.anthropic.com/en/api/messages (Response)
// content[] of text and tool_use blocks, stop_reason (see anthropicCut),
// usage, model, id; errors are {"type":"error","error":{"type","message"}}.

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// anthropicVersions are the anthropic-version values a body is written
// for (https://docs.anthropic.com/en/api/versioning), the default first.
// 2026-10-21, which @anthropic-ai/sdk 1.14 sends, has no temperature in its
// request type (MessageCreateParams); the rest of what convo writes
// (model, max_tokens, stream, tools, tool_choice, system, messages) it
// takes as 2023-06-01 does. The default stays 2023-06-01 until a call
// against the newer version has been checked end to end.
var anthropicVersions = []APIVersion{{Name: "2023-06-01"}, {Name: "2026-10-21", NoTemperature: true}}

type anthropicWire struct{}

func (anthropicWire) objectArgs() bool { return true }

type anthropicMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type anthropicToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anthropicToolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   []any  `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

func (anthropicWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		j.bodySettings(r, "max_tokens")
		if r.Stream {
			j.field("stream", true)
		}
		tools := make([]anthropicTool, 0, len(r.Tools)+1)
		for i := range r.Tools {
			t := &r.Tools[i]
			tools = append(tools, anthropicTool{t.Name, t.Description, t.params()})
		}
		if len(r.Schema) > 0 {
			tools = append(tools, anthropicTool{AnswerTool, "Give your answer by calling this tool: its input is the answer.", r.Schema})
		}
		if len(tools) > 0 {
			j.field("tools", tools)
		}
		if len(r.Schema) > 0 {
			j.field("tool_choice", anthropicToolChoice{"tool", AnswerTool})
		}
		if cm := r.ContextManagement; cm != nil {
			j.fieldRaw(cm.Field, cm.Value)
		}
	}
	if len(system) > 0 {
		j.field("system", textParts(system))
	}
	j.openArray("messages")
}

func (anthropicWire) turn(j *jsonWriter, t *Turn) {
	m := anthropicMessage{Role: string(t.Role)}
	for _, r := range t.Results {
		m.Content = append(m.Content, anthropicToolResult{Type: "tool_result", ToolUseID: r.CallID, Content: textParts(r.Texts), IsError: r.IsError})
	}
	// Thinking blocks and server tool blocks go back as they came, in
	// their places (a thinking block first, before the tool_use it led to).
	t.walk(func(p piece) {
		switch {
		case p.item != nil:
			m.Content = append(m.Content, p.item)
		case p.text >= 0:
			m.Content = append(m.Content, textPart{"text", t.Texts[p.text]})
		default:
			c := &t.Calls[p.call]
			m.Content = append(m.Content, anthropicToolUse{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Input})
		}
	})
	j.elem(m)
}

func (anthropicWire) close(j *jsonWriter) { j.raw("]}") }

// AnswerTool is the tool anthropic is forced to call to give a structured
// answer: its input is the answer.
const AnswerTool = "structured_answer"

// anthropicCheckTools: the structured answer is a tool's input, so its
// schema must describe an object and its name is taken.
func anthropicCheckTools(tools []Tool, schema json.RawMessage) error {
	if len(schema) == 0 {
		return nil
	}
	for _, t := range tools {
		if t.Name == AnswerTool {
			return fmt.Errorf("tool name %q is taken by the structured answer", t.Name)
		}
	}
	if !objectSchema(schema) {
		return errors.New("anthropic gives a structured answer as a tool's input, which is an object: the schema must describe an object")
	}
	return nil
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

// anthropicCut is the finish-reason table: max_tokens, refusal, pause_turn
// and model_context_window_exceeded mean the answer was cut or refused;
// end_turn, tool_use, stop_sequence and compaction (on-demand compaction's
// block, alone) are normal ends.
func anthropicCut(reason string) bool {
	switch reason {
	case "max_tokens", "refusal", "pause_turn", "model_context_window_exceeded":
		return true
	}
	return false
}

func parseAnthropic(body []byte) (*answer, error) {
	if err := errorBody("anthropic", body); err != nil {
		return nil, err
	}
	var resp struct {
		ID         string            `json:"id"`
		Type       string            `json:"type"`
		Model      string            `json:"model"`
		Content    []json.RawMessage `json:"content"`
		StopReason string            `json:"stop_reason"`
		Usage      json.RawMessage   `json:"usage"`
	}
	if err := unmarshal("anthropic", body, &resp); err != nil {
		return nil, err
	}
	if resp.Type != "" && resp.Type != "message" { // some doc examples leave type out
		return nil, shapeError("anthropic", "type is %q, want \"message\"", resp.Type)
	}
	if resp.Content == nil { // absent or null; [] is an empty answer
		return nil, shapeError("anthropic", "no content")
	}
	a := &answer{model: resp.Model, responseID: resp.ID, finish: resp.StopReason, usage: resp.Usage, cut: anthropicCut(resp.StopReason)}
	var u struct {
		In  int `json:"input_tokens"`
		Out int `json:"output_tokens"`
	}
	if json.Unmarshal(resp.Usage, &u) == nil {
		a.in, a.out = u.In, u.Out
	}
	for i, raw := range resp.Content {
		var b struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			ID      string          `json:"id"`
			Name    string          `json:"name"`
			Input   json.RawMessage `json:"input"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, shapeError("anthropic", "content[%d]: %v", i, err)
		}
		switch b.Type {
		case "compaction":
			// The history summarised: a summary record, sent back first
			// and unchanged (compaction.go); its content, when a string,
			// is the readable summary.
			var text *string
			if err := json.Unmarshal(b.Content, &text); len(b.Content) > 0 && err != nil {
				return nil, shapeError("anthropic", "content[%d].content: want a string or null", i)
			}
			if text != nil {
				a.compactionText = *text
			}
			a.compaction = append(a.compaction, raw)
		case "text":
			if b.Text != "" {
				a.texts = append(a.texts, b.Text)
			}
		case "tool_use":
			a.calls = append(a.calls, transcript.ToolCall{ID: b.ID, Name: b.Name, Arguments: compactArgs(b.Input)})
		default:
			// thinking and redacted_thinking (whose signature the API
			// checks when they come back), server_tool_use and its
			// results: provider data, sent back to anthropic as they came.
			a.keep(raw)
		}
	}
	return a, nil
}
