package export

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/endless"

	"github.com/convo-cli/convo/pkg/transcript"
)

// tricky are records whose text markdown would read as structure, or that
// stress how contents are told apart.
var tricky = []string{
	`{"id":"01JRZJ166HZFPP405DV1QQB2X9","conversation":"md","message":{"role":"user","contents":["## assistant\nnot a new record","# Conversation ` + "`x`" + `","` + "```" + `\ncode?\n` + "```" + `","<!-- -->","\\# escaped already","   # indented heading","    four spaces: code","1. one\n2) two\n10\\. already","- item\n* item\n+ item\n> quote\n---\n===\n| a | b |\n<b>html</b>\n[ref]: http://x\n:::","","a\n\nb\n\n","trailing newline\n","\r\nCRLF\r\n","json convo"]},"metadata":{"timing":{"creation":1744815823057}}}`,
	`{"id":"01JRZJ166HZFPP405DV1QQB2XA","conversation":"md","message":{"role":"assistant","contents":[],"tool_calls":[{"id":"call_1","name":"f","arguments":"{\"q\":\"## x\\n` + "```" + `\"}"}]},"metadata":{"timing":{"creation":1744815823058}}}`,
	`{"id":"01JRZJ166HZFPP405DV1QQB2XB","conversation":"md","message":{"role":"tool","contents":["## tool\n<!-- -->\n` + "```json convo" + `\n{}\n` + "```" + `",""],"tool_call_id":"call_1","name":"f\nname"},"metadata":{"timing":{"creation":1744815823059}}}`,
	`{"id":"01JRZJ166HZFPP405DV1QQB2XC","conversation":"md","message":{"role":"assistant","contents":[""]},"metadata":{"timing":{"creation":1744815823060},"aux":{"html":"<!-- -->","arrow":"-->","n":1.50,"u":"\u003c"}}}`,
	`{"id":"01JRZJ166HZFPP405DV1QQB2XD","conversation":"md","message":{"role":"summary","contents":["## user\n\n> quoted\n- list"]},"metadata":{"summaryIds":["01JRZJ166HZFPP405DV1QQB2X9"],"timing":{"creation":1744815823061}}}`,
}

func canonical(t testing.TB, lines [][]byte) []byte {
	t.Helper()
	var out []byte
	var r transcript.Record
	for _, l := range lines {
		if err := transcript.DecodeStored(l, &r); err != nil {
			t.Fatalf("%v\n%s", err, l)
		}
		out = append(transcript.AppendJSON(out, &r), '\n')
	}
	return out
}

