package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// handleSIGPIPE turns a write to a stdout nobody reads into an EPIPE error
// instead of death by SIGPIPE (Go's default for file descriptors 1 and 2):
// a command whose change committed must exit 0 and say that its output
// was lost (see undeliveredError), and one that stored nothing exits
// ExitBrokenPipe. Notify, not Ignore: an ignored signal stays ignored in
// the commands we start (the exec summarizer), a handled one does not.
func handleSIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// interruptGrace is how long an interrupted command is given to wind down
// (roll back, kill the exec summarizer, say what it stored) before convo
// exits without it: a command blocked writing to a pipe nobody reads, or
// reading a stdin nobody writes, never notices its context.
const interruptGrace = 3 * time.Second

// signalCause ends the command's context when a signal stops convo.
type signalCause struct{ sig syscall.Signal }

func (c *signalCause) Error() string { return signalName(c.sig) }

// onInterrupt returns a context that SIGINT or SIGTERM cancels, with a
// *signalCause. Once cancelled, the command has interruptGrace to return;
// after that, or at a second signal, convo says so on errOut and exits
// 128 + the signal's number. The store needs no winding down: an
// unfinished transaction is rolled back by SQLite, as after a crash.
func onInterrupt(errOut io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		sig, _ := first.(syscall.Signal)
		cancel(&signalCause{sig})
		timer := time.NewTimer(interruptGrace)
		select {
		case <-sigs:
		case <-timer.C:
		case <-done:
			return
		}
		fmt.Fprintf(errOut, "convo: %s; stopped without waiting for the command to finish\n", signalName(sig))
		os.Exit(128 + int(sig))
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interruptedError is a command that failed once a signal cancelled its
// context: exit 128 + the signal's number (130 for SIGINT, 143 for
// SIGTERM).
type interruptedError struct {
	sig syscall.Signal
	err error
}

func (e *interruptedError) Error() string { return e.err.Error() }
func (e *interruptedError) Unwrap() error { return e.err }

// interrupted marks err as the end of a command that ctx's signal stopped;
// it leaves err alone when no signal came, or the change committed
// (undeliveredError).
func interrupted(ctx context.Context, err error) error {
	var sc *signalCause
	var de *undeliveredError
	if err == nil || !errors.As(context.Cause(ctx), &sc) || errors.As(err, &de) {
		return err
	}
	return &interruptedError{sc.sig, err}
}

// partialError is a failure after part of the work was stored (summarize
// --all: each conversation in its own transaction); stored says what was.
type partialError struct {
	err    error
	stored string
}

func (e *partialError) Error() string { return fmt.Sprintf("%v (%s)", e.err, e.stored) }
func (e *partialError) Unwrap() error { return e.err }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "interrupted"
	case syscall.SIGTERM:
		return "terminated"
	}
	return sig.String()
}
