package format

// OpenAI Chat Completions' stream:
//   https://platform.openai.com/docs/api-reference/chat/create (stream,
//   stream_options.include_usage) and
//   https://platform.openai.com/docs/api-reference/chat-streaming: "data:"
//   events of chat.completion.chunk objects, choices[].delta holding pieces of
//   content, refusal and tool_calls (by index; id and name in the first piece,
//   arguments spread over the rest), finish_reason on the last choice chunk,
//   usage on a final chunk with no choices, then "data: [DONE]".

import (
	"cmp"
	"encoding/json"
	"strings"
)

type openaiChunk struct {
	ID                string `json:"id"`
	Created           int64  `json:"created"`
	Model             string `json:"model"`
	SystemFingerprint string `json:"system_fingerprint"`
	Choices           []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				Index int `json:"index"`
				openaiToolCall
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openaiStream assembles the chunks of a streamed chat completion into the
// chat.completion body the same call returns without streaming.
type openaiStream struct {
	id, model, fingerprint string
	created                int64
	content, refusal       strings.Builder
	hasContent, hasRefusal bool
	calls                  []*openaiToolCall
	callIndex              map[int]*openaiToolCall
	finish                 *string
	usage                  json.RawMessage
	done                   bool
}

// Add implements StreamAssembler.
func (s *openaiStream) Add(_ string, data []byte, onText func(string)) (end bool, err error) {
	if string(data) == "[DONE]" {
		s.done = true
		return true, nil
	}
	var ch openaiChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return false, BadStream("openai", err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return false, streamError("openai", data)
	}
	s.id = cmp.Or(ch.ID, s.id)
	s.model = cmp.Or(ch.Model, s.model)
	s.fingerprint = cmp.Or(ch.SystemFingerprint, s.fingerprint)
	if ch.Created != 0 {
		s.created = ch.Created
	}
	if len(ch.Usage) > 0 && string(ch.Usage) != "null" {
		s.usage = append(json.RawMessage(nil), ch.Usage...)
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // only the first choice is read, as without streaming
		}
		d := choice.Delta
		if d.Content != nil {
			s.hasContent = true
			s.content.WriteString(*d.Content)
			onText(*d.Content)
		}
		if d.Refusal != nil {
			s.hasRefusal = true
			s.refusal.WriteString(*d.Refusal)
		}
		for _, tc := range d.ToolCalls {
			if s.callIndex == nil {
				s.callIndex = map[int]*openaiToolCall{}
			}
			call, ok := s.callIndex[tc.Index]
			if !ok {
				call = &openaiToolCall{Type: "function"}
				s.callIndex[tc.Index] = call
				s.calls = append(s.calls, call)
			}
			call.ID = cmp.Or(tc.ID, call.ID)
			call.Function.Name = cmp.Or(tc.Function.Name, call.Function.Name)
			call.Function.Arguments += tc.Function.Arguments
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			s.finish = choice.FinishReason
		}
	}
	return false, nil
}

// Body implements StreamAssembler: a stream that ends without [DONE] is
// whole when its choice finished.
func (s *openaiStream) Body() ([]byte, error) {
	if !s.done && s.finish == nil {
		return nil, ErrStreamCut
	}
	type message struct {
		Role      string            `json:"role"`
		Content   *string           `json:"content"`
		Refusal   *string           `json:"refusal,omitempty"`
		ToolCalls []*openaiToolCall `json:"tool_calls,omitempty"`
	}
	msg := message{Role: "assistant", ToolCalls: s.calls}
	if s.hasContent {
		t := s.content.String()
		msg.Content = &t
	}
	if s.hasRefusal {
		t := s.refusal.String()
		msg.Refusal = &t
	}
	out := struct {
		ID                string          `json:"id,omitempty"`
		Object            string          `json:"object"`
		Created           int64           `json:"created,omitempty"`
		Model             string          `json:"model,omitempty"`
		SystemFingerprint string          `json:"system_fingerprint,omitempty"`
		Choices           []any           `json:"choices"`
		Usage             json.RawMessage `json:"usage,omitempty"`
	}{
		ID: s.id, Object: "chat.completion", Created: s.created, Model: s.model, SystemFingerprint: s.fingerprint,
		Choices: []any{struct {
			Index        int     `json:"index"`
			Message      message `json:"message"`
			FinishReason *string `json:"finish_reason"`
		}{0, msg, s.finish}},
		Usage: s.usage,
	}
	return marshalNoEscape(out)
}
