package summarize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

func TestExec(t *testing.T) {
	in := Input{Instruction: "Summarize.", Text: "first\n\nsecond"}
	for _, tc := range []struct {
		name, command string
		timeout       time.Duration
		want          string // the answer, or a substring of the error
		failed        bool
	}{
		{name: "echoes stdin", command: "cat", want: "Summarize.\n\nfirst\n\nsecond"},
		{name: "trims its output", command: "printf '\\n  the summary \\n\\n'", want: "the summary"},
		{name: "reads every line", command: "wc -l | tr -d ' '", want: "5"},
		{name: "non-zero exit", command: "echo partial; echo 'model not found' >&2; exit 3", want: "exec: exit status 3: model not found", failed: true},
		{name: "keeps the stderr tail", command: "for i in $(seq 1 50); do echo line $i >&2; done; exit 1", want: "line 41\nline 42", failed: true},
		{name: "empty output", command: "cat >/dev/null; echo warn >&2", want: "empty answer: warn", failed: true},
		{name: "blank output", command: "echo '   '", want: "empty answer", failed: true},
		// LATE is a file the command's grandchild makes once it wakes: a
		// killed process group never does, while one left running keeps
		// cat's stdout open, so Summarize returns only after it (or after
		// the second Exec gives the pipes to close).
		{name: "timeout", command: "(sleep 0.5; touch LATE) | cat", timeout: 100 * time.Millisecond, want: "no answer within 100ms", failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			late := filepath.Join(t.TempDir(), "late")
			e := &Exec{Command: strings.ReplaceAll(tc.command, "LATE", late), Timeout: tc.timeout, Model: "m"}
			out, err := e.Summarize(context.Background(), in)
			if _, serr := os.Stat(late); serr == nil {
				t.Error("the command's process group outlived the timeout")
			}
			if err == nil {
				if tc.failed || out.Text != tc.want || out.Model != "m" {
					t.Errorf("out = %+v, want %q", out, tc.want)
				}
				return
			}
			if !tc.failed || !errors.Is(err, ErrExec) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to hold %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "line 40\n") {
				t.Errorf("err holds more than the tail: %q", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v: a timeout of the command is no deadline of the caller", err)
			}
		})
	}
}

// TestExecInvalidUTF8: output that is not UTF-8 is bad input (exit 3), never
// a summary: stored, it would break every later get and export.
func TestExecInvalidUTF8(t *testing.T) {
	e := &Exec{Command: `printf 'fine \377 text'`}
	_, err := e.Summarize(context.Background(), Input{Text: "x"})
	var ie *transcript.InputError
	if !errors.Is(err, ErrExec) || !errors.As(err, &ie) || !strings.Contains(err.Error(), "not valid UTF-8 (at byte 6)") {
		t.Errorf("err = %v", err)
	}
}

func TestExecInputWithoutInstruction(t *testing.T) {
	if got := execInput(Input{Text: "only this"}); got != "only this\n" {
		t.Errorf("execInput = %q", got)
	}
}

func TestExecCancel(t *testing.T) {
	e := &Exec{Command: "sleep 10"}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := e.Summarize(ctx, Input{Text: "x"})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrExec) {
		t.Errorf("err = %v, want the context's error", err)
	}
}