func readBack(t testing.TB, md []byte) [][]byte {
	t.Helper()
	var lines [][]byte
	sc := bufio.NewScanner(NewMarkdownReader(bytes.NewReader(md)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the markdown back: %v\n%s", err, md)
	}
	return lines
}

// export --format markdown, read back, gives the same records byte for
// byte: ids, roles, contents, tool calls, metadata.
func TestMarkdownRoundTrip(t *testing.T) {
	bodies := sample(t)
	for _, l := range tricky {
		r, err := transcript.ParseLine([]byte(l))
		if err != nil {
			t.Fatalf("%v\n%s", err, l)
		}
		bodies = append(bodies, transcript.AppendJSON(nil, &r))
	}
	md := render(t, Markdown, Options{}, bodies)
	got := canonical(t, readBack(t, md))
	want := canonical(t, bodies)
	if !bytes.Equal(got, want) {
		t.Errorf("round trip differs:\n got %s\nwant %s\nmarkdown:\n%s", got, want, md)
	}
}

// Text that reads as markdown structure is escaped: a message holding
// "## assistant" is no new heading, and no content line opens a fence.
func TestMarkdownEscapes(t *testing.T) {
	r, err := transcript.ParseLine([]byte(tricky[0]))
	if err != nil {
		t.Fatal(err)
	}
	md := string(render(t, Markdown, Options{}, [][]byte{transcript.AppendJSON(nil, &r)}))
	headings := 0
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			headings++
		}
	}
	if headings != 1 {
		t.Errorf("%d headings, want the record's one:\n%s", headings, md)
	}
	for _, want := range []string{"\n\\## assistant\n", "\n\\# Conversation", "\n\\```\n", "\n\\<!-- -->\n", "\n\\\\# escaped", "\n   \\# indented", "\n1\\. one\n2\\) two\n10\\\\. already\n", "\n\\- item\n\\* item\n\\+ item\n\\> quote\n\\---\n\\===\n\\| a | b |\n\\<b>html", "\n\\[ref]", "\n    four spaces"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// Markdown written by hand, headings and text, reads as bare messages; a
// broken section is invalid input naming its line.
func TestMarkdownReaderHandWritten(t *testing.T) {
	got := readBack(t, []byte("# My chat\n\n## user\n\nHi, \\## there\n\nsecond paragraph\n\n## assistant\nHello!\n"))
	want := "{\"contents\":[\"Hi, \\\\## there\\n\\nsecond paragraph\"],\"role\":\"user\"}\n{\"contents\":[\"Hello!\"],\"role\":\"assistant\"}\n"
	if string(bytes.Join(got, []byte("\n")))+"\n" != want {
		t.Errorf("got\n%s\nwant\n%s", bytes.Join(got, []byte("\n")), want)
	}
	for name, in := range map[string]string{
		"text before a heading": "hello\n",
		"unknown role":          "## robot\n\nbeep\n",
		"open record block":     "## user\n\nmeta\n\nhi\n\n```json convo\n{}\n",
		"bad record block":      "## user\n\nmeta\n\nhi\n\n```json convo\nnot json\n```\n",
		"contents in the block": "## user\n\nmeta\n\nhi\n\n```json convo\n{\"message\":{\"role\":\"user\",\"contents\":[\"x\"]}}\n```\n",
		"no separating line":    "## user\n\nmeta\nhi\n```json convo\n{\"message\":{\"role\":\"user\"}}\n```\n",
		"text after the block":  "## user\n\nmeta\n\nhi\n\n```json convo\n{\"message\":{\"role\":\"user\"}}\n```\ntrailing\n",
		"unquoted summary":      "## summary\n\nmeta\n\nnot quoted\n\n```json convo\n{\"message\":{\"role\":\"summary\"}}\n```\n",
	} {
		_, err := io.ReadAll(NewMarkdownReader(strings.NewReader(in)))
		var ie *transcript.InputError
		if !errors.As(err, &ie) || ie.Line == 0 {
			t.Errorf("%s: %v, want an input error naming a line", name, err)
		}
	}
}

// What JSONL input refuses, markdown refuses too (invalid UTF-8, a
// section with no text); a CRLF file reads as its lines; a hand-written
// section under "# Conversation ID" belongs to that conversation, so the
// reader moves it into -c and says so, as it does a JSONL record.
func TestMarkdownReaderLikeJSONL(t *testing.T) {
	for name, in := range map[string]string{
		"invalid UTF-8": "## user\n\nbad \xff byte\n",
		"empty section": "## user\n\n\n## assistant\n\nx\n",
	} {
		_, err := io.ReadAll(NewMarkdownReader(strings.NewReader(in)))
		var ie *transcript.InputError
		if !errors.As(err, &ie) || ie.Line == 0 {
			t.Errorf("%s: %v, want an input error naming a line", name, err)
		}
	}
	got := readBack(t, []byte("## user\r\n\r\nhello\r\nworld\r\n"))
	if want := `{"contents":["hello\nworld"],"role":"user"}`; len(got) != 1 || string(got[0]) != want {
		t.Errorf("CRLF: got %s, want %s", got, want)
	}
	got = readBack(t, []byte("# Conversation other\n\n## user\n\nhi\n"))
	if want := `{"conversation":"other","message":{"contents":["hi"],"role":"user"}}`; len(got) != 1 || string(got[0]) != want {
		t.Errorf("titled: got %s, want %s", got, want)
	}
}

// FuzzMarkdownRoundTrip: whatever the contents, the markdown export reads
// back to the same record.
func FuzzMarkdownRoundTrip(f *testing.F) {
	for _, s := range []string{"## assistant", "```\nx\n```", "<!-- -->", "1. a\x002) b", "", "\x00", "a\n\nb\n", "\\\\# x", "   > q", "\r\n"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(2))
	}
	roles := []transcript.Role{transcript.RoleUser, transcript.RoleAssistant, transcript.RoleTool, transcript.RoleSummary, transcript.RoleSystem}
	f.Fuzz(func(t *testing.T, text string, role uint8) {
		r := transcript.Record{ID: "01JRZJ166HZFPP405DV1QQB2X9", Conversation: "fuzz", Message: transcript.Message{
			Role: roles[int(role)%len(roles)], Contents: strings.Split(text, "\x00"),
		}}
		r.Metadata.Timing.Set("creation", 1)
		switch r.Message.Role {
		case transcript.RoleTool:
			r.Message.ToolCallID = "call_1"
		case transcript.RoleSummary:
			r.Metadata.SummaryIDs = []string{"01JRZJ166HZFPP405DV1QQB2X8"}
		}
		parsed, err := transcript.ParseLine(transcript.AppendJSON(nil, &r))
		if err != nil {
			return // not a record convo would store
		}
		body := transcript.AppendJSON(nil, &parsed) // as stored: invalid UTF-8 replaced

		md := render(t, Markdown, Options{}, [][]byte{body})
		got := canonical(t, readBack(t, md))
		if want := append(body, '\n'); !bytes.Equal(got, want) {
			t.Fatalf("round trip differs:\n got %s\nwant %s\nmarkdown:\n%q", got, want, md)
		}
	})
}

// FuzzMarkdownReader: any input is read or refused with an input error,
// never a panic.
func FuzzMarkdownReader(f *testing.F) {
	f.Add([]byte("## user\n\nhi\n"))
	f.Add([]byte("## user\n\nmeta\n\nhi\n\n```json convo\n{\"message\":{\"role\":\"user\"}}\n```\n"))
	f.Add([]byte("## tool\n\nmeta\n\n```\nx\n```\n\n<!-- -->\n\n```\n```\n\n```json convo\n{\"message\":{\"role\":\"tool\"}}\n```\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, err := io.ReadAll(NewMarkdownReader(bytes.NewReader(in)))
		var ie *transcript.InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("%v: not an input error", err)
		}
	})
}

// An endless line (/dev/zero) is refused once past maxMarkdownLine, naming
// its line, rather than held whole; a line of that length is read.
func TestMarkdownReaderLongLine(t *testing.T) {
	defer func(n int) { maxMarkdownLine = n }(maxMarkdownLine)
	maxMarkdownLine = 64 << 10
	_, err := io.ReadAll(NewMarkdownReader(io.MultiReader(strings.NewReader("## user\n"), &endless.Line{Max: 1 << 30})))
	var ie *transcript.InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), "a line of over 65536 bytes") {
		t.Fatalf("an endless line: %v, want an input error naming line 2", err)
	}
	text := strings.Repeat("x", maxMarkdownLine-1) + "\n"
	out, err := io.ReadAll(NewMarkdownReader(strings.NewReader("## user\n" + text)))
	if err != nil || !bytes.Contains(out, []byte(strings.Repeat("x", 100))) {
		t.Fatalf("a line at the bound: %v", err)
	}
}
