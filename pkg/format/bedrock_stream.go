package format

// Bedrock's ConverseStream: the events of
//   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
// (messageStart, contentBlockStart, contentBlockDelta, contentBlockStop,
// messageStop, metadata) assembled into the Converse answer.

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// bedrockBlock is one content block being assembled from its deltas.
type bedrockBlock struct {
	index                       int
	text, input                 strings.Builder
	reasoning, signature        strings.Builder
	redacted                    []byte
	toolUseID, name             string
	toolUse, isText, isThinking bool
}

// bedrockStream assembles the events of a converse-stream answer.
type bedrockStream struct {
	role       string
	blocks     []*bedrockBlock
	stopReason string
	additional json.RawMessage
	usage      json.RawMessage
	metrics    json.RawMessage
	trace      json.RawMessage
	stopped    bool
}

func (s *bedrockStream) block(i int) *bedrockBlock {
	for _, b := range s.blocks {
		if b.index == i {
			return b
		}
	}
	b := &bedrockBlock{index: i}
	s.blocks = append(s.blocks, b)
	return b
}

// Add implements StreamAssembler: name is the frame's :event-type, data
// its payload (pkg/llm reads the frames, and the exceptions they carry).
func (s *bedrockStream) Add(name string, data []byte, onText func(string)) (end bool, err error) {
	var ev struct {
		Role              string          `json:"role"`
		ContentBlockIndex int             `json:"contentBlockIndex"`
		StopReason        string          `json:"stopReason"`
		Additional        json.RawMessage `json:"additionalModelResponseFields"`
		Usage             json.RawMessage `json:"usage"`
		Metrics           json.RawMessage `json:"metrics"`
		Trace             json.RawMessage `json:"trace"`
		Start             struct {
			ToolUse *struct {
				ToolUseID string `json:"toolUseId"`
				Name      string `json:"name"`
			} `json:"toolUse"`
		} `json:"start"`
		Delta struct {
			Text    *string `json:"text"`
			ToolUse *struct {
				Input string `json:"input"`
			} `json:"toolUse"`
			Reasoning *struct {
				Text      *string `json:"text"`
				Signature *string `json:"signature"`
				Redacted  *string `json:"redactedContent"`
			} `json:"reasoningContent"`
		} `json:"delta"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, BadStream("bedrock", err)
	}
	switch name {
	case "messageStart":
		s.role = ev.Role
	case "contentBlockStart":
		if tu := ev.Start.ToolUse; tu != nil {
			b := s.block(ev.ContentBlockIndex)
			b.toolUse, b.toolUseID, b.name = true, tu.ToolUseID, tu.Name
		}
	case "contentBlockDelta":
		b := s.block(ev.ContentBlockIndex)
		d := ev.Delta
		switch {
		case d.Text != nil:
			b.isText = true
			b.text.WriteString(*d.Text)
			onText(*d.Text)
		case d.ToolUse != nil:
			b.input.WriteString(d.ToolUse.Input)
		case d.Reasoning != nil:
			b.isThinking = true
			if d.Reasoning.Text != nil {
				b.reasoning.WriteString(*d.Reasoning.Text)
			}
			if d.Reasoning.Signature != nil {
				b.signature.WriteString(*d.Reasoning.Signature)
			}
			if d.Reasoning.Redacted != nil {
				// A blob, base64 in JSON: each piece decodes on its own.
				raw, err := base64.StdEncoding.DecodeString(*d.Reasoning.Redacted)
				if err != nil {
					return false, BadStream("bedrock", err)
				}
				b.redacted = append(b.redacted, raw...)
			}
		}
	case "messageStop":
		s.stopped, s.stopReason, s.additional = true, ev.StopReason, ev.Additional
	case "metadata":
		s.usage, s.metrics, s.trace = ev.Usage, ev.Metrics, ev.Trace
	}
	return false, nil
}

// body is the Converse response: {"output":{"message":{"role","content"}},
// "stopReason","usage","metrics"...}, the content blocks in their index
// order. The metadata event follows messageStop, so a stream is read to
// its end.
func (s *bedrockStream) Body() ([]byte, error) {
	if !s.stopped {
		return nil, ErrStreamCut
	}
	slices.SortStableFunc(s.blocks, func(a, b *bedrockBlock) int { return a.index - b.index })
	content := make([]any, 0, len(s.blocks))
	for _, b := range s.blocks {
		switch {
		case b.toolUse:
			in := strings.TrimSpace(b.input.String())
			if in == "" {
				in = "{}"
			}
			if !json.Valid([]byte(in)) {
				return nil, streamFailure("bedrock", fmt.Sprintf("stream: tool input is not JSON: %.200s", in))
			}
			content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": b.toolUseID, "name": b.name, "input": json.RawMessage(in)}})
		case b.isThinking && len(b.redacted) > 0:
			content = append(content, map[string]any{"reasoningContent": map[string]any{"redactedContent": b.redacted}})
		case b.isThinking:
			rt := map[string]any{"text": b.reasoning.String()}
			if b.signature.Len() > 0 {
				rt["signature"] = b.signature.String()
			}
			content = append(content, map[string]any{"reasoningContent": map[string]any{"reasoningText": rt}})
		case b.isText:
			content = append(content, map[string]any{"text": b.text.String()})
		}
	}
	out := map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": cmp.Or(s.role, "assistant"), "content": content}},
		"stopReason": s.stopReason,
	}
	for k, v := range map[string]json.RawMessage{"usage": s.usage, "metrics": s.metrics, "trace": s.trace, "additionalModelResponseFields": s.additional} {
		if len(v) > 0 && string(v) != "null" {
			out[k] = v
		}
	}
	return marshalNoEscape(out)
}
