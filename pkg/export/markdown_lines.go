package export

// The markdown reader's lines: read one at a time, bounded, checked for
// UTF-8, with the titles that name a conversation noted as they pass.

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// nextLine returns the next line without its newline; io.EOF after the last.
func (m *markdownReader) nextLine() (string, error) {
	if m.pendOK {
		m.pendOK = false
		return m.pending, nil
	}
	s, err := m.readLine()
	if err == io.EOF && s == "" {
		return "", io.EOF
	}
	if err != nil && err != io.EOF {
		return "", err
	}
	m.line++
	if m.line == 1 {
		m.crlf = strings.HasSuffix(s, "\r\n")
	}
	s = strings.TrimSuffix(s, "\n")
	if m.crlf {
		s = strings.TrimSuffix(s, "\r")
	}
	// JSONL input with invalid UTF-8 is refused: so is markdown, rather
	// than stored with U+FFFD in place of what was written.
	if !utf8.ValidString(s) {
		return "", m.errorf(m.line, "invalid UTF-8")
	}
	if isTitle(s) {
		// "# Conversation ID" names the conversation of what follows; any
		// other title names none.
		m.title = ""
		if id, ok := strings.CutPrefix(s, "# Conversation "); ok {
			m.title = strings.TrimSpace(id)
		}
	}
	return s, nil
}

// maxMarkdownLine bounds a line: a record's text is at most
// transcript.MaxRecordBytes, and a summary's JSON block holds its
// summaryIds on top (64 MiB is over two million ids). A longer line is no
// export of convo's (/dev/zero is one endless line): refused, not held.
var maxMarkdownLine = 64 << 20

// readLine is bufio.Reader.ReadString('\n') up to maxMarkdownLine bytes.
func (m *markdownReader) readLine() (string, error) {
	line, err := transcript.ReadLine(m.in, maxMarkdownLine)
	if len(line) > maxMarkdownLine {
		return "", m.errorf(m.line+1, "a line of over %d bytes: no markdown export of convo's", maxMarkdownLine)
	}
	return string(line), err
}

func (m *markdownReader) unread(s string) { m.pending, m.pendOK = s, true }
