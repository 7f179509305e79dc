package importer

// Claude.ai's data export: conversations.json (alone or in the export's
// .zip), each conversation {uuid, name, chat_messages[]}, a message
// {uuid, sender: human|assistant, text, content[], attachments, files}.
// Messages are read in order, or from current_leaf_message_uuid up
// parent_message_uuid where the export carries them.

import (
	"encoding/json"

	"github.com/convo-cli/convo/pkg/transcript"
)

type claudeAI struct{}

func (claudeAI) Name() string        { return "claude-ai" }
func (claudeAI) Growing() bool       { return false }
func (claudeAI) Match(p string) bool { return matchExport(p) }

type caiConversation struct {
	UUID        string       `json:"uuid"`
	Name        string       `json:"name"`
	Model       string       `json:"model"`
	Messages    []caiMessage `json:"chat_messages"`
	CurrentLeaf string       `json:"current_leaf_message_uuid"`
}

type caiMessage struct {
	UUID        string            `json:"uuid"`
	Sender      string            `json:"sender"`
	Text        string            `json:"text"`
	Content     []json.RawMessage `json:"content"`
	Attachments []json.RawMessage `json:"attachments"`
	Files       []json.RawMessage `json:"files"`
	CreatedAt   string            `json:"created_at"`
	Parent      string            `json:"parent_message_uuid"`
}

func (claudeAI) Decode(src *Source, emit func(*Session) error) error {
	return eachConversation(src, func(raw json.RawMessage) error {
		var c caiConversation
		if err := json.Unmarshal(raw, &c); err != nil {
			return inputErr(0, "conversation", "%v", err)
		}
		s := &Session{ID: c.UUID, Meta: Meta{Title: c.Name, Model: c.Model}}
		msgs := caiActive(&c)
		s.Walk = fixedWalk(func() ([]Entry, error) {
			out := make([]Entry, 0, len(msgs))
			for _, m := range msgs {
				out = append(out, Entry{ID: m.UUID, Time: parseTime(m.CreatedAt), Records: caiRecords(src, m)})
			}
			return out, nil
		})
		return emit(s)
	})
}

// caiActive is the messages of the active branch, oldest first.
func caiActive(c *caiConversation) []*caiMessage {
	byID := map[string]*caiMessage{}
	for i := range c.Messages {
		byID[c.Messages[i].UUID] = &c.Messages[i]
	}
	if leaf := byID[c.CurrentLeaf]; leaf != nil && leaf.Parent != "" {
		var p []*caiMessage
		for m := leaf; m != nil && len(p) <= len(c.Messages); m = byID[m.Parent] {
			p = append(p, m)
		}
		for a, b := 0, len(p)-1; a < b; a, b = a+1, b-1 {
			p[a], p[b] = p[b], p[a]
		}
		return p
	}
	out := make([]*caiMessage, len(c.Messages))
	for i := range c.Messages {
		out[i] = &c.Messages[i]
	}
	return out
}

// caiRecords splits a message at its tool results: Claude.ai runs tools
// itself, so one assistant message holds calls, results and the text
// after them.
func caiRecords(src *Source, m *caiMessage) []transcript.Record {
	attached := caiAttached(src, m.Attachments)
	for range m.Files {
		src.Note("file")
	}
	role := transcript.RoleUser
	if m.Sender == "assistant" {
		role = transcript.RoleAssistant
	}
	if len(m.Content) == 0 {
		if m.Text == "" && len(attached) == 0 {
			return nil
		}
		var parts []string
		if m.Text != "" {
			parts = append(parts, m.Text)
		}
		return []transcript.Record{{Message: transcript.Message{Role: role, Contents: append(parts, attached...)}}}
	}
	out := caiContent(src, m, role)
	if len(attached) > 0 {
		// The text of an attached file was sent with the message: it goes
		// with the message's first record of its sender's role.
		for i := range out {
			if out[i].Message.Role == role {
				out[i].Message.Contents = append(out[i].Message.Contents, attached...)
				return out
			}
		}
		out = append(out, transcript.Record{Message: transcript.Message{Role: role, Contents: attached}})
	}
	return out
}

// caiAttached is the text Claude.ai extracted of each attachment (a pasted
// text or a document), which the model was sent; an attachment without it
// is noted as not imported.
func caiAttached(src *Source, atts []json.RawMessage) []string {
	var out []string
	for _, raw := range atts {
		var a struct {
			Extracted string `json:"extracted_content"`
		}
		if json.Unmarshal(raw, &a) != nil || a.Extracted == "" {
			src.Note("attachment")
			continue
		}
		out = append(out, a.Extracted)
	}
	return out
}

// caiContent is the records of a message's content blocks.
func caiContent(src *Source, m *caiMessage, role transcript.Role) []transcript.Record {
	var out []transcript.Record
	t := turn{src: src}
	for _, raw := range m.Content {
		var b block
		if json.Unmarshal(raw, &b) != nil {
			src.Note("content that is no object")
			continue
		}
		if b.Type == "tool_result" && role == transcript.RoleAssistant {
			out = append(out, t.records(role)...)
			t = turn{src: src}
		}
		t.add(raw, &b)
		if b.Type == "tool_result" && role == transcript.RoleAssistant {
			out = append(out, t.results...)
			t.results = nil
		}
	}
	return append(out, t.records(role)...)
}
