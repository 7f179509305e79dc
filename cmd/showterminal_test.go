package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/mattn/go-runewidth"
)

// wrapped is a conversation whose lines a narrow terminal must wrap (the
// layout's golden files are pkg/show's).
var wrapped = []string{
	`{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"user","contents":["First line.\nSecond line, which is long enough to be wrapped at a space before the width.\n\nAfter a blank line: https://example.com/a/very/long/path/that/no/line/can/hold/whole?q=1","東京で一番おいしいラーメン屋はどこですか、教えてください。"]},"metadata":{"timing":{"creation":1744815823058}}}`,
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
		io, _, _ := iostreams.Test("")
		io.SetStdoutTTY(tt.tty)
		if got := useColour(io); got != tt.want {
			t.Errorf("terminal %v, NO_COLOR=%q, TERM=%q: colour %v, want %v", tt.tty, tt.noColor, tt.term, got, tt.want)
		}
	}
}

// The width is the terminal's: a narrower one wraps sooner.
func TestShowWidthFromTerminal(t *testing.T) {
	f := appendTo(t, "demo", wrapped...)
	f.IO.SetStdoutTTY(true)
	f.IO.SetWidth(30)
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
