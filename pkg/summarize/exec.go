package summarize

// The exec summarizer runs a command line through sh -c (POSIX sh, "-c"
// operand: https://pubs.opengroup.org/onlinepubs/9799919799/utilities/sh.html),
// so users can plug in `llm`, `ollama run`, or a script of their own. It is
// no provider: no request body, no transport, no retries.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// DefaultExecTimeout bounds a command when Exec.Timeout is zero.
const DefaultExecTimeout = 2 * time.Minute

// Exec summarizes by running Command with the summarizer's input on its
// stdin (the instruction, a blank line, the text) and taking its stdout as
// the summary. It is not retried (the command may not be safe to run twice,
// and it can retry on its own); Timeout bounds it.
type Exec struct {
	Command string
	Timeout time.Duration
	// Model names what the command runs, for the summary's aux; "" for
	// none.
	Model string
}

// ErrExec is wrapped by every failure of the command itself: a non-zero
// exit, a timeout, an empty output.
var ErrExec = errors.New("exec")

// Name implements Summarizer.
func (e *Exec) Name() string { return "exec" }

// Summarize implements Summarizer. A non-zero exit, a timeout or an empty
// output is an error wrapping ErrExec whose message ends with the tail of
// the command's stderr; a cancelled ctx gives the context's error.
func (e *Exec) Summarize(ctx context.Context, in Input) (Output, error) {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(actx, "sh", "-c", e.Command)
	cmd.Stdin = strings.NewReader(execInput(in))
	var stdout bytes.Buffer
	stderr := &tailWriter{max: 4096}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	// A grandchild that keeps the pipes open must not hold us past the kill.
	cmd.WaitDelay = time.Second
	err := runCommand(cmd)
	switch {
	case ctx.Err() != nil:
		return Output{}, fmt.Errorf("exec: %w", ctx.Err())
	case actx.Err() != nil:
		return Output{}, fmt.Errorf("%w: %s", ErrExec, withTail(fmt.Sprintf("no answer within %s", timeout), stderr))
	case err != nil:
		return Output{}, fmt.Errorf("%w: %s", ErrExec, withTail(err.Error(), stderr))
	}
	text := strings.TrimSpace(stdout.String())
	if text == "" {
		return Output{}, fmt.Errorf("%w: %s", ErrExec, withTail("empty answer", stderr))
	}
	if !utf8.ValidString(text) {
		// Stored, it would make every later get and export print invalid
		// JSON: bad input, not a failure to retry.
		bad := 0
		for bad < len(text) {
			r, size := utf8.DecodeRuneInString(text[bad:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			bad += size
		}
		return Output{}, fmt.Errorf("%w: %w", ErrExec, &transcript.InputError{
			Err: fmt.Errorf("the command's output is not valid UTF-8 (at byte %d)", bad+1)})
	}
	return Output{Text: text, Model: e.Model}, nil
}

// execInput is what the command reads: the instruction, a blank line, then
// the text.
func execInput(in Input) string {
	if in.Instruction == "" {
		return in.Text + "\n"
	}
	return in.Compose() + "\n"
}

// withTail appends the last lines of the command's stderr to msg.
func withTail(msg string, stderr *tailWriter) string {
	tail := strings.TrimSpace(string(stderr.buf))
	if tail == "" {
		return msg
	}
	lines := strings.Split(tail, "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return msg + ": " + strings.Join(lines, "\n")
}

// tailWriter keeps the last max bytes written to it: a chatty command's
// stderr is bounded, and its end is where the error usually is.
type tailWriter struct {
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}
