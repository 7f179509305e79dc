package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
)

// parseRender parses args as `convo render` does and returns the options
// renderRun would get, or the error.
func parseRender(t *testing.T, f *Factory, args ...string) (*renderOptions, error) {
	t.Helper()
	return parseFlags(t, f, newCmdRender, args...)
}

// TestRenderFlags: render's flags become a format.Request, checked against
// the registry: the providers it names, where the model goes.
func TestRenderFlags(t *testing.T) {
	tests := []struct {
		args    []string
		tty     bool
		errText string // a substring of the usage error, "" for none
		check   func(*renderOptions) bool
	}{
		{args: []string{"--provider", "openai"}, check: func(o *renderOptions) bool { return o.req.Provider == "openai" && !o.req.Body }},
		{args: []string{}, errText: "missing --provider (one of " + format.NameList(format.CanRender) + ")"},
		{args: []string{"--provider", "cohere"}, errText: `--provider "cohere": want one of openai, openai-responses, anthropic, gemini, bedrock, vercel, vercel-legacy, ollama`},
		{args: []string{"--provider", "openai", "--model", "m"}, errText: "add --body"},
		{args: []string{"--provider", "openai", "--body"}, errText: "--body needs --model for openai"},
		{args: []string{"--provider", "gemini", "--body"}, check: func(o *renderOptions) bool { return o.req.Body && o.req.Model == "" }},
		{args: []string{"--provider", "anthropic", "--body", "--model", "m", "--max-tokens", "-1"}, errText: "--max-tokens -1"},
		{args: []string{"--provider", "anthropic", "--body", "--model", "m", "--temperature", "hot"}, errText: "--temperature"},
		{args: []string{"--provider", "anthropic", "--body", "--model", "m", "--temperature", "0.5", "--max-tokens", "99", "--no-summary", "--lenient"},
			check: func(o *renderOptions) bool {
				return *o.req.Temperature == 0.5 && o.req.MaxTokens == 99 && o.req.Model == "m" && o.req.NoSummary && o.req.Lenient
			}},
		{args: []string{"--provider", "openai", "-c", "a\x00b"}, errText: "NUL"},
		{args: []string{"--provider", "openai", "extra"}, errText: `unexpected argument "extra"`},
		{args: []string{"--provider", "openai"}, tty: true, errText: "nothing to render: give -c or pipe a transcript"},
		{args: []string{"--provider", "openai", "-c", "demo"}, tty: true, check: func(o *renderOptions) bool { return o.conversation == "demo" }},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			f.IO.SetStdinTTY(tt.tty)
			o, err := parseRender(t, f, tt.args...)
			if tt.errText == "" && err != nil || tt.errText != "" && (exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.errText)) {
				t.Fatalf("%v (exit %d), want %q", err, exitcode.Of(err), tt.errText)
			}
			if tt.check != nil && !tt.check(o) {
				t.Errorf("options %+v", o)
			}
		})
	}
	f, _, errOut := testFactory(t, "")
	if _, err := parseRender(t, f, "--provider", "bedrock", "--body", "--model", "m"); err != nil || !strings.Contains(errOut.String(), "bedrock takes the model in the URL") {
		t.Errorf("%v %q", err, errOut.String())
	}
	if !strings.Contains(defaultLimits(), "anthropic 4096") {
		t.Errorf("defaultLimits() = %q", defaultLimits())
	}
}

// renderTest runs renderRun with args on f, as the command would.
func renderTest(t *testing.T, f *Factory, args ...string) error {
	t.Helper()
	o, err := parseRender(t, f, args...)
	if err != nil {
		t.Fatal(err)
	}
	return renderRun(context.Background(), o)
}

func TestRenderRun(t *testing.T) {
	f, out, _ := testFactory(t, "")
	seedTrip(t, f, "trip")
	if err := runCmd(t, f, "append", "-q", "-c", "trip", "--role", "system", "Be brief."); err != nil {
		t.Fatal(err)
	}
	if err := runCmd(t, f, "summarize", "-q", "-c", "trip", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	f.quiet = false

	if err := renderTest(t, f, "--provider", "openai", "-c", "trip"); err != nil {
		t.Fatal(err)
	}
	stored := out.String()
	for _, want := range []string{`"role":"system","content":"Be brief.\n\nSummary of the earlier conversation`, "Also a hotel near the river?"} {
		if !strings.Contains(stored, want) {
			t.Errorf("stored render lacks %q: %s", want, stored)
		}
	}
	if strings.Contains(stored, `"content":"I want to visit Lisbon in May`) {
		t.Errorf("a covered record was rendered: %s", stored)
	}
	out.Reset()

	prompt := filepath.Join(t.TempDir(), "prompt.txt")
	os.WriteFile(prompt, []byte("From a file.\n"), 0o644)
	if err := renderTest(t, f, "--provider", "anthropic", "-c", "trip", "--no-summary", "--system", "@"+prompt); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, `{"system":[{"type":"text","text":"From a file."}]`) || strings.Contains(got, "Summary of") {
		t.Errorf("--no-summary --system @FILE: %s", got)
	}
	out.Reset()

	err := renderTest(t, f, "--provider", "openai", "-c", "nobody")
	if !errors.Is(err, store.ErrNotFound) || exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("missing conversation: %v (exit %d)", err, exitcode.Of(err))
	}
	if err := renderTest(t, f, "--provider", "openai", "-c", "trip", "--system", "@/nonexistent"); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("--system @missing: %v", err)
	}

	// Without -c: the transcript on stdin, the same view.
	f.IO.In = strings.NewReader(tripJSONL)
	if err := renderTest(t, f, "--provider", "openai"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "I want to visit Lisbon in May") || !strings.HasPrefix(got, `{"messages":[{"role":"user"`) {
		t.Errorf("stdin render: %s", got)
	}
	f.IO.In = strings.NewReader(`{"role":"robot","content":"x"}` + "\n")
	if err := renderTest(t, f, "--provider", "openai"); exitcode.Of(err) != exitcode.Input {
		t.Errorf("bad stdin: %v (exit %d)", err, exitcode.Of(err))
	}
}
