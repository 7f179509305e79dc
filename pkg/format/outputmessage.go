package format

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The Responses API's assistant message item, kept as openai-responses
// provider data and sent back whole as the OutputMessage the spec requires.

// responsesStub is what convo keeps of an assistant message item of a
// response, as provider data standing before the message's texts: the
// fields an OutputMessage sent back needs (id, status) and its phase
// ("commentary", "final_answer"), which OpenAI asks to be sent back on
// every assistant message. Its content is the record's texts.
type responsesStub struct {
	Type   string  `json:"type"`
	ID     string  `json:"id"`
	Status string  `json:"status,omitempty"`
	Phase  *string `json:"phase,omitempty"`
}

// responsesOutputMessage is an OutputMessage as an input item.
type responsesOutputMessage struct {
	ID      string              `json:"id"`
	Type    string              `json:"type"`
	Role    string              `json:"role"`
	Status  string              `json:"status"`
	Phase   *string             `json:"phase,omitempty"`
	Content []responsesTextPart `json:"content"`
}

// responsesTextPart is an output_text part; the spec requires its
// annotations.
type responsesTextPart struct {
	Type        string            `json:"type"`
	Text        string            `json:"text"`
	Annotations []json.RawMessage `json:"annotations"`
}

func (s *responsesStub) message(texts []string) responsesOutputMessage {
	m := responsesOutputMessage{ID: s.ID, Type: "message", Role: "assistant", Status: s.Status, Phase: s.Phase}
	if m.Status == "" {
		m.Status = "completed"
	}
	for _, t := range texts {
		m.Content = append(m.Content, responsesTextPart{"output_text", t, []json.RawMessage{}})
	}
	return m
}

// messageStub returns item as a message stub, nil when it is another item.
func messageStub(item json.RawMessage) *responsesStub {
	if !strings.Contains(string(item), `"message"`) {
		return nil
	}
	var s struct {
		responsesStub
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(item, &s) != nil || s.Type != "message" || s.ID == "" || s.Content != nil {
		return nil
	}
	return &s.responsesStub
}

// responsesInputKeys are the keys an input item of a type takes where the
// output item of that type holds more (openai 7.60 ResponseCompactionItemParam:
// type, id, encrypted_content; the output item's created_by is output-only).
var responsesInputKeys = map[string][]string{
	"compaction": {"type", "id", "encrypted_content"},
}

// responsesInput is item, an output item kept as provider data, as the input
// item that goes back: only the keys its input type takes (the rest stays in
// the provider data), and never the output-only created_by, as the SDK's
// own replay helper (toResponseInputItems) sends it. Key order is kept.
func responsesInput(item json.RawMessage) json.RawMessage {
	if !strings.Contains(string(item), `"created_by"`) && !strings.Contains(string(item), `"compaction"`) {
		return item
	}
	keep := responsesInputKeys[itemType(item)]
	dec := json.NewDecoder(bytes.NewReader(item))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return item
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return item
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return item
		}
		if key == "created_by" || (keep != nil && !slices.Contains(keep, key)) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}')
}
