package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// markdownWriter writes a transcript for people: a heading per conversation
// and per record, the record's id and metadata on one line with times in
// ISO 8601, contents as paragraphs, tool calls and tool results fenced,
// summaries quoted.
type markdownWriter struct {
	w    *bufio.Writer
	conv string
	n    int
}

func (m *markdownWriter) Write(body []byte) error {
	var r transcript.Record
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("record %.40q: %w", body, err)
	}
	w := m.w
	if m.n == 0 || r.Conversation != m.conv {
		if m.n > 0 {
			w.WriteByte('\n')
		}
		fmt.Fprintf(w, "# Conversation %s\n", codeSpan(r.Conversation))
		m.conv = r.Conversation
	}
	m.n++
	msg := &r.Message
	switch msg.Role {
	case transcript.RoleTool:
		name := msg.Name
		if name == "" {
			name = "result"
		}
		fmt.Fprintf(w, "\n## tool: %s\n\n", name)
	case transcript.RoleSummary:
		fmt.Fprintf(w, "\n## summary of %d records\n\n", len(r.Metadata.SummaryIDs))
	default:
		fmt.Fprintf(w, "\n## %s\n\n", msg.Role)
	}
	w.WriteString(metaLine(&r))
	w.WriteByte('\n')

	for _, c := range msg.Contents {
		w.WriteByte('\n')
		switch msg.Role {
		case transcript.RoleTool:
			writeFenced(w, "", c)
		case transcript.RoleSummary:
			w.WriteString("> ")
			w.WriteString(strings.ReplaceAll(c, "\n", "\n> "))
			w.WriteByte('\n')
		default:
			w.WriteString(c)
			w.WriteByte('\n')
		}
	}
	if len(msg.ToolCalls) > 0 {
		var b []byte
		for _, tc := range msg.ToolCalls {
			b = append(b, `{"id":`...)
			b = transcript.AppendString(b, tc.ID)
			b = append(b, `,"name":`...)
			b = transcript.AppendString(b, tc.Name)
			b = append(b, `,"arguments":`...)
			// Arguments are a JSON text: shown as JSON when they are, quoted when not.
			if json.Valid([]byte(tc.Arguments)) {
				b = append(b, tc.Arguments...)
			} else {
				b = transcript.AppendString(b, tc.Arguments)
			}
			b = append(b, "}\n"...)
		}
		w.WriteByte('\n')
		writeFenced(w, "json", strings.TrimSuffix(string(b), "\n"))
	}
	return nil
}

func (m *markdownWriter) Close() error { return m.w.Flush() }

// metaLine is the record's id and metadata, e.g.
// `01J...` · created 2025-04-16T15:03:43.058Z · merged ×1 · aux `{"k":1}`.
func metaLine(r *transcript.Record) string {
	md := &r.Metadata
	parts := []string{codeSpan(r.ID)}
	for _, k := range transcript.TimingKeys {
		if v, ok := md.Timing.Get(k); ok {
			if k == "creation" {
				k = "created"
			}
			parts = append(parts, k+" "+isoTime(v))
		}
	}
	if r.IsFake() {
		parts = append(parts, "fake")
	}
	if n := r.Merges(); n > 0 {
		parts = append(parts, fmt.Sprintf("merged ×%d", n))
	}
	if id := r.Message.ToolCallID; id != "" {
		parts = append(parts, "answers "+codeSpan(id))
	}
	if r.Message.IsError {
		parts = append(parts, "error")
	}
	if len(md.SummaryIDs) > 0 {
		ids := make([]string, len(md.SummaryIDs))
		for i, id := range md.SummaryIDs {
			ids[i] = codeSpan(id)
		}
		parts = append(parts, "covers "+strings.Join(ids, ", "))
	}
	if len(md.Aux) > 0 {
		keys := slices.Sorted(maps.Keys(md.Aux))
		aux := []byte{'{'}
		for i, k := range keys {
			if i > 0 {
				aux = append(aux, ',')
			}
			aux = append(transcript.AppendString(aux, k), ':')
			aux = append(aux, md.Aux[k]...) // as stored: numbers exact
		}
		parts = append(parts, "aux "+codeSpan(string(append(aux, '}'))))
	}
	return strings.Join(parts, " · ")
}

func isoTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// codeSpan quotes s as inline code, with more backticks than s holds in a
// row so that none closes it early.
func codeSpan(s string) string {
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return tick + s + tick
}

// writeFenced writes s as a fenced code block whose fence is longer than
// any run of backticks in s.
func writeFenced(w *bufio.Writer, lang, s string) {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", fence, lang, s, fence)
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
