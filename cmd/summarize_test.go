package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/store"
)

// tripJSONL is a short conversation about a trip, as bare messages.
const tripJSONL = `{"role":"user","content":"I want to visit Lisbon in May. My budget is 900 EUR."}
{"role":"assistant","content":"Lisbon in May is mild. Flights from Berlin start at 120 EUR."}
{"role":"user","content":"Please always book window seats. Use order #4512 for the flight."}
{"role":"assistant","content":"Noted: window seats, order #4512."}
{"role":"user","content":"Book the 9 May 2026 flight."}
{"role":"assistant","content":"Thanks, booked the 9 May 2026 flight at 08:40."}
{"role":"user","content":"Also a hotel near the river?"}
`

// parseSummarize parses args as `convo summarize` does and returns the
// options summarizeRun would get, or the error.
func parseSummarize(t *testing.T, f *Factory, args ...string) (*summarizeOptions, error) {
	t.Helper()
	return parseFlags(t, f, newCmdSummarize, args...)
}

func TestSummarizeFlags(t *testing.T) {
	tests := []struct {
		args    []string
		tty     bool // stdin is a terminal
		errCode int
		errText string
		check   func(*summarizeOptions) bool
	}{
		{args: []string{"-c", "demo"}, check: func(o *summarizeOptions) bool {
			return o.conversation == "demo" && o.keepLast == 4 && o.jobs == 4 && o.wait == nil && o.provider.name == "extractive"
		}},
		{args: []string{"--all", "-j", "8", "--rate", "60/m", "--if-over", "4000", "--every", "6"}, check: func(o *summarizeOptions) bool {
			return o.all && o.jobs == 8 && o.wait != nil && o.ifOver == 4000 && o.every == 6
		}},
		{args: []string{"--dry-run", "--keep-last", "0", "--summary-ratio", "0.1", "--delete-originals"}, check: func(o *summarizeOptions) bool {
			return o.dryRun && o.keepLast == 0 && o.ratio == 0.1 && o.deleteOriginals && !o.all && o.conversation == ""
		}},
		{args: []string{"-c", "demo", "--all"}, errCode: exitcode.Usage, errText: "not both"},
		{args: []string{"--all", "--rate", "fast"}, errCode: exitcode.Usage, errText: `--rate "fast"`},
		{args: []string{"--all", "--rate", "10/0s"}, errCode: exitcode.Usage, errText: "bad period"},
		{args: []string{"--all", "-j", "0"}, errCode: exitcode.Usage, errText: "-j/--jobs 0: want 1 or more"},
		{args: []string{"--all", "-j", "-2"}, errCode: exitcode.Usage, errText: "-j/--jobs -2: want 1 or more"},
		{args: []string{"--all", "--keep-last", "-1"}, errCode: exitcode.Usage, errText: "--keep-last -1: want 0 or more"},
		{args: []string{"--all", "--max-summary-tokens", "0"}, errCode: exitcode.Usage, errText: "--max-summary-tokens 0: want 1 or more"},
		{args: []string{"--all", "--summary-ratio", "1.5"}, errCode: exitcode.Usage, errText: "between 0 and 1"},
		{args: []string{"--all", "--summary-ratio", "NaN"}, errCode: exitcode.Usage, errText: "between 0 and 1"},
		{args: []string{"--all", "--if-over", "-1"}, errCode: exitcode.Usage, errText: "--if-over and --every"},
		{args: []string{"--all", "--every", "-1"}, errCode: exitcode.Usage, errText: "--if-over and --every"},
		{args: []string{"--all", "--timeout", "-1s"}, errCode: exitcode.Usage, errText: "positive duration"},
		{args: []string{"-c", "a\x00b"}, errCode: exitcode.Usage, errText: "NUL"},
		{args: []string{"-c", "demo", "extra"}, errCode: exitcode.Usage},
		{args: []string{"--all", "--bogus"}, errCode: exitcode.Usage, errText: "unknown flag"},
		{args: []string{}, tty: true, errCode: exitcode.Usage, errText: "pipe a transcript on stdin"},
		{args: []string{"-c", "demo"}, tty: true, check: func(o *summarizeOptions) bool { return o.conversation == "demo" }},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			f.IO.SetStdinTTY(tt.tty)
			o, err := parseSummarize(t, f, tt.args...)
			if code := exitcode.Of(err); code != tt.errCode {
				t.Fatalf("exit %d (%v), want %d", code, err, tt.errCode)
			}
			if err != nil && !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("error %q lacks %q", err, tt.errText)
			}
			if tt.check != nil && (o == nil || !tt.check(o)) {
				t.Errorf("options %+v", o)
			}
		})
	}
}

