package format

// The Messages API's stream:
//   https://docs.anthropic.com/en/docs/build-with-claude/streaming
//   message_start (the message, content empty, usage so far),
//   content_block_start / content_block_delta (text_delta, input_json_delta,
//   thinking_delta, signature_delta) / content_block_stop for each block,
//   message_delta (stop_reason, stop_sequence, cumulative usage),
//   message_stop; ping events anywhere; an error event ends a failed stream.

import (
	"encoding/json"
	"fmt"
	"strings"
)

// anthropicBlock is one content block being assembled: the fields of its
// content_block_start, and the pieces its deltas add.
type anthropicBlock struct {
	fields                    map[string]json.RawMessage
	text, thinking, signature strings.Builder
	input                     strings.Builder
	hasInput                  bool
	// A compaction block's content and encrypted_content arrive in
	// compaction_delta events (@anthropic-ai/sdk BetaCompactionContentBlockDelta).
	content, encrypted    strings.Builder
	hasContent, hasSealed bool
}

// anthropicStream assembles a streamed message into the message body the
// same call returns without streaming.
type anthropicStream struct {
	message map[string]json.RawMessage
	usage   map[string]json.RawMessage
	blocks  []*anthropicBlock
	delta   map[string]json.RawMessage
	stopped bool
}

// Add implements StreamAssembler.
func (s *anthropicStream) Add(_ string, data []byte, onText func(string)) (end bool, err error) {
	var ev struct {
		Type         string                     `json:"type"`
		Index        int                        `json:"index"`
		Message      map[string]json.RawMessage `json:"message"`
		ContentBlock map[string]json.RawMessage `json:"content_block"`
		Delta        json.RawMessage            `json:"delta"`
		Usage        map[string]json.RawMessage `json:"usage"`
		Error        *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, BadStream("anthropic", err)
	}
	switch ev.Type {
	case "message_start":
		s.message = ev.Message
		s.usage = map[string]json.RawMessage{}
		if u, ok := ev.Message["usage"]; ok {
			_ = json.Unmarshal(u, &s.usage)
		}
	case "content_block_start":
		if ev.Index != len(s.blocks) {
			return false, streamFailure("anthropic", fmt.Sprintf("stream: content block %d started after %d blocks", ev.Index, len(s.blocks)))
		}
		b := &anthropicBlock{fields: ev.ContentBlock}
		s.blocks = append(s.blocks, b)
		var start struct {
			Text string `json:"text"`
		}
		if t, ok := b.fields["text"]; ok && json.Unmarshal(t, &start.Text) == nil && start.Text != "" {
			b.text.WriteString(start.Text)
			onText(start.Text)
		}
	case "content_block_delta":
		if ev.Index < 0 || ev.Index >= len(s.blocks) {
			return false, streamFailure("anthropic", fmt.Sprintf("stream: delta for unknown content block %d", ev.Index))
		}
		if err := s.blocks[ev.Index].add(ev.Delta, onText); err != nil {
			return false, err
		}
	case "message_delta":
		_ = json.Unmarshal(ev.Delta, &s.delta)
		for k, v := range ev.Usage {
			if s.usage == nil {
				s.usage = map[string]json.RawMessage{}
			}
			s.usage[k] = v
		}
	case "message_stop":
		s.stopped = true
		return true, nil
	case "error":
		e := streamFailure("anthropic", "stream error")
		if ev.Error != nil {
			e.Message = ev.Error.Message
			// The error types of https://docs.anthropic.com/en/api/errors
			// that a later attempt may not meet.
			switch ev.Error.Type {
			case "overloaded_error", "api_error", "rate_limit_error", "timeout_error":
				e.Retryable = true
			}
		}
		return false, e
	}
	return false, nil
}

// add reads a content_block_delta's delta into b.
func (b *anthropicBlock) add(delta json.RawMessage, onText func(string)) error {
	var d struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		PartialJSON string  `json:"partial_json"`
		Thinking    string  `json:"thinking"`
		Signature   string  `json:"signature"`
		Content     *string `json:"content"`
		Encrypted   *string `json:"encrypted_content"`
	}
	if err := json.Unmarshal(delta, &d); err != nil {
		return BadStream("anthropic", err)
	}
	switch d.Type {
	case "text_delta":
		b.text.WriteString(d.Text)
		onText(d.Text)
	case "input_json_delta":
		b.input.WriteString(d.PartialJSON)
		b.hasInput = true
	case "thinking_delta":
		b.thinking.WriteString(d.Thinking)
	case "signature_delta":
		b.signature.WriteString(d.Signature)
	case "compaction_delta":
		if d.Content != nil {
			b.content.WriteString(*d.Content)
			b.hasContent = true
		}
		if d.Encrypted != nil {
			b.encrypted.WriteString(*d.Encrypted)
			b.hasSealed = true
		}
	}
	return nil
}

// Body implements StreamAssembler.
func (s *anthropicStream) Body() ([]byte, error) {
	if !s.stopped {
		return nil, ErrStreamCut
	}
	if s.message == nil {
		return nil, streamFailure("anthropic", "stream: no message_start event")
	}
	out := make(map[string]json.RawMessage, len(s.message)+2)
	for k, v := range s.message {
		out[k] = v
	}
	content := make([]map[string]json.RawMessage, 0, len(s.blocks))
	for _, b := range s.blocks {
		f := make(map[string]json.RawMessage, len(b.fields)+1)
		for k, v := range b.fields {
			f[k] = v
		}
		var kind string
		_ = json.Unmarshal(f["type"], &kind)
		set := func(k, v string) {
			f[k], _ = marshalNoEscape(v)
		}
		switch kind {
		case "text":
			set("text", b.text.String())
		case "thinking":
			set("thinking", b.thinking.String())
			if b.signature.Len() > 0 {
				set("signature", b.signature.String())
			}
		case "compaction":
			if b.hasContent {
				set("content", b.content.String())
			}
			if b.hasSealed {
				set("encrypted_content", b.encrypted.String())
			}
		}
		if b.hasInput {
			in := strings.TrimSpace(b.input.String())
			if in == "" {
				in = "{}"
			}
			if !json.Valid([]byte(in)) {
				return nil, streamFailure("anthropic", fmt.Sprintf("stream: tool input is not JSON: %.200s", in))
			}
			f["input"] = json.RawMessage(in)
		}
		content = append(content, f)
	}
	var err error
	if out["content"], err = marshalNoEscape(content); err != nil {
		return nil, err
	}
	for k, v := range s.delta {
		out[k] = v
	}
	if len(s.usage) > 0 {
		if out["usage"], err = marshalNoEscape(s.usage); err != nil {
			return nil, err
		}
	}
	return marshalNoEscape(out)
}
