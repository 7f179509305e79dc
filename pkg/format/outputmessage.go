package format

import (
	"encoding/json"
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