// summarizeTest runs summarizeRun with args on f, as the command would.
func summarizeTest(t *testing.T, f *Factory, args ...string) error {
	t.Helper()
	o, err := parseSummarize(t, f, args...)
	if err != nil {
		t.Fatal(err)
	}
	return summarizeRun(context.Background(), o)
}

// seedTrip stores tripJSONL as conv in f's store.
func seedTrip(t *testing.T, f *Factory, conv string) {
	t.Helper()
	in := f.IO.In
	f.IO.In = strings.NewReader(tripJSONL)
	if err := runCmd(t, f, "append", "-q", "-c", conv); err != nil {
		t.Fatal(err)
	}
	f.IO.In, f.quiet = in, false // -q stays set on f
}

func TestSummarizeRunStored(t *testing.T) {
	f, out, errOut := testFactory(t, "")
	seedTrip(t, f, "trip")

	if err := summarizeTest(t, f, "-c", "trip", "--keep-last", "1", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "You write the running summary") || !strings.Contains(out.String(), "[user] I want to visit Lisbon") {
		t.Fatalf("dry run printed %q", out)
	}
	out.Reset()

	if err := summarizeTest(t, f, "-c", "trip", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), `"role":"summary"`) ||
		!strings.Contains(out.String(), `"summarizer":"extractive"`) {
		t.Fatalf("stdout %q", out)
	}
	out.Reset()

	if err := summarizeTest(t, f, "-c", "trip", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "convo: summarize trip: nothing to cover: the conversation has 1 turn since the latest summary, within --keep-last 1; nothing written") {
		t.Fatalf("second run: stdout %q, stderr %q", out, errOut)
	}
	errOut.Reset()

	if err := summarizeTest(t, f, "-c", "trip", "--if-over", "100000"); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`trigger not met: the LLM view holds \d+ tokens, not over --if-over 100000; nothing written`).MatchString(errOut.String()) {
		t.Errorf("stderr %q", errOut)
	}

	err := summarizeTest(t, f, "-c", "nobody")
	if !errors.Is(err, store.ErrNotFound) || exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("missing conversation: %v", err)
	}
}

func TestSummarizeRunQuiet(t *testing.T) {
	f, out, errOut := testFactory(t, "")
	seedTrip(t, f, "trip")
	f.quiet = true
	if err := summarizeTest(t, f, "-c", "trip", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.Len() != 0 {
		t.Fatalf("--quiet printed %q %q", out, errOut)
	}
	s, _ := f.Store(context.Background())
	n := 0
	s.Read(context.Background(), "trip", store.ReadOptions{}, func(r store.Row) error {
		if r.Role == "summary" {
			n++
		}
		return nil
	})
	if n != 1 {
		t.Errorf("%d summaries stored, want 1", n)
	}
}

func TestSummarizeRunAll(t *testing.T) {
	f, out, errOut := testFactory(t, "")
	seedTrip(t, f, "a")
	seedTrip(t, f, "b")
	if err := runCmd(t, f, "append", "-q", "-c", "short", "hi"); err != nil {
		t.Fatal(err)
	}
	f.quiet = false
	if err := summarizeTest(t, f, "--all", "--keep-last", "1", "-j", "2", "--rate", "1000/s"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), `"role":"summary"`) != 2 {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut.String(), "summarize --all: 3 conversations in ") ||
		!strings.Contains(errOut.String(), ": 2 summarized, 1 with nothing to cover, 0 under the trigger, 0 held by other runners, 0 failed") {
		t.Errorf("tally %q", errOut)
	}
	out.Reset()
	errOut.Reset()

	// The dry run prints the text for the conversations due, and no tally.
	if err := summarizeTest(t, f, "--all", "--keep-last", "0", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "You write the running summary") != 2 || errOut.Len() != 0 {
		t.Errorf("dry run: stdout %q, stderr %q", out, errOut)
	}
}

