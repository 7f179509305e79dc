package show

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/show with what show prints")

// chat is a conversation with a system prompt, two turns and a summary of
// the first (ids end in 1 to 6, creation times in 1 to 6).
var chat = []string{
	`{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"system","contents":["Be brief."]},"metadata":{"timing":{"creation":1}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ2","message":{"role":"user","contents":["Weather in Paris?"]},"metadata":{"timing":{"creation":2}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ3","message":{"role":"assistant","contents":["Sunny."]},"metadata":{"timing":{"creation":3}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ4","message":{"role":"summary","contents":["Paris is sunny."]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQ2","01JRZJ166J2WRMF990535EVSQ3"],"timing":{"creation":4}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ5","message":{"role":"user","contents":["And Lisbon?"]},"metadata":{"timing":{"creation":5}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ6","message":{"role":"assistant","contents":["Rainy."]},"metadata":{"timing":{"creation":6}}}`,
}

// stored is a store holding lines (records or bare messages) in conv,
// appended as convo append does, at a fixed time.
func stored(t *testing.T, conv string, lines ...string) Store {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Now = func() time.Time { return time.UnixMilli(1744815823058) }
	dec := transcript.NewDecoder(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	dec.Conversation = conv
	dec.CheckAppend(nil, true)
	if _, err := s.Append(ctx, conv, transcript.NewIDs(), dec.Stream()); err != nil {
		t.Fatal(err)
	}
	return s
}

// options are what cmd's show hands the layout.
type options struct {
	verbose bool
	width   int
	colour  bool
}

// wrapped is a conversation whose text needs the layout's care: newlines,
// words longer than a line, wide characters, tabs, an escape sequence and
// a bidirectional override a terminal would obey, a tool result by name
// only through the call it answers, an error.
var wrapped = []string{
	`{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"user","contents":["First line.\nSecond line, which is long enough to be wrapped at a space before the width.\n\nAfter a blank line: https://example.com/a/very/long/path/that/no/line/can/hold/whole?q=1","東京で一番おいしいラーメン屋はどこですか、教えてください。"]},"metadata":{"timing":{"creation":1744815823058}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ2","message":{"role":"assistant","contents":["Red: \u001b[31mnot red\u001b[0m, tab:\there, \u202Eoverride\u202C."],"tool_calls":[{"id":"c1","name":"lookup","arguments":"{\"q\":\"ramen\"}"}]},"metadata":{"timing":{"creation":1744815830000}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ3","message":{"role":"tool","tool_call_id":"c1","is_error":true,"contents":["timeout"]},"metadata":{"timing":{"creation":1744902230000}}}`,
}

// show's layout for people, against golden files (go test ./pkg/show -run
// TestShowGolden -update rewrites them): times in UTC, widths and colour
// as a terminal would give them.
func TestShowGolden(t *testing.T) {
	tools := []string{
		`{"role":"assistant","tool_calls":[{"id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"id":"c2","name":"now","arguments":"{}"}]}`,
		`{"role":"tool","tool_call_id":"c1","name":"get_weather","is_error":true,"content":"timeout"}`,
		`{"role":"tool","tool_call_id":"c2","content":"ok"}`,
		`{"role":"assistant","content":"Done.","metadata":{"timing":{"creation":7,"llmEnd":9},"aux":{"k":{"a":1},"model":"m"}}}`,
	}
	tests := []struct {
		name    string
		records []string
		opts    options
		newIDs  bool // ids made by append: shown as <id>
	}{
		{"chat", chat, options{}, false},
		{"chat-verbose", chat, options{verbose: true}, false},
		{"chat-colour", chat, options{colour: true}, false},
		{"tools", tools, options{}, false},
		{"tools-verbose", tools, options{verbose: true}, true},
		{"wrapped-40", wrapped, options{width: 40}, false},
		{"wrapped-80", wrapped, options{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stored(t, "demo", tt.records...)
			var out bytes.Buffer
			w := bufio.NewWriter(&out)
			o := tt.opts
			err := Run(context.Background(), s, "demo", "default", func(hasSummary bool) Printer {
				return NewLayout(w, o.width, o.colour, o.verbose, hasSummary, time.UTC)
			})
			if err != nil || w.Flush() != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.newIDs {
				got = regexp.MustCompile(`\b[0-9A-Z]{26}\b`).ReplaceAllString(got, "<id>")
			}
			path := filepath.Join("testdata", "show", tt.name+".golden")
			golden.Check(t, path, []byte(got), *update)
			width := o.width
			if width == 0 {
				width = showWidth
			}
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if !o.colour && runewidth.StringWidth(line) > width {
					t.Errorf("line over %d columns: %q", width, line)
				}
				if strings.ContainsRune(line, 0x1b) && !o.colour {
					t.Errorf("an escape reaches the terminal: %q", line)
				}
			}
		})
	}
}

// A summary names the records it covers by index, also when it carries a
// previous summary forward, and by count alone when they are gone.
func TestShowCoveredRange(t *testing.T) {
	rec := func(id string, role transcript.Role) *transcript.Record {
		r := &transcript.Record{ID: id}
		r.Message.Role = role
		return r
	}
	p := NewLayout(nil, 80, false, false, true, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		p.remember(i, rec(id, transcript.RoleUser))
	}
	if got := p.covered([]string{"a", "b", "c"}); got != "records 0-2 (3)" {
		t.Errorf("covered: %q", got)
	}
	p.remember(3, rec("s1", transcript.RoleSummary))
	p.remember(4, rec("d", transcript.RoleUser))
	if got := p.covered([]string{"s1", "d"}); got != "records 3-4 (2)" {
		t.Errorf("progressive: %q", got)
	}
	if got := p.covered([]string{"gone1", "gone2"}); got != "2 records" {
		t.Errorf("deleted originals: %q", got)
	}
}
