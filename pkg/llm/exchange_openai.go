package llm

// Exchange for Chat Completions. Streaming:
//   https://platform.openai.com/docs/api-reference/chat/create (stream,
//   stream_options.include_usage) and
//   https://platform.openai.com/docs/api-reference/chat-streaming: "data:"
//   events of chat.completion.chunk objects, choices[].delta holding pieces of
//   content, refusal and tool_calls (by index; id and name in the first piece,
//   arguments spread over the rest), finish_reason on the last choice chunk,
//   usage on a final chunk with no choices, then "data: [DONE]".

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Exchange implements Exchanger.
func (c *OpenAI) Exchange(ctx context.Context, x Exchange) (Reply, error) {
	header := http.Header{}
	if c.opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	hc := c.opts.httpClient()
	body := x.Body
	if x.OnText != nil {
		var err error
		body, err = setFields(body, map[string]any{"stream": true, "stream_options": map[string]bool{"include_usage": true}})
		if err != nil {
			return Reply{}, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return c.opts.exchange(ctx, c.name, c.opts.APIKey, x, func(ctx context.Context, onText func(string), progress func()) ([]byte, error) {
		if onText == nil {
			return postJSON(ctx, hc, c.name, c.url, header, body, jsonErrorMessage)
		}
		res, err := postStream(ctx, hc, c.name, c.url, "text/event-stream", header, body, jsonErrorMessage)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		var asm openaiStream
		err = readSSE(progressReader{res.Body, progress}, func(ev sseEvent) error { return asm.add(c.name, ev.data, onText) })
		if err != nil && err != errStop {
			return nil, err
		}
		if !asm.done && asm.finish == nil {
			return nil, errTruncated
		}
		return asm.body()
	})
}

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

func (s *openaiStream) add(provider string, data []byte, onText func(string)) error {
	if string(data) == "[DONE]" {
		s.done = true
		return errStop
	}
	var ch openaiChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return badBody(provider, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return &Error{Provider: provider, Status: http.StatusOK, Message: jsonErrorMessage(data)}
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
	return nil
}

func (s *openaiStream) body() ([]byte, error) {
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
	return encodeJSON(out)
}
