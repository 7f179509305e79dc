package search

import (
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Text returns what of r is searchable, the parts joined by newlines: its
// contents (a tool's result and a summary's text included), its tool calls'
// names and arguments, a tool result's tool name. Ids, provider data and
// metadata are not: they are no text of the conversation.
func Text(r *transcript.Record) string {
	m := &r.Message
	if len(m.Contents) == 1 && len(m.ToolCalls) == 0 && m.Role != transcript.RoleTool {
		return m.Contents[0] // the common case, without a copy
	}
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if m.Role == transcript.RoleTool {
		add(m.Name)
	}
	for _, c := range m.Contents {
		add(c)
	}
	for _, tc := range m.ToolCalls {
		add(tc.Name)
		add(tc.Arguments)
	}
	return b.String()
}
