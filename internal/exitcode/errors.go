package exitcode

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
)

// UsageError is a mistake in how convo was called.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// UndeliveredError is a failure after the command's change committed,
// most often of the output that reports it (stdout closed or full), or a
// signal that came after the commit (Sig, and Stored saying what was:
// see signals.Interrupted): the change stands. It is exit 0, so that a
// script that retries what failed does not store the change twice. Never
// join it with another error: that one would lose its exit code.
type UndeliveredError struct {
	Err    error // nil: a signal came, but the command had done all
	Sig    syscall.Signal
	Stored string // with Sig: "storing 2000 records"
}

func (e *UndeliveredError) Error() string {
	if e.Sig == 0 {
		return "the change is stored, but its output was not delivered: " + oneLine(e.Err)
	}
	msg := SignalName(e.Sig) + " after " + e.Stored
	switch {
	case e.Err == nil:
	case errors.Is(e.Err, context.Canceled), errors.Is(e.Err, ErrStoppedWaiting):
		msg += "; its output was cut short"
	default:
		msg += "; its output was not delivered: " + oneLine(e.Err)
	}
	return msg
}
func (e *UndeliveredError) Unwrap() error { return e.Err }

// oneLine is err's text on one line: the errors of a join (a write and
// the flush after it, both failing on the same closed pipe), once each,
// joined by "; " rather than by errors.Join's newline, which would leave
// a line on stderr without the "convo: " before it.
func oneLine(err error) string {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err.Error()
	}
	var parts []string
	for _, e := range j.Unwrap() {
		if e != nil && !slices.Contains(parts, oneLine(e)) {
			parts = append(parts, oneLine(e))
		}
	}
	return strings.Join(parts, "; ")
}

// AfterCommit marks err, a failure after the change committed, as
// undelivered output; nil stays nil.
func AfterCommit(err error) error {
	if err == nil {
		return nil
	}
	return &UndeliveredError{Err: err}
}

// UnsentError is an incremental export whose stdout reader went away
// before taking everything: no cursor moved. It exits 141 as any closed
// pipe does, whether the export saw the pipe break (a large output) or
// found its reader gone after writing it all (a small one), but unlike a
// plain closed pipe it says that nothing was marked as sent.
type UnsentError struct{ Err error }

func (e *UnsentError) Error() string { return e.Err.Error() + "; nothing was marked as sent" }
func (e *UnsentError) Unwrap() error { return e.Err }

// InterruptedError is a command that failed once a signal cancelled its
// context: exit 128 + the signal's number (130 for SIGINT, 143 for
// SIGTERM).
type InterruptedError struct {
	Sig syscall.Signal
	Err error
}

func (e *InterruptedError) Error() string { return e.Err.Error() }
func (e *InterruptedError) Unwrap() error { return e.Err }

// PartialError is a failure after part of the work was stored (summarize
// --all: each conversation in its own transaction); Stored says what was.
type PartialError struct {
	Err    error
	Stored string
}

func (e *PartialError) Error() string { return fmt.Sprintf("%v (%s)", e.Err, e.Stored) }
func (e *PartialError) Unwrap() error { return e.Err }

// ErrStoppedWaiting is a command convo exited without.
var ErrStoppedWaiting = errors.New("stopped without waiting for the command to finish")
