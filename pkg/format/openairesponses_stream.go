package format

// The Responses API's stream:
//   https://platform.openai.com/docs/api-reference/responses-streaming:
//   named server-sent events, each a JSON object with its "type":
//   response.created and response.in_progress (the response so far),
//   response.output_item.added / .done (each output item, whole at done),
//   response.output_text.delta (a piece of a message's text), refusal and
//   function-call-argument deltas, reasoning summary deltas, and one last
//   response.completed, response.incomplete or response.failed holding the
//   whole response; an "error" event ends a failed stream.

import (
	"encoding/json"
	"net/http"
	"sort"
)

// responsesStream assembles a Responses event stream into the response
// body the same call returns without streaming: the response of the last
// event, its output filled from the output_item.done events when a server
// leaves it empty there.
type responsesStream struct {
	items map[int]json.RawMessage
	final map[string]json.RawMessage
}

// Add implements StreamAssembler.
func (s *responsesStream) Add(_ string, data []byte, onText func(string)) (end bool, err error) {
	var e struct {
		Type        string                     `json:"type"`
		Delta       string                     `json:"delta"`
		OutputIndex int                        `json:"output_index"`
		Item        json.RawMessage            `json:"item"`
		Response    map[string]json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return false, BadStream(openaiResponses, err)
	}
	switch e.Type {
	case "response.output_text.delta":
		onText(e.Delta)
	case "response.output_item.done":
		if s.items == nil {
			s.items = map[int]json.RawMessage{}
		}
		s.items[e.OutputIndex] = append(json.RawMessage(nil), e.Item...)
	case "response.completed", "response.incomplete", "response.failed":
		s.final = e.Response
		return true, nil
	case "error":
		return false, streamError(openaiResponses, data)
	}
	return false, nil
}

// Body implements StreamAssembler.
func (s *responsesStream) Body() ([]byte, error) {
	final := s.final
	if final == nil {
		return nil, ErrStreamCut
	}
	var out []json.RawMessage
	if json.Unmarshal(final["output"], &out) != nil || len(out) == 0 && len(s.items) > 0 {
		idx := make([]int, 0, len(s.items))
		for i := range s.items {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		out = out[:0]
		for _, i := range idx {
			out = append(out, s.items[i])
		}
		b, err := marshalNoEscape(out)
		if err != nil {
			return nil, err
		}
		final["output"] = b
	}
	body, err := marshalNoEscape(final)
	if err != nil {
		return nil, &ProviderError{Provider: openaiResponses, Status: http.StatusOK, Message: "stream: " + err.Error()}
	}
	return body, nil
}