func TestSummarizeRunAllFailures(t *testing.T) {
	f, out, errOut := testFactory(t, "")
	seedTrip(t, f, "a")
	seedTrip(t, f, "b")
	err := summarizeTest(t, f, "--all", "--keep-last", "1", "--summarizer", "exec", "--exec", "exit 3")
	if exitcode.Of(err) != exitcode.Failure || err.Error() != "2 of 2 conversations failed to summarize" {
		t.Fatalf("err %v", err)
	}
	for _, conv := range []string{"a", "b"} {
		if !strings.Contains(errOut.String(), "convo: summarize "+conv+": summarizer exec: ") {
			t.Errorf("stderr lacks %s's failure: %q", conv, errOut)
		}
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "0 summarized, 0 with nothing to cover, 0 under the trigger, 0 held by other runners, 2 failed") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

func TestSummarizeRunTransform(t *testing.T) {
	f, out, errOut := testFactory(t, tripJSONL)
	if err := summarizeTest(t, f, "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 8 || strings.Count(out.String(), `"role":"summary"`) != 1 ||
		!strings.Contains(out.String(), `"conversation":"stdin"`) || errOut.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}

	f, out, errOut = testFactory(t, tripJSONL)
	if err := summarizeTest(t, f, "--keep-last", "1", "--if-over", "100000"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 7 || !regexp.MustCompile(`trigger not met: the LLM view holds \d+ tokens, not over --if-over 100000; transcript passed through unchanged`).MatchString(errOut.String()) {
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}

	f, out, _ = testFactory(t, tripJSONL)
	if err := summarizeTest(t, f, "--keep-last", "1", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "You write") || strings.Contains(out.String(), `"role"`) {
		t.Fatalf("dry run printed %q", out)
	}
}

func TestSummarizeRunPromptAndTemplate(t *testing.T) {
	dir := t.TempDir()
	prompt, tmpl := filepath.Join(dir, "prompt.txt"), filepath.Join(dir, "t.tmpl")
	os.WriteFile(prompt, []byte("Sum it up."), 0o644)
	os.WriteFile(tmpl, []byte(`{{range .Records}}<{{.Message.Role}}>{{end}}`), 0o644)
	f, out, _ := testFactory(t, tripJSONL)
	if err := summarizeTest(t, f, "--keep-last", "1", "--dry-run", "--prompt", "@"+prompt, "--template", tmpl); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "Sum it up.\n\n<user><assistant><user><assistant>\n" {
		t.Errorf("dry run printed %q", got)
	}
	for _, args := range [][]string{
		{"--template", filepath.Join(dir, "missing.tmpl")},
		{"--prompt", "@" + filepath.Join(dir, "missing.txt")},
		{"--template", prompt + "x"},
		{"--tokenizer", "nope"},
		{"--summarizer", "nope"},
	} {
		f, _, _ := testFactory(t, tripJSONL)
		if err := summarizeTest(t, f, args...); exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%v: %v (exit %d), want a usage error", args, err, exitcode.Of(err))
		}
	}
	bad := filepath.Join(dir, "bad.tmpl")
	os.WriteFile(bad, []byte(`{{.Nope`), 0o644)
	f, _, _ = testFactory(t, tripJSONL)
	if err := summarizeTest(t, f, "--template", bad); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--template: ") {
		t.Errorf("bad template: %v", err)
	}
}

