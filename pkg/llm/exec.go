package llm

// The exec provider runs a command line through sh -c (POSIX sh, "-c"
// operand: https://pubs.opengroup.org/onlinepubs/9799919799/utilities/sh.html),
// so users can plug in `llm`, `ollama run`, or a script of their own.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Exec is the exec provider: each call runs Options.Command with the
// request's text on its stdin and takes its stdout as the answer. It is not
// retried (the command may not be safe to run twice, and it can retry on
// its own); Options.Timeout bounds it.
type Exec struct{ opts Options }

// NewExec returns an exec client of opts.Command.
func NewExec(opts Options) (*Exec, error) {
	if strings.TrimSpace(opts.Command) == "" {
		return nil, errors.New("exec: no command given")
	}
	return &Exec{opts: opts}, nil
}

// Name implements Client.
func (c *Exec) Name() string { return "exec" }

// execInput is what the command reads: the system prompt, a blank line, then
// the messages' text, one blank line between them.
func execInput(req Request) string {
	var b strings.Builder
	if req.System != "" {
		b.WriteString(req.System)
		b.WriteString("\n\n")
	}
	for i, m := range req.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(m.Text)
	}
	b.WriteString("\n")
	return b.String()
}

// Complete implements Client. A non-zero exit, a timeout or an empty output
// is an *Error whose message ends with the tail of the command's stderr.
func (c *Exec) Complete(ctx context.Context, req Request) (Response, error) {
	if err := checkRequest("exec", "", req); err != nil {
		return Response{}, err
	}
	timeout := c.opts.timeout()
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(actx, "sh", "-c", c.opts.Command)
	cmd.Stdin = strings.NewReader(execInput(req))
	var stdout bytes.Buffer
	stderr := &tailWriter{max: 4096}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	// A grandchild that keeps the pipes open must not hold us past the kill.
	cmd.WaitDelay = time.Second
	killGroup(cmd)
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return Response{}, fmt.Errorf("exec: %w", ctx.Err())
	case actx.Err() != nil:
		return Response{}, &Error{Provider: "exec", Message: withTail(fmt.Sprintf("no answer within %s", timeout), stderr), Retryable: true, Attempts: 1, Err: context.DeadlineExceeded}
	case err != nil:
		return Response{}, &Error{Provider: "exec", Message: withTail(err.Error(), stderr), Attempts: 1, Err: err}
	}
	resp := Response{Text: strings.TrimSpace(stdout.String()), Model: c.opts.model(req)}
	resp, err = settle("exec", resp, "")
	var e *Error
	if errors.As(err, &e) {
		e.Attempts = 1
		e.Message = withTail(e.Message, stderr)
	}
	return resp, err
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
