package format

// Ollama's streamed /api/chat ("stream": true, Ollama's default): one JSON
// object per line, message.content, message.thinking and
// message.tool_calls pieces while "done" is false, then a last object with
// done true, done_reason and the counters. An {"error": "..."} object
// reports a failure, also mid-stream.
//   https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ollamaStream assembles a streamed chat answer into the body the same
// call returns without streaming: the last object, its message holding the
// whole content, thinking and every tool call.
type ollamaStream struct {
	content, thinking strings.Builder
	calls             []json.RawMessage
	last              []byte // the done object, nil until it came
}

// Add implements StreamAssembler: data is one line.
func (s *ollamaStream) Add(_ string, data []byte, onText func(string)) (end bool, err error) {
	var chunk struct {
		Message *struct {
			Content   string            `json:"content"`
			Thinking  string            `json:"thinking"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		Done  bool            `json:"done"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &chunk); err != nil {
		return false, BadStream("ollama", err)
	}
	if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
		return false, streamError("ollama", data)
	}
	if m := chunk.Message; m != nil {
		s.content.WriteString(m.Content)
		s.thinking.WriteString(m.Thinking)
		s.calls = append(s.calls, m.ToolCalls...)
		onText(m.Content)
	}
	if chunk.Done {
		s.last = bytes.Clone(data)
		return true, nil
	}
	return false, nil
}

// Body implements StreamAssembler: the last object with the assembled
// message in.
func (s *ollamaStream) Body() ([]byte, error) {
	if s.last == nil {
		return nil, ErrStreamCut
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(s.last, &out); err != nil {
		return nil, BadStream("ollama", err)
	}
	msg := map[string]json.RawMessage{}
	if m, ok := out["message"]; ok {
		_ = json.Unmarshal(m, &msg)
	}
	set := func(k string, v any) {
		msg[k], _ = marshalNoEscape(v)
	}
	if _, ok := msg["role"]; !ok {
		set("role", "assistant")
	}
	set("content", s.content.String())
	if thinking := s.thinking.String(); thinking != "" {
		set("thinking", thinking)
	} else {
		delete(msg, "thinking")
	}
	if len(s.calls) > 0 {
		set("tool_calls", s.calls)
	} else {
		delete(msg, "tool_calls")
	}
	var err error
	if out["message"], err = marshalNoEscape(msg); err != nil {
		return nil, err
	}
	return marshalNoEscape(out)
}
