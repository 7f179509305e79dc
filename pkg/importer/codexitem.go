package importer

// Codex response items (the Responses API's input items) into records.

import (
	"encoding/json"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// codexProvider is whose provider data Codex items are.
const codexProvider = "openai-responses"

// contentTexts reads a message's content parts: their texts, images noted.
func (d *codexDecoder) contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text":
			out = append(out, p.Text)
		default:
			d.src.Note(p.Type)
		}
	}
	return out
}

// assistant makes an assistant record, with the reasoning before it.
func (d *codexDecoder) assistant(m transcript.Message) []transcript.Record {
	m.Role = transcript.RoleAssistant
	if m.Contents == nil {
		m.Contents = []string{}
	}
	m.ProviderData = append(m.ProviderData[:0:0], d.pending...)
	d.pending, d.prompts = nil, nil // the turn is answered
	r := transcript.Record{Message: m}
	r.Metadata.Aux = map[string]json.RawMessage{"provider": auxJSON(codexProvider)}
	if d.model != "" {
		r.Metadata.Aux["model"] = auxJSON(d.model)
	}
	return []transcript.Record{r}
}

// outputText is a call output: a string, or {content, success}.
func outputText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var o struct {
		Content *string `json:"content"`
		Success *bool   `json:"success"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Content != nil {
		return *o.Content, o.Success != nil && !*o.Success
	}
	return string(raw), false
}

func (d *codexDecoder) item(raw json.RawMessage, n int) ([]transcript.Record, error) {
	var it codexItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, inputErr(n, "payload", "a response item that is no object: %v", err)
	}
	switch it.Type {
	case "message":
		texts := d.contentTexts(it.Content)
		if len(texts) == 0 {
			return nil, nil
		}
		switch it.Role {
		case "assistant":
			return d.assistant(transcript.Message{Contents: texts}), nil
		case "user":
			hashes := []string{promptHash(strings.Join(texts, "\n"))}
			for _, t := range texts {
				hashes = append(hashes, promptHash(t))
			}
			if d.seen(false, d.ms, hashes...) {
				return nil, nil // its event_msg copy came first
			}
			d.prompt(false, d.ms, hashes...)
			d.done()
			return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleUser, Contents: texts}}}, nil
		case "system", "developer":
			return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSystem, Contents: []string{strings.Join(texts, "\n\n")}}}}, nil
		}
		return nil, inputErr(n, "payload.role", "unknown role %q", it.Role)
	case "reasoning":
		item, err := transcript.CompactJSON(raw)
		if err != nil {
			return nil, inputErr(n, "payload", "%v", err)
		}
		d.pending = append(d.pending, transcript.ProviderItem{Provider: codexProvider, At: 0, Item: item})
		return nil, nil
	case "function_call":
		if it.CallID == "" || it.Name == "" {
			return nil, inputErr(n, "payload.call_id", "a function_call without call_id or name")
		}
		return d.assistant(transcript.Message{ToolCalls: []transcript.ToolCall{{ID: it.CallID, Name: it.Name, Arguments: argumentsText(it.Arguments)}}}), nil
	case "custom_tool_call", "local_shell_call":
		if it.CallID == "" {
			return nil, inputErr(n, "payload.call_id", "a %s without call_id", it.Type)
		}
		name, args := it.Name, arguments(it.Input)
		if it.Type == "local_shell_call" {
			var a struct {
				Action json.RawMessage `json:"action"`
			}
			_ = json.Unmarshal(raw, &a)
			name, args = "local_shell", arguments(a.Action)
		} else {
			var s string
			if json.Unmarshal(it.Input, &s) == nil {
				args = string(auxJSON(map[string]string{"input": s}))
			}
		}
		item, _ := transcript.CompactJSON(raw)
		recs := d.assistant(transcript.Message{ToolCalls: []transcript.ToolCall{{ID: it.CallID, Name: name, Arguments: args}}})
		// Sent back to the Responses API as the item it was.
		recs[0].Message.ProviderData = append(recs[0].Message.ProviderData,
			transcript.ProviderItem{Provider: codexProvider, At: 0, Item: item, Replaces: true})
		return recs, nil
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		d.prompts = nil
		d.output(it.CallID)
		out, isErr := outputText(it.Output)
		return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: it.CallID,
			Contents: []string{out}, IsError: isErr}}}, nil
	case "compaction":
		// OpenAI's encrypted compaction item: a provider compaction (spec
		// section 7), which render sends back to openai-responses in place
		// of what it covers and which other providers read the covered
		// records for.
		item, err := transcript.CompactJSON(raw)
		if err != nil {
			return nil, inputErr(n, "payload", "%v", err)
		}
		return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSummary,
			Contents:     []string{transcript.CompactionMarker},
			ProviderData: []transcript.ProviderItem{{Provider: codexProvider, Item: item}}}}}, nil
	case "context_compaction":
		d.src.Note("encrypted " + it.Type + " item")
		return nil, nil
	default:
		d.src.Note(it.Type)
		return nil, nil
	}
}

// execItem reads one completed item of a `codex exec --json` stream.
func (d *codexDecoder) execItem(raw json.RawMessage, n int) ([]transcript.Record, error) {
	var it codexItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, inputErr(n, "item", "not an object: %v", err)
	}
	switch it.Type {
	case "agent_message", "assistant_message":
		return d.assistant(transcript.Message{Contents: []string{it.Text}}), nil
	case "command_execution":
		if it.ID == "" {
			return nil, inputErr(n, "item.id", "a command_execution without id")
		}
		call := d.assistant(transcript.Message{ToolCalls: []transcript.ToolCall{{ID: it.ID, Name: "shell",
			Arguments: string(auxJSON(map[string]string{"command": it.Command}))}}})
		res := transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: it.ID,
			Contents: []string{it.AggregatedOutput}, IsError: it.ExitCode != nil && *it.ExitCode != 0}}
		return append(call, res), nil
	default:
		d.src.Note("exec item " + it.Type)
		return nil, nil
	}
}
