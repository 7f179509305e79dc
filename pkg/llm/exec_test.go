package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestExec(t *testing.T) {
	req := Request{
		System:   "Summarize.",
		Messages: []Message{{Role: RoleUser, Text: "first"}, {Role: RoleAssistant, Text: "second"}},
	}
	for _, tc := range []struct {
		name, command string
		timeout       time.Duration
		want          string // the answer, or a substring of the error
		empty         bool   // the error is ErrEmptyAnswer
		timedOut      bool
	}{
		{name: "echoes stdin", command: "cat", want: "Summarize.\n\nfirst\n\nsecond"},
		{name: "trims its output", command: "printf '\\n  the summary \\n\\n'", want: "the summary"},
		{name: "reads every line", command: "wc -l | tr -d ' '", want: "5"},
		{name: "non-zero exit", command: "echo partial; echo 'model not found' >&2; exit 3", want: "exit status 3: model not found"},
		{name: "keeps the stderr tail", command: "for i in $(seq 1 50); do echo line $i >&2; done; exit 1", want: "line 41\nline 42"},
		{name: "empty output", command: "cat >/dev/null; echo warn >&2", want: "empty answer: warn", empty: true},
		{name: "blank output", command: "echo '   '", want: "empty answer", empty: true},
		{name: "timeout", command: "sleep 10 | cat", timeout: 100 * time.Millisecond, want: "no answer within 100ms", timedOut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewExec(Options{Command: tc.command, Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			resp, err := c.Complete(context.Background(), req)
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v: the process group was not killed", time.Since(start))
			}
			if err == nil {
				if resp.Text != tc.want {
					t.Errorf("Text = %q, want %q", resp.Text, tc.want)
				}
				return
			}
			e := wantError(t, err)
			if !strings.Contains(err.Error(), tc.want) || e.Provider != "exec" || e.Attempts != 1 {
				t.Errorf("err = %q, want it to hold %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "line 40\n") {
				t.Errorf("err holds more than the tail: %q", err)
			}
			if errors.Is(err, ErrEmptyAnswer) != tc.empty || errors.Is(err, context.DeadlineExceeded) != tc.timedOut {
				t.Errorf("err = %v: empty %v, timed out %v", err, tc.empty, tc.timedOut)
			}
		})
	}
}

func TestExecInputWithoutSystem(t *testing.T) {
	got := execInput(Request{Messages: []Message{{Role: RoleUser, Text: "only this"}}})
	if got != "only this\n" {
		t.Errorf("execInput = %q", got)
	}
}

func TestExecCancel(t *testing.T) {
	c, _ := NewExec(Options{Command: "sleep 10"})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, Request{Messages: []Message{{Role: RoleUser, Text: "x"}}})
	var e *Error
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &e) {
		t.Errorf("err = %v, want the context's error", err)
	}
}
