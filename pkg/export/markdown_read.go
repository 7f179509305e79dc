package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// NewMarkdownReader reads the markdown export (see markdownWriter) and
// yields it as JSONL, one record a line, for append to read as any other
// input: each record's fenced "json convo" block gives its id,
// conversation, role, tool calls and metadata, its text gives the contents,
// unescaped. A section written by hand, a "## ROLE" heading and text with no
// such block, yields a bare message of that role with the text as its one
// content. A malformed section is a *transcript.InputError naming its line.
func NewMarkdownReader(r io.Reader) io.Reader {
	return &markdownReader{in: bufio.NewReader(r)}
}

type markdownReader struct {
	in      *bufio.Reader
	line    int    // lines read so far
	crlf    bool   // the first line ended in CRLF: every line's CR is cut
	title   string // the conversation the last "# Conversation ID" heading named
	pending string // a heading read past the end of the section before it
	pendOK  bool
	out     bytes.Buffer
	err     error
}

func (m *markdownReader) Read(p []byte) (int, error) {
	for m.out.Len() == 0 && m.err == nil {
		m.err = m.section()
	}
	if m.out.Len() > 0 {
		return m.out.Read(p)
	}
	return 0, m.err
}

func (m *markdownReader) errorf(line int, format string, args ...any) error {
	return &transcript.InputError{Line: line, Err: fmt.Errorf("markdown: "+format, args...)}
}

// section reads up to the next record and writes its JSON line to out;
// io.EOF at the end of the input.
func (m *markdownReader) section() error {
	var heading string
	var at int
	for {
		line, err := m.nextLine()
		if err != nil {
			return err
		}
		switch {
		case strings.TrimSpace(line) == "", isTitle(line):
			continue
		case strings.HasPrefix(line, "## "):
			heading, at = line, m.line
		default:
			return m.errorf(m.line, "want a \"## ROLE\" heading before the text %.40q", line)
		}
		break
	}
	// The section's lines up to its record block, or up to the next
	// heading when it has none.
	var body []int // line numbers, for errors
	var lines []string
	var fence string // the fence open at this point, "" at top level
	var info string
	var blockStart int
	for {
		line, err := m.nextLine()
		if err == io.EOF {
			if fence != "" {
				return m.errorf(m.line, "fence opened at line %d is never closed", blockStart)
			}
			return m.handWritten(heading, at, lines)
		}
		if err != nil {
			return err
		}
		if fence == "" {
			if strings.HasPrefix(line, "## ") || isTitle(line) {
				m.unread(line)
				return m.handWritten(heading, at, lines)
			}
			if f, i, ok := fenceOpen(line); ok {
				fence, info, blockStart = f, i, m.line
				if info == mdRecordInfo {
					return m.record(heading, at, lines, body, blockStart, fence)
				}
			}
		} else if isFenceClose(line, fence) {
			fence = ""
		}
		lines = append(lines, line)
		body = append(body, m.line)
	}
}

// handWritten is a section without a record block: a bare message of the
// heading's role, its text the one content.
func (m *markdownReader) handWritten(heading string, at int, lines []string) error {
	role, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(heading, "## ")), " ")
	role = strings.TrimSuffix(role, ":")
	if !transcript.Role(role).Valid() {
		return m.errorf(at, "heading %.40q: want ## system, user, assistant, tool or summary", heading)
	}
	for i := range lines {
		lines[i] = unescapeLine(lines[i])
	}
	text := strings.Trim(strings.Join(lines, "\n"), "\n")
	if strings.TrimSpace(text) == "" {
		return m.errorf(at, "heading %.40q has no text under it", heading)
	}
	msg := map[string]any{"role": role, "contents": []string{text}}
	var b []byte
	if m.title != "" {
		// Under "# Conversation ID" the message is that conversation's: a
		// reader with -c moves it, and says so, as it does a JSONL record.
		b, _ = json.Marshal(map[string]any{"conversation": m.title, "message": msg})
	} else {
		b, _ = json.Marshal(msg)
	}
	m.out.Write(b)
	m.out.WriteByte('\n')
	return nil
}

// record reads a record's block (its opening fence already read) and
// rebuilds the record from it and the section's text.
func (m *markdownReader) record(heading string, at int, lines []string, lineNos []int, blockStart int, fence string) error {
	var block []string
	for {
		line, err := m.nextLine()
		if err == io.EOF {
			return m.errorf(m.line, "record block opened at line %d is never closed", blockStart)
		}
		if err != nil {
			return err
		}
		if isFenceClose(line, fence) {
			break
		}
		block = append(block, line)
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.Join(block, "\n")), &rec); err != nil {
		return m.errorf(blockStart+1, "record block: %v", err)
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(rec["message"], &msg); err != nil || msg == nil {
		return m.errorf(blockStart+1, "record block: no message object")
	}
	var role transcript.Role
	if err := json.Unmarshal(msg["role"], &role); err != nil {
		return m.errorf(blockStart+1, "record block: message.role: %v", err)
	}
	if _, ok := msg["contents"]; ok {
		return m.errorf(blockStart+1, "record block: message.contents is the section's text, not part of the block")
	}
	// lines: "", the metadata line, then the contents, each framed by
	// empty lines and parted by separators, then the tool calls' fence.
	if len(lines) < 3 || lines[0] != "" || lines[len(lines)-1] != "" {
		return m.errorf(at, "section %.40q: want an empty line, the metadata line, the contents and an empty line before the record block", heading)
	}
	body, bodyAt := lines[2:], lineNos[2:]
	if _, ok := msg["tool_calls"]; ok {
		end, err := m.dropToolCalls(body, bodyAt)
		if err != nil {
			return err
		}
		// The empty line before the fence ends the last content.
		body, bodyAt = body[:end], bodyAt[:end]
	}
	contents, err := m.contents(role, body, bodyAt)
	if err != nil {
		return err
	}
	c, _ := json.Marshal(contents)
	msg["contents"] = c
	line, err := marshalRaw(rec, msg)
	if err != nil {
		return err
	}
	m.out.Write(line)
	// Only empty lines may stand between the block and the next section.
	for {
		line, err := m.nextLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) != "" {
			m.unread(line)
			if !strings.HasPrefix(line, "## ") && !isTitle(line) {
				return m.errorf(m.line, "text %.40q after the record block: want the next \"## ROLE\" heading", line)
			}
			return nil
		}
	}
}

