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
//   - --body: {"model","max_tokens","temperature","system","messages"};
//     max_tokens is required, DefaultAnthropicMaxTokens when not given. A
//     request whose history holds tool_use blocks must also define "tools",
//     which a transcript does not know: add them to the body (e.g. with jq).
//
// Response: https://docs.anthropic.com/en/api/messages (Response)
// content[] of text and tool_use blocks, stop_reason (end_turn, tool_use,
// stop_sequence; max_tokens, refusal, pause_turn and
// model_context_window_exceeded mean cut), usage, model, id; errors are
// {"type":"error","error":{"type","message"}}.

import (
	"cmp"
	"encoding/json"

	"github.com/convo-cli/convo/pkg/transcript"
)

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

func (anthropicWire) open(j *jsonWriter, o *Options, system []string) {
	j.raw("{")
	if o.Body {
		// Anthropic requires max_tokens.
		j.bodySettings(o, "max_tokens", cmp.Or(max(o.MaxTokens, 0), DefaultAnthropicMaxTokens))
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
	m.Content = append(m.Content, textParts(t.Texts)...)
	for _, c := range t.Calls {
		m.Content = append(m.Content, anthropicToolUse{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Input})
	}
	j.elem(m)
}

func (anthropicWire) close(j *jsonWriter) { j.raw("]}") }

func parseAnthropic(body []byte, _ func() string) (*answer, error) {
	if msg, ok := errorMessage(body); ok {
		return nil, &ProviderError{"anthropic", msg}
	}
	var resp struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Model   string `json:"model"`
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string          `json:"stop_reason"`
		Usage      json.RawMessage `json:"usage"`
	}
	if err := unmarshal("anthropic", body, &resp); err != nil {
		return nil, err
	}
	if resp.Type != "" && resp.Type != "message" { // some doc examples leave type out
		return nil, shapeError("anthropic", "type is %q, want \"message\"", resp.Type)
	}
	a := &answer{model: resp.Model, responseID: resp.ID, finish: resp.StopReason, usage: resp.Usage}
	switch resp.StopReason {
	case "max_tokens", "refusal", "pause_turn", "model_context_window_exceeded":
		a.cut = true
	}
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			if b.Text != "" {
				a.texts = append(a.texts, b.Text)
			}
		case "tool_use":
			a.calls = append(a.calls, transcript.ToolCall{ID: b.ID, Name: b.Name, Arguments: compactArgs(b.Input)})
		}
		// thinking and server-tool blocks are not part of the transcript.
	}
	return a, nil
}
