package otel

import (
	"encoding/json"

	"github.com/convo-cli/convo/pkg/transcript"
)

// The message shapes of gen_ai.input.messages and gen_ai.output.messages:
// {"role":R,"parts":[{"type":"text","content":T}, ...]}, a tool result a
// tool_call_response part, a tool call a tool_call part.

// addInput appends r to the input messages of the next chat span.
func (c *Converter) addInput(r *transcript.Record) {
	if !c.Content {
		return
	}
	if len(c.input) == 0 {
		c.input = append(c.input, '[')
	} else {
		c.input = append(c.input, ',')
	}
	m := &r.Message
	c.input = append(c.input, `{"role":`...)
	c.input = transcript.AppendString(c.input, string(m.Role))
	c.input = append(c.input, `,"parts":[`...)
	if m.Role == transcript.RoleTool {
		c.input = append(c.input, `{"type":"tool_call_response","id":`...)
		c.input = transcript.AppendString(c.input, m.ToolCallID)
		c.input = append(c.input, `,"response":`...)
		c.input = transcript.AppendString(c.input, joinLines(m.Contents))
		c.input = append(c.input, "}]}"...)
		return
	}
	c.input = appendTextParts(c.input, m.Contents)
	c.input = append(c.input, "]}"...)
}

// outputMessages is the one message of an assistant or summary record.
func outputMessages(r *transcript.Record, finish string) []byte {
	b := []byte(`[{"role":"assistant","parts":[`)
	b = appendTextParts(b, r.Message.Contents)
	for i, tc := range r.Message.ToolCalls {
		if i > 0 || len(r.Message.Contents) > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"tool_call","id":`...)
		b = transcript.AppendString(b, tc.ID)
		b = append(b, `,"name":`...)
		b = transcript.AppendString(b, tc.Name)
		b = append(b, `,"arguments":`...)
		if json.Valid([]byte(tc.Arguments)) {
			b = append(b, tc.Arguments...)
		} else {
			b = transcript.AppendString(b, tc.Arguments)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if finish != "" {
		b = append(b, `,"finish_reason":`...)
		b = transcript.AppendString(b, finish)
	}
	return append(b, "}]"...)
}

func appendTextParts(b []byte, contents []string) []byte {
	for i, t := range contents {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","content":`...)
		b = transcript.AppendString(b, t)
		b = append(b, '}')
	}
	return b
}

func joinLines(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	n := 0
	for _, t := range s {
		n += len(t) + 1
	}
	b := make([]byte, 0, n)
	for i, t := range s {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, t...)
	}
	return string(b)
}
