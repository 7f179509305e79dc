package cmd

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/convo-cli/convo/pkg/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/show with what show prints")

// wrapped is a conversation whose text needs the layout's care: newlines,
// words longer than a line, wide characters, tabs, an escape sequence and
// a bidirectional override a terminal would obey, a tool result by name
// only through the call it answers, an error.
var wrapped = []string{
	`{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"user","contents":["First line.\nSecond line, which is long enough to be wrapped at a space before the width.\n\nAfter a blank line: https://example.com/a/very/long/path/that/no/line/can/hold/whole?q=1","東京で一番おいしいラーメン屋はどこですか、教えてください。"]},"metadata":{"timing":{"creation":1744815823058}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ2","message":{"role":"assistant","contents":["Red: \u001b[31mnot red\u001b[0m, tab:\there, \u202Eoverride\u202C."],"tool_calls":[{"id":"c1","name":"lookup","arguments":"{\"q\":\"ramen\"}"}]},"metadata":{"timing":{"creation":1744815830000}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ3","message":{"role":"tool","tool_call_id":"c1","is_error":true,"contents":["timeout"]},"metadata":{"timing":{"creation":1744902230000}}}`,
}

// show's layout for people, against golden files (go test ./cmd -run
// TestShowGolden -update rewrites them): times in UTC, widths and colour
// as a terminal would give them.
func TestShowGolden(t *testing.T) {
	yes := true
	tools := []string{
		`{"role":"assistant","tool_calls":[{"id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"id":"c2","name":"now","arguments":"{}"}]}`,
		`{"role":"tool","tool_call_id":"c1","name":"get_weather","is_error":true,"content":"timeout"}`,
		`{"role":"tool","tool_call_id":"c2","content":"ok"}`,
		`{"role":"assistant","content":"Done.","metadata":{"timing":{"creation":7,"llmEnd":9},"aux":{"k":{"a":1},"model":"m"}}}`,
	}
	tests := []struct {
		name    string
		records []string
		opts    showOptions
		newIDs  bool // ids made by append: shown as <id>
	}{
		{"chat", chat, showOptions{}, false},
		{"chat-verbose", chat, showOptions{verbose: true}, false},
		{"chat-colour", chat, showOptions{colour: &yes}, false},
		{"tools", tools, showOptions{}, false},
		{"tools-verbose", tools, showOptions{verbose: true}, true},
		{"wrapped-40", wrapped, showOptions{width: 40}, false},
		{"wrapped-80", wrapped, showOptions{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := appendTo(t, "demo", tt.records...)
			out := f.IO.Out.(*bytes.Buffer)
			out.Reset()
			o := tt.opts
			o.f, o.conversation, o.loc = f, "demo", time.UTC
			if err := showRun(context.Background(), &o); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.newIDs {
				got = regexp.MustCompile(`\b[0-9A-Z]{26}\b`).ReplaceAllString(got, "<id>")
			}
			path := filepath.Join("testdata", "show", tt.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./cmd -run TestShowGolden -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("show differs from %s (-update rewrites it):\n%s", path, got)
			}
			width := o.width
			if width == 0 {
				width = showWidth
			}
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if o.colour == nil && runewidth.StringWidth(line) > width {
					t.Errorf("line over %d columns: %q", width, line)
				}
				if strings.ContainsRune(line, 0x1b) && o.colour == nil {
					t.Errorf("an escape reaches the terminal: %q", line)
				}
			}
		})
	}
}

// At a terminal show colours its output unless NO_COLOR or TERM=dumb say
// otherwise; anywhere else it never does.
func TestShowColourAtTerminal(t *testing.T) {
	for _, tt := range []struct {
		tty           bool
		noColor, term string
		want          bool
	}{
		{tty: true, term: "xterm", want: true},
		{tty: true, noColor: "1", term: "xterm"},
		{tty: true, term: "dumb"},
		{tty: false, term: "xterm"},
	} {
		t.Setenv("NO_COLOR", tt.noColor)
		t.Setenv("TERM", tt.term)
		io, _, _ := Test("")
		io.stdoutTTY = tt.tty
		if got := useColour(io); got != tt.want {
			t.Errorf("terminal %v, NO_COLOR=%q, TERM=%q: colour %v, want %v", tt.tty, tt.noColor, tt.term, got, tt.want)
		}
	}
}

// The width is the terminal's: a narrower one wraps sooner.
func TestShowWidthFromTerminal(t *testing.T) {
	f := appendTo(t, "demo", wrapped...)
	f.IO.stdoutTTY, f.IO.width = true, 30
	out := f.IO.Out.(*bytes.Buffer)
	out.Reset()
	no := false
	if err := showRun(context.Background(), &showOptions{f: f, conversation: "demo", colour: &no, loc: time.UTC}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if runewidth.StringWidth(line) > 30 {
			t.Errorf("line over the terminal's 30 columns: %q", line)
		}
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
	p := newPeoplePrinter(nil, 80, false, false, true, time.UTC)
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
