package export

import (
	"bufio"
	"bytes"
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
// summaries quoted. Text that markdown would read as structure (a heading,
// a quote, a list, a fence, HTML) is escaped with a backslash, so that a
// message holding "## assistant" reads as text, not as a new record.
//
// It is also a format convo reads back (NewMarkdownReader, append --format
// markdown): contents are separated by an empty HTML comment ("<!-- -->")
// and each record ends with a fenced block, info string "json convo",
// holding the record less its contents, so that ids, roles, tool calls and
// metadata come back byte for byte.
type markdownWriter struct {
	w    *bufio.Writer
	conv string
	n    int
}

// Markers of the markdown a reader relies on.
const (
	mdContentSeparator = "<!-- -->"
	mdRecordInfo       = "json convo"
)

func (m *markdownWriter) Write(body []byte) error {
	var r transcript.Record
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("record %.40q: %w", body, err)
	}
	rest, err := recordWithoutContents(body)
	if err != nil {
		return fmt.Errorf("record %.40q: %w", body, err)
	}
	w := m.w
	if m.n == 0 || r.Conversation != m.conv {
		if m.n > 0 {
			w.WriteByte('\n')
		}
		fmt.Fprintf(w, "# Conversation %s\n", oneLine(codeSpan(r.Conversation)))
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
		fmt.Fprintf(w, "\n## tool: %s\n\n", oneLine(name))
	case transcript.RoleSummary:
		fmt.Fprintf(w, "\n## summary of %d records\n\n", len(r.Metadata.SummaryIDs))
	default:
		fmt.Fprintf(w, "\n## %s\n\n", msg.Role)
	}
	w.WriteString(oneLine(metaLine(&r)))
	w.WriteByte('\n')

	for i, c := range msg.Contents {
		if i > 0 {
			w.WriteString("\n" + mdContentSeparator + "\n")
		}
		w.WriteByte('\n')
		switch msg.Role {
		case transcript.RoleTool:
			writeFenced(w, "", c)
		case transcript.RoleSummary:
			for line := range strings.SplitSeq(c, "\n") {
				w.WriteString("> ")
				w.WriteString(escapeLine(line))
				w.WriteByte('\n')
			}
		default:
			for line := range strings.SplitSeq(c, "\n") {
				w.WriteString(escapeLine(line))
				w.WriteByte('\n')
			}
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
	w.WriteByte('\n')
	writeFenced(w, mdRecordInfo, string(rest))
	return nil
}

// recordWithoutContents is the canonical record body less
// message.contents, every other byte as stored (aux numbers and strings
// exactly as given).
func recordWithoutContents(body []byte) ([]byte, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, err
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(rec["message"], &msg); err != nil {
		return nil, err
	}
	delete(msg, "contents")
	line, err := marshalRaw(rec, msg)
	return bytes.TrimSuffix(line, []byte("\n")), err
}

// oneLine keeps a heading or the metadata line on one line whatever the
// names in it hold.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// escapeLine escapes a line of text that markdown would read as structure:
// after up to three spaces, a backslash goes before a character that opens a
// heading, quote, list, fence, table, HTML block, link definition or
// setext underline, and before the "." or ")" of an ordered list marker. A
// line that already starts so with a backslash gets one more, so that
// unescapeLine undoes exactly this.
func escapeLine(line string) string {
	indent := leadingSpaces(line)
	rest := line[indent:]
	if rest == "" {
		return line
	}
	if n := orderedMarker(rest); n > 0 {
		return line[:indent+n] + `\` + rest[n:]
	}
	if strings.IndexByte(mdBlockStarts, rest[0]) >= 0 {
		return line[:indent] + `\` + rest
	}
	return line
}

// unescapeLine undoes escapeLine.
func unescapeLine(line string) string {
	indent := leadingSpaces(line)
	rest := line[indent:]
	if strings.HasPrefix(rest, `\`) {
		return line[:indent] + rest[1:]
	}
	if n := orderedMarker(rest); n > 0 && rest[n] == '\\' {
		return line[:indent+n] + rest[n+1:]
	}
	return line
}

// mdBlockStarts are the characters that, first on a line, can make it
// markdown structure; the backslash is there to keep escaping reversible.
const mdBlockStarts = "\\#>`~-*+=_|<[:"

func leadingSpaces(s string) int {
	n := 0
	for n < 3 && n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

// orderedMarker returns the number of digits starting s when they are
// followed by backslashes and then "." or ")" (an ordered list marker, once
// the backslashes are gone), else 0.
func orderedMarker(s string) int {
	d := 0
	for d < len(s) && d < 9 && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d == 0 {
		return 0
	}
	i := d
	for i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '.' || s[i] == ')') {
		return d
	}
	return 0
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