// marshalRaw is rec with msg as its message, as one JSON line; text is
// kept as written (no HTML escaping), numbers as they were.
func marshalRaw(rec, msg map[string]json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	rec["message"] = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	var out bytes.Buffer
	enc = json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// dropToolCalls finds the fence of tool calls the section ends with (body's
// last line is the empty line after it) and returns where it starts.
func (m *markdownReader) dropToolCalls(body []string, at []int) (int, error) {
	n := len(body)
	if n < 3 || body[n-1] != "" {
		return 0, m.errorf(at[0], "the record has tool calls: want their fenced block before the record block")
	}
	closing := body[n-2]
	for i := n - 3; i >= 0; i-- {
		if f, info, ok := fenceOpen(body[i]); ok && info == "json" && isFenceClose(closing, f) {
			return i, nil
		}
	}
	return 0, m.errorf(at[0], "the record has tool calls: want their fenced block before the record block")
}

// contents splits body at the separators outside fences and undoes how
// each content was written for role.
func (m *markdownReader) contents(role transcript.Role, body []string, at []int) ([]string, error) {
	out := []string{}
	if len(body) == 1 && body[0] == "" {
		return out, nil
	}
	if len(body) == 0 {
		return nil, m.errorf(m.line, "want an empty line before the record block")
	}
	var chunks [][]string
	var chunkAt []int
	start, fence := 0, ""
	for i, line := range body {
		if fence != "" {
			if isFenceClose(line, fence) {
				fence = ""
			}
			continue
		}
		if f, _, ok := fenceOpen(line); ok {
			fence = f
			continue
		}
		if line == mdContentSeparator {
			chunks, chunkAt = append(chunks, body[start:i]), append(chunkAt, at[start])
			start = i + 1
		}
	}
	chunks, chunkAt = append(chunks, body[start:]), append(chunkAt, at[min(start, len(at)-1)])
	for k, chunk := range chunks {
		if len(chunk) < 3 || chunk[0] != "" || chunk[len(chunk)-1] != "" {
			return nil, m.errorf(chunkAt[k], "a content must stand between empty lines")
		}
		text, err := unrender(role, chunk[1:len(chunk)-1])
		if err != nil {
			return nil, m.errorf(chunkAt[k]+1, "%v", err)
		}
		out = append(out, text)
	}
	return out, nil
}

// unrender undoes how markdownWriter wrote one content of role.
func unrender(role transcript.Role, lines []string) (string, error) {
	switch role {
	case transcript.RoleTool:
		n := len(lines)
		if n < 2 {
			return "", errors.New("a tool result is a fenced block")
		}
		f, info, ok := fenceOpen(lines[0])
		if !ok || info != "" || !isFenceClose(lines[n-1], f) {
			return "", errors.New("a tool result is a fenced block")
		}
		return strings.Join(lines[1:n-1], "\n"), nil
	case transcript.RoleSummary:
		out := make([]string, len(lines))
		for i, line := range lines {
			rest, ok := strings.CutPrefix(line, "> ")
			if !ok {
				return "", fmt.Errorf("summary line %.40q: want it quoted with \"> \"", line)
			}
			out[i] = unescapeLine(rest)
		}
		return strings.Join(out, "\n"), nil
	default:
		out := make([]string, len(lines))
		for i, line := range lines {
			out[i] = unescapeLine(line)
		}
		return strings.Join(out, "\n"), nil
	}
}

// isTitle reports a conversation heading ("# Conversation ..."), which
// the reader passes over: the record block names the conversation.
func isTitle(line string) bool { return strings.HasPrefix(line, "# ") || line == "#" }

// fenceOpen reports whether line opens a backtick fence, returning the
// fence and its info string.
func fenceOpen(line string) (fence, info string, ok bool) {
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	if n < 3 || strings.Contains(line[n:], "`") {
		return "", "", false
	}
	return line[:n], strings.TrimSpace(line[n:]), true
}

// isFenceClose reports whether line closes fence: backticks only, at least
// as many.
func isFenceClose(line, fence string) bool {
	return len(line) >= len(fence) && strings.Trim(line, "`") == ""
}
