package importer

// Anthropic Messages content blocks, as Claude Code and Claude.ai keep
// them: text, tool_use, tool_result, thinking.

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// block is one content block, its kinds' fields together.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// parseTime reads an RFC 3339 time; zero when there is none.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// epochTime reads seconds since the epoch (a float, as ChatGPT writes).
func epochTime(f float64) time.Time {
	if f <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(f * 1000))
}

// arguments is a tool call's input as the text of one JSON object: an
// object as it is (compact), anything else wrapped as {"input": ...}.
func arguments(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	if raw[0] == '{' {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String()
		}
	}
	return string(auxJSON(map[string]json.RawMessage{"input": raw}))
}

// argumentsText is arguments for a call whose input is given as text
// (OpenAI's function arguments): kept when it is an object.
func argumentsText(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return "{}"
	}
	if t[0] == '{' && json.Valid([]byte(t)) {
		return s
	}
	return string(auxJSON(map[string]string{"input": s}))
}

// resultText is a tool result's content (a string, or a list of blocks):
// its texts, other blocks noted.
func resultText(src *Source, raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []string{""}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return []string{string(raw)}
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		} else {
			src.Note(b.Type + " in a tool result")
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// turn gathers one message's blocks into records: tool results (user
// side), then the user's text; or the assistant's text, calls and
// provider data.
type turn struct {
	src      *Source
	provider string // of the provider data kept (thinking)
	results  []transcript.Record
	texts    []string
	calls    []transcript.ToolCall
	items    []transcript.ProviderItem
}

// add takes one block.
func (t *turn) add(raw json.RawMessage, b *block) {
	switch b.Type {
	case "text":
		t.texts = append(t.texts, b.Text)
	case "tool_use", "server_tool_use":
		if b.Type == "server_tool_use" {
			t.keep(raw)
			return
		}
		t.calls = append(t.calls, transcript.ToolCall{ID: b.ID, Name: b.Name, Arguments: arguments(b.Input)})
	case "tool_result":
		t.results = append(t.results, transcript.Record{Message: transcript.Message{
			Role: transcript.RoleTool, ToolCallID: b.ToolUseID, Contents: resultText(t.src, b.Content), IsError: b.IsError}})
	case "thinking", "redacted_thinking", "web_search_tool_result":
		t.keep(raw)
	default:
		t.src.Note(b.Type)
	}
}

// keep adds raw as provider data at the place it came in.
func (t *turn) keep(raw json.RawMessage) {
	if t.provider == "" {
		// No provider to send it back to (a chat app's export): a
		// thinking block without its signature is of no use to one.
		var b struct {
			Type      string `json:"type"`
			Signature string `json:"signature"`
		}
		_ = json.Unmarshal(raw, &b)
		if b.Type == "thinking" && b.Signature == "" {
			t.src.Note("thinking without a signature")
		} else {
			t.src.Note(b.Type)
		}
		return
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return
	}
	t.items = append(t.items, transcript.ProviderItem{Provider: t.provider, At: len(t.texts) + len(t.calls),
		Item: json.RawMessage(b.Bytes())})
}

// records returns the turn's records for role: tool results first.
func (t *turn) records(role transcript.Role) []transcript.Record {
	out := t.results
	if len(t.texts) > 0 || len(t.calls) > 0 {
		m := transcript.Message{Role: role, Contents: t.texts, ToolCalls: t.calls}
		if role == transcript.RoleAssistant {
			// Items placed among texts and calls: calls follow every text.
			for i := range t.items {
				if t.items[i].At > len(t.texts) && len(t.calls) == 0 {
					t.items[i].At = len(t.texts)
				}
			}
			m.ProviderData = t.items
		} else if len(t.calls) > 0 {
			m.ToolCalls = nil
		}
		if m.Contents == nil && len(m.ToolCalls) == 0 {
			m.Contents = []string{""}
		}
		if m.Contents == nil {
			m.Contents = []string{}
		}
		out = append(out, transcript.Record{Message: m})
	}
	return out
}
