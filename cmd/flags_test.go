package cmd

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
)

// execFlags runs a command built with a recording runF on args and checks
// the exit code its error maps to and a text the error holds.
func execFlags(t *testing.T, cmd *cobra.Command, code int, text string, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetFlagErrorFunc(flagError) // the root's, which Run's commands inherit
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	if got := exitcode.Of(err); got != code {
		t.Fatalf("%s: exit %d (%v), want %d", strings.Join(args, " "), got, err, code)
	}
	if err != nil && !strings.Contains(err.Error(), text) {
		t.Fatalf("%s: error %q lacks %q", strings.Join(args, " "), err, text)
	}
}

// appendTo appends JSONL lines to conv through the real command.
func appendTo(t *testing.T, conv string, lines ...string) *Factory {
	t.Helper()
	f, _, _ := testFactory(t, strings.Join(lines, "\n")+"\n")
	if err := runCmd(t, f, "append", "-q", "-c", conv); err != nil {
		t.Fatal(err)
	}
	f.quiet = false
	return f
}

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

func TestParseCutoff(t *testing.T) {
	now := time.UnixMilli(10 * 24 * 3600 * 1000)
	day := int64(24 * 3600 * 1000)
	tests := []struct {
		in   string
		want int64
	}{
		{"1d", now.UnixMilli() - day},
		{"1w", now.UnixMilli() - 7*day},
		{"1.5d", now.UnixMilli() - day*3/2},
		{"36h", now.UnixMilli() - day*3/2},
		{"1970-01-02T00:00:00Z", day},
		// Dates and times without a zone are UTC, as convo prints them.
		{"1970-01-02", day},
		{"1970-01-02T01:00", day + 3600*1000},
		{"1970-01-02 01:00:30", day + 3600*1000 + 30*1000},
		{"1970-01-02T01:00:30.5", day + 3600*1000 + 30500},
		{"86400000", day},
		// A record id stands for the time it was made.
		{"01JRZJ166J2WRMF990535EVSQS", 1744815823058},
		{"01jrzj166j2wrmf990535evsqs", 1744815823058},
	}
	for _, tt := range tests {
		got, err := parseCutoff("--x", tt.in, now)
		if err != nil || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "d", "-1d", "-2h", "soon", "3x", "-5", "+5", "2026-13-01", "2026-01-01T25:00", "01JRZJ166J2WRMF990535EVSQ"} {
		if _, err := parseCutoff("--x", bad, now); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--x") {
			t.Errorf("%q: %v, want a usage error naming the flag", bad, err)
		}
	}
}

func TestRecordRef(t *testing.T) {
	for in, want := range map[string]transcript.Ref{
		"last": transcript.RefLast, "last-user": transcript.RefLastUser, "last-assistant": transcript.RefLastAssistant,
		"01jrzj166j2wrmf990535evsqs": "01JRZJ166J2WRMF990535EVSQS",
	} {
		if got, err := recordRef("--id", in); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
	for in, text := range map[string]string{"": "missing --id: want a record id", "first": `--id "first": want a record id`} {
		if _, err := recordRef("--id", in); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), text) {
			t.Errorf("%q: %v, want a usage error with %q", in, err, text)
		}
	}
}

// A malformed metadata flag is a usage error; an unknown timing key is
// invalid input, as in a record.
func TestAnnotationFlags(t *testing.T) {
	an, err := annotationFlags([]string{"playStart=now", "llmEnd=7"}, []string{"k=[1, 2]"}, []string{"old"}, 99)
	if err != nil {
		t.Fatal(err)
	}
	if an.Timing["playStart"] != 99 || an.Timing["llmEnd"] != 7 || string(an.Aux["k"]) != "[1,2]" || an.UnsetAux[0] != "old" {
		t.Errorf("annotation %+v", an)
	}
	for _, tt := range []struct {
		timing, aux, unset []string
		code               int
		text               string
	}{
		{timing: []string{"playstart=1"}, code: exitcode.Input, text: `--timing: unknown timing key "playstart"`},
		{timing: []string{"=1"}, code: exitcode.Usage, text: "want KEY=MS"},
		{timing: []string{"playStart=-1"}, code: exitcode.Usage, text: "want milliseconds"},
		{aux: []string{"k"}, code: exitcode.Usage, text: "want KEY=JSON"},
		{aux: []string{"k=text"}, code: exitcode.Usage, text: `quote strings: --aux k='"text"'`},
		{unset: []string{""}, code: exitcode.Usage, text: "--unset-aux: want a KEY"},
	} {
		_, err := annotationFlags(tt.timing, tt.aux, tt.unset, 0)
		if exitcode.Of(err) != tt.code || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%v %v %v: %v (exit %d), want exit %d with %q", tt.timing, tt.aux, tt.unset, err, exitcode.Of(err), tt.code, tt.text)
		}
	}
}

// FuzzParseCutoff: any TIME value is an instant or a usage error naming the
// flag, never a panic; an age is never in the future.
func FuzzParseCutoff(f *testing.F) {
	for _, s := range []string{"2026-01-01", "2026-01-01T09:30", "2026-01-01 09:30:05", "2026-01-01T09:30:00+02:00",
		"1744815823058", "01JRZJ166J2WRMF990535EVSQS", "36h", "30d", "2w", "1.5d", "NaNd", "-1h", "+5", "1e400d", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		ms, err := parseCutoff("--since", v, now)
		if err != nil {
			var ue *exitcode.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--since") {
				t.Fatalf("%q: %v, want a usage error naming the flag", v, err)
			}
			return
		}
		age := strings.HasSuffix(v, "h") || strings.HasSuffix(v, "d") || strings.HasSuffix(v, "w")
		if age && !transcript.IsID(strings.ToUpper(v)) && ms > now.UnixMilli() {
			t.Fatalf("%q: an age %d ms after now", v, ms-now.UnixMilli())
		}
	})
}
