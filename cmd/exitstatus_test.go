package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// A provider's 400 whose message reads like cobra's "invalid argument" is a
// provider failure: exit 1 and no usage hint. Cobra's own usage errors,
// typed where they arise, are exit 2 with the hint.
func TestExitCodesThroughRun(t *testing.T) {
	askEnv(t, providertest.Step{Status: 400, Error: "Request contains an invalid argument."})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "convo.db")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"ask", "-c", "c", "--provider", "openai", "Hi"}, exitcode.Failure, "Request contains an invalid argument."},
		{[]string{"nosuchcommand"}, exitcode.Usage, `unknown command "nosuchcommand" for "convo"`},
		{[]string{"apend", "-c", "c", "x"}, exitcode.Usage, "Did you mean this?"},
		{[]string{"get", "-c", "c", "--bogus"}, exitcode.Usage, "unknown flag: --bogus"},
		{[]string{"get", "-c", "c", "--limit", "many"}, exitcode.Usage, `invalid argument "many" for "--limit"`},
		{[]string{"get", "-c"}, exitcode.Usage, "flag needs an argument"},
		{[]string{"get", "-c", "c", "extra"}, exitcode.Usage, `unexpected argument "extra"`},
		{[]string{"schema", "set", "-c", "c"}, exitcode.Usage, "want one FILE argument"},
		{[]string{"completion", "bash", "extra"}, exitcode.Usage, `unknown command "extra"`},
	} {
		io, _, errOut := iostreams.Test("")
		code := Run(context.Background(), append([]string{"--db", db}, tc.args...), io)
		hint := strings.Contains(errOut.String(), "--help' for usage.")
		if code != tc.code || !strings.Contains(errOut.String(), tc.stderr) || hint != (tc.code == exitcode.Usage) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q, the usage hint only with exit 2", tc.args, code, errOut, tc.code, tc.stderr)
		}
	}
}

// -c "" (an unset shell variable) is a usage error on every command that
// takes -c, not a quiet switch to the pure transform, and nothing is
// stored or printed.
func TestEmptyConversationFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "convo.db")
	for _, args := range [][]string{
		{"append", "-c", "", "hi"},
		{"append", "--conversation=", "hi"},
		{"annotate", "-c", "", "--id", "last", "--aux", "k=1"},
		{"ask", "-c", "", "--provider", "openai", "hi"},
		{"clear", "-c", "", "--yes"},
		{"export", "-c", ""},
		{"fork", "-c", "", "--to", "b"},
		{"get", "-c", ""},
		{"render", "-c", "", "--provider", "openai"},
		{"rewind", "-c", "", "--to", "last"},
		{"schema", "show", "-c", ""},
		{"show", "-c", ""},
		{"summarize", "-c", ""},
	} {
		io, out, errOut := iostreams.Test(`{"role":"user","content":"from stdin"}` + "\n")
		code := Run(context.Background(), append([]string{"--db", db}, args...), io)
		if code != exitcode.Usage || out.Len() != 0 || !strings.Contains(errOut.String(), "-c/--conversation is empty") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2", args, code, out, errOut)
		}
	}
}

// append without -c at a terminal says that nothing is stored; in a pipe
// it is the transform, silently.
func TestAppendTransformNote(t *testing.T) {
	for _, tty := range []bool{true, false} {
		f, out, errOut := testFactory(t, "")
		f.IO.SetStdinTTY(tty)
		f.IO.SetStderrTTY(tty)
		if err := runCmd(t, f, "append", "hi"); err != nil {
			t.Fatal(err)
		}
		noted := strings.Contains(errOut.String(), "nothing is stored")
		if noted != tty || !strings.Contains(out.String(), `"contents":["hi"]`) {
			t.Errorf("terminal %v: stdout %q, stderr %q", tty, out, errOut)
		}
	}
}

// A command a signal stopped exits 128 + the signal's number and says
// that nothing was written.
func TestInterruptedExit(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "convo.db")
	for _, tc := range []struct {
		sig    syscall.Signal
		code   int
		stderr string
	}{
		{syscall.SIGINT, 130, "convo: interrupted; nothing was written\n"},
		{syscall.SIGTERM, 143, "convo: terminated; nothing was written\n"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&signals.Cause{Sig: tc.sig})
		io, _, errOut := iostreams.Test("")
		if code := Run(ctx, []string{"--db", db, "append", "-c", "x", "hi"}, io); code != tc.code || errOut.String() != tc.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.sig, code, errOut, tc.code, tc.stderr)
		}
	}
	io, out, _ := iostreams.Test("")
	if code := Run(context.Background(), []string{"--db", db, "get", "-c", "x"}, io); code != exitcode.NotFound {
		t.Errorf("stored after the signal: %s", out)
	}
}
