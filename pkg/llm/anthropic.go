package llm

// The Messages API transport: POST {base}/v1/messages, the key in
// x-api-key with anthropic-version. Streaming:
//   https://docs.anthropic.com/en/docs/build-with-claude/streaming
//   message_start (the message, content empty, usage so far),
//   content_block_start / content_block_delta (text_delta, input_json_delta,
//   thinking_delta, signature_delta) / content_block_stop for each block,
//   message_delta (stop_reason, stop_sequence, cumulative usage),
//   message_stop; ping events anywhere; an error event ends a failed stream.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/convo-cli/convo/pkg/format"
)

// newAnthropic is the Messages API transport; opts.APIKey is required.
func newAnthropic(p format.Provider, opts Options) (Transport, error) {
	if opts.APIKey == "" {
		return nil, missingKey(p)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	// anthropic-version: the registry's default, or the one asked for
	// (https://docs.anthropic.com/en/api/versioning); the body must be
	// written for the same (format.Request.APIVersion).
	v, err := p.Version(opts.APIVersion)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	header.Set("x-api-key", opts.APIKey)
	header.Set("anthropic-version", v.Name)
	if len(opts.Betas) > 0 {
		header.Set("anthropic-beta", strings.Join(opts.Betas, ","))
	}
	return &httpTransport{name: p.Name, opts: opts, url: endpoint(base, "v1/messages"), header: header,
		accept: "text/event-stream", assemble: assembleAnthropic}, nil
}

// assembleAnthropic reads a Messages event stream.
func assembleAnthropic(r io.Reader, onText func(string)) ([]byte, error) {
	var asm anthropicStream
	if err := readSSE(r, func(ev sseEvent) error { return asm.add(ev.data, onText) }); err != nil && err != errStop {
		return nil, err
	}
	if !asm.stopped {
		return nil, errTruncated
	}
	return asm.body()
}

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

func (s *anthropicStream) add(data []byte, onText func(string)) error {
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
		return badStream("anthropic", err)
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
			return &format.ProviderError{Provider: "anthropic", Status: http.StatusOK, Message: fmt.Sprintf("stream: content block %d started after %d blocks", ev.Index, len(s.blocks))}
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
			return &format.ProviderError{Provider: "anthropic", Status: http.StatusOK, Message: fmt.Sprintf("stream: delta for unknown content block %d", ev.Index)}
		}
		b := s.blocks[ev.Index]
		var d struct {
			Type        string  `json:"type"`
			Text        string  `json:"text"`
			PartialJSON string  `json:"partial_json"`
			Thinking    string  `json:"thinking"`
			Signature   string  `json:"signature"`
			Content     *string `json:"content"`
			Encrypted   *string `json:"encrypted_content"`
		}
		if err := json.Unmarshal(ev.Delta, &d); err != nil {
			return badStream("anthropic", err)
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
		return errStop
	case "error":
		e := &format.ProviderError{Provider: "anthropic", Status: http.StatusOK, Message: "stream error"}
		if ev.Error != nil {
			e.Message = ev.Error.Message
			// The error types of https://docs.anthropic.com/en/api/errors
			// that a later attempt may not meet.
			switch ev.Error.Type {
			case "overloaded_error", "api_error", "rate_limit_error", "timeout_error":
				e.Retryable = true
			}
		}
		return e
	}
	return nil
}

func (s *anthropicStream) body() ([]byte, error) {
	if s.message == nil {
		return nil, &format.ProviderError{Provider: "anthropic", Status: http.StatusOK, Message: "stream: no message_start event"}
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
			f[k], _ = format.MarshalNoEscape(v)
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
				return nil, &format.ProviderError{Provider: "anthropic", Status: http.StatusOK, Message: fmt.Sprintf("stream: tool input is not JSON: %.200s", in)}
			}
			f["input"] = json.RawMessage(in)
		}
		content = append(content, f)
	}
	var err error
	if out["content"], err = format.MarshalNoEscape(content); err != nil {
		return nil, err
	}
	for k, v := range s.delta {
		out[k] = v
	}
	if len(s.usage) > 0 {
		if out["usage"], err = format.MarshalNoEscape(s.usage); err != nil {
			return nil, err
		}
	}
	return format.MarshalNoEscape(out)
}
