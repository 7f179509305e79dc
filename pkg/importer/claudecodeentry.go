package importer

// One Claude Code entry of the active branch into records.

import (
	"encoding/json"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

type ccEntry struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	RequestID        string `json:"requestId"`
	ToolUseResult    json.RawMessage
	Attachment       *struct {
		Type string `json:"type"`
	} `json:"attachment"`
	Message *struct {
		ID         string          `json:"id"`
		Model      string          `json:"model"`
		Content    json.RawMessage `json:"content"`
		StopReason string          `json:"stop_reason"`
		Usage      json.RawMessage `json:"usage"`
	} `json:"message"`
}

// ccDecoder decodes entries in order: thinking written in an entry of its
// own waits for the next part of the same message.
type ccDecoder struct {
	src     *Source
	pending []transcript.ProviderItem
	pendID  string
	held    bool // the last entry's thinking waits in pending
}

func timeMS(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func (d *ccDecoder) done() {
	if len(d.pending) > 0 && !d.held {
		d.src.Note("thinking without an answer")
		d.pending = nil
	}
}

func (d *ccDecoder) entry(text []byte, n int) ([]transcript.Record, error) {
	d.held = false
	var e ccEntry
	if err := json.Unmarshal(text, &e); err != nil {
		return nil, inputErr(n, "", "not a Claude Code entry: %v", err)
	}
	switch e.Type {
	case "user", "assistant":
	case "system":
		if e.Subtype != "compact_boundary" { // the summary after it says it
			d.src.Note("system/" + e.Subtype)
		}
		return nil, nil
	case "attachment":
		if e.Attachment != nil {
			d.src.Note("attachment/" + e.Attachment.Type)
		} else {
			d.src.Note("attachment")
		}
		return nil, nil
	default:
		d.src.Note(e.Type)
		return nil, nil
	}
	if e.Message == nil {
		return nil, inputErr(n, "message", "a %s entry without a message", e.Type)
	}
	m := e.Message
	t := turn{src: d.src}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		t.texts = []string{s}
	} else {
		var raws []json.RawMessage
		if err := json.Unmarshal(m.Content, &raws); err != nil {
			return nil, inputErr(n, "message.content", "neither text nor a list of blocks")
		}
		if e.Type == "assistant" {
			t.provider = "anthropic"
		}
		for _, raw := range raws {
			var b block
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, inputErr(n, "message.content", "a block that is no object")
			}
			t.add(raw, &b)
		}
	}
	if e.Type == "user" {
		if len(e.ToolUseResult) > 0 && string(e.ToolUseResult) != "null" {
			d.src.Note("toolUseResult (the tool's structured output)")
		}
		if e.IsCompactSummary && len(t.texts) > 0 {
			return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSummary,
				Contents: []string{joinTexts(t.texts)}}}}, nil
		}
		return t.records(transcript.RoleUser), nil
	}
	// One content block per entry: thinking alone waits for the text or
	// call of the same message that follows it.
	if d.pendID != m.ID {
		d.done()
	}
	if len(t.texts) == 0 && len(t.calls) == 0 {
		d.pending, d.pendID, d.held = append(d.pending, t.items...), m.ID, true
		return nil, nil
	}
	t.items = append(d.pending, t.items...)
	d.pending, d.pendID = nil, ""
	recs := t.records(transcript.RoleAssistant)
	r := &recs[len(recs)-1]
	aux := map[string]json.RawMessage{"provider": auxJSON("anthropic")}
	if m.Model != "" {
		aux["model"] = auxJSON(m.Model)
	}
	if m.ID != "" {
		aux["response_id"] = auxJSON(m.ID)
	}
	if m.StopReason != "" {
		aux["finish_reason"] = auxJSON(m.StopReason)
	}
	if len(m.Usage) > 0 && string(m.Usage) != "null" {
		aux["usage"] = compactRaw(m.Usage)
	}
	r.Metadata.Aux = aux
	return recs, nil
}

// joinTexts joins a message's texts with blank lines.
func joinTexts(ts []string) string {
	out := ""
	for i, t := range ts {
		if i > 0 {
			out += "\n\n"
		}
		out += t
	}
	return out
}

// compactRaw is raw without spaces (aux values are kept compact).
func compactRaw(raw json.RawMessage) json.RawMessage {
	v, err := transcript.CompactJSON(raw)
	if err != nil {
		return auxJSON(string(raw))
	}
	return v
}