func TestSummarizeRunAllProgress(t *testing.T) {
	f, _, errOut := testFactory(t, "")
	seedTrip(t, f, "a")
	seedTrip(t, f, "b")
	f.IO.SetStderrTTY(true)
	if err := summarizeTest(t, f, "--all", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "summarize 2/2") || !strings.Contains(errOut.String(), "2 summarized") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestAppendSummarizes: append --summarize-if-over runs the summarize
// policy after the append; a summarizer failure keeps the append.
func TestAppendSummarizes(t *testing.T) {
	f, out, errOut := testFactory(t, tripJSONL)
	if err := runCmd(t, f, "append", "-c", "auto", "--summarize-if-over", "20", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), `"role":"summary"`) != 1 {
		t.Fatalf("stdout %q", out)
	}
	out.Reset()
	if err := runCmd(t, f, "append", "-c", "auto", "--summarize-if-over", "1", "--summarizer", "exec", "--role", "assistant", "One more."); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "One more.") || !strings.Contains(errOut.String(), "the append is stored; summarizing after it failed") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

// TestSummarizeRateShared: with a store, --rate reserves its slots in the
// store, under the key ask uses, once per request attempt: the retry of a
// 500 takes a slot too. At 100/1s from a fixed clock, three attempts leave
// the next free slot 30 ms on.
func TestSummarizeRateShared(t *testing.T) {
	srv := askEnv(t,
		providertest.Step{Status: 500, Error: "busy"},
		providertest.Step{Answer: &providertest.Answer{Text: "the gist"}})
	f, _, _ := testFactory(t, "")
	seedTrip(t, f, "a")
	if err := summarizeTest(t, f, "-c", "a", "--keep-last", "1", "--summarizer", "openai", "--rate", "100/1s"); err != nil {
		t.Fatal(err)
	}
	var next int64
	if err := f.store.DB().QueryRow(`SELECT next FROM rate_limits WHERE key = 'openai/gpt-4o-mini'`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	attempts := len(srv.Requests())
	if want := f.Now().Add(time.Duration(attempts) * 10 * time.Millisecond).UnixMicro(); attempts != 2 || next != want {
		t.Errorf("%d attempts; next slot %d, want %d", attempts, next, want)
	}
}

// At a terminal, summarize --all prints a line per conversation, not the
// summary records: above the bar when stderr draws one (stdout gets nothing
// the bar could cut into), else on stdout; JSONL with --json or when stdout
// is no terminal.
func TestSummarizeAllAtTerminal(t *testing.T) {
	tests := []struct {
		name                 string
		stdoutTTY, stderrTTY bool
		args                 []string
		readableOn           string // "out", "err" or "" for JSONL on stdout
	}{
		{"pipe", false, false, nil, ""},
		{"pipe, bar", false, true, nil, ""},
		{"terminal, no bar", true, false, nil, "out"},
		{"terminal, bar", true, true, nil, "err"},
		{"terminal, --json", true, true, []string{"--json"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, out, errOut := testFactory(t, "")
			seedTrip(t, f, "a")
			seedTrip(t, f, "b")
			f.IO.SetStdoutTTY(tt.stdoutTTY)
			f.IO.SetStderrTTY(tt.stderrTTY)
			if err := summarizeTest(t, f, append([]string{"--all", "--keep-last", "1"}, tt.args...)...); err != nil {
				t.Fatal(err)
			}
			line := regexp.MustCompile(`(?m)^summarized a: \d+ records into [0-9A-Z]{26}, view \d+ -> \d+ tokens$`)
			switch tt.readableOn {
			case "":
				if strings.Count(out.String(), `"role":"summary"`) != 2 || line.MatchString(out.String()+errOut.String()) {
					t.Errorf("want JSONL on stdout; stdout %q, stderr %q", out, errOut)
				}
			case "out":
				if !line.MatchString(out.String()) || strings.Contains(out.String(), "{") {
					t.Errorf("want a line per conversation on stdout; stdout %q", out)
				}
			case "err":
				// The bar, when it drew before a line, is cleared by
				// escapes at that line's start: they are the terminal's.
				plain := regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`).ReplaceAllString(errOut.String(), "")
				if out.Len() != 0 || !line.MatchString(plain) || !strings.Contains(plain, "summarize 2/2") {
					t.Errorf("want the lines above the bar and nothing on stdout; stdout %q, stderr %q", out, errOut)
				}
			}
			if !strings.Contains(errOut.String(), "2 summarized") {
				t.Errorf("no tally: %q", errOut)
			}
		})
	}
}
