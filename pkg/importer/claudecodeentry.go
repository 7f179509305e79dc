package importer

// One Claude Code entry of the active branch into records.

import (
	"encoding/json"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// ccEntry is what an entry of the active branch is read for.
type ccEntry struct {
	UUID                      string
	Timestamp                 string
	Type, Subtype, Attachment string
	IsCompactSummary          bool
	ToolUseResult             bool
	Message                   []byte // raw
}

// ccMessage is an entry's message, raw where it is kept raw.
type ccMessage struct {
	ID, Model, StopReason string
	Content, Usage        []byte
}

// scan reads an entry's top-level keys, the message left raw: one JSON
// pass over what is kept (each content block), not three.
func (e *ccEntry) scan(b []byte) error {
	return topLevel(b, func(k, v []byte) bool {
		switch string(k) {
		case "uuid":
			e.UUID = str(v)
		case "timestamp":
			e.Timestamp = str(v)
		case "type":
			e.Type = str(v)
		case "subtype":
			e.Subtype = str(v)
		case "isCompactSummary":
			e.IsCompactSummary = string(v) == "true"
		case "toolUseResult":
			e.ToolUseResult = string(v) != "null"
		case "attachment":
			_ = topLevel(v, func(k, v []byte) bool {
				if string(k) == "type" {
					e.Attachment = str(v)
				}
				return true
			})
		case "message":
			if string(v) != "null" {
				e.Message = v
			}
		}
		return true
	})
}

func (m *ccMessage) scan(b []byte) error {
	return topLevel(b, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			m.ID = str(v)
		case "model":
			m.Model = str(v)
		case "stop_reason":
			m.StopReason = str(v)
		case "content":
			m.Content = v
		case "usage":
			m.Usage = v
		}
		return true
	})
}

// ccDecoder decodes entries in order: thinking written in an entry of its
// own waits for the next part of the same message.
type ccDecoder struct {
	src     *Source
	pending []transcript.ProviderItem
	pendID  string
	held    bool   // the last entry's thinking waits in pending
	uuid    string // the last entry's
	ms      int64  // the last entry's time (0: none)
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
	if err := e.scan(text); err != nil {
		return nil, inputErr(n, "", "not a Claude Code entry: %v", err)
	}
	d.uuid, d.ms = e.UUID, entryMS(e.Timestamp)
	if !utf8.Valid(text) {
		d.src.Note("invalid UTF-8 (replaced by U+FFFD)")
	}
	switch e.Type {
	case "user", "assistant":
	case "system":
		if e.Subtype != "compact_boundary" { // the summary after it says it
			d.src.Note("system/" + e.Subtype)
		}
		return nil, nil
	case "attachment":
		d.src.Note("attachment/" + e.Attachment)
		return nil, nil
	default:
		d.src.Note(e.Type)
		return nil, nil
	}
	var m ccMessage
	if e.Message == nil || m.scan(e.Message) != nil {
		return nil, inputErr(n, "message", "a %s entry without a message object", e.Type)
	}
	t := turn{src: d.src}
	switch c := skipWS(m.Content, 0); {
	case c < len(m.Content) && m.Content[c] == '"':
		var s string
		if err := json.Unmarshal(m.Content, &s); err != nil {
			return nil, inputErr(n, "message.content", "%v", err)
		}
		t.texts = []string{s}
	default:
		if e.Type == "assistant" {
			t.provider = "anthropic"
		}
		err := elements(m.Content, func(raw []byte) error {
			var b block
			if err := json.Unmarshal(raw, &b); err != nil {
				return inputErr(n, "message.content", "a block that is no object: %v", err)
			}
			t.add(raw, &b)
			return nil
		})
		if errors.Is(err, errScan) {
			return nil, inputErr(n, "message.content", "neither text nor a list of blocks")
		}
		if err != nil {
			return nil, err
		}
	}
	if e.Type == "user" {
		if e.ToolUseResult {
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
		aux["usage"] = compactRaw(json.RawMessage(m.Usage))
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
