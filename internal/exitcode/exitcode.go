// Package exitcode is the one place errors become process statuses: the
// exit codes of docs/spec.md section 6, the error types that carry them,
// and the message a failed command leaves on stderr. A code comes from an
// error's type, never from its text.
package exitcode

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Exit codes of SPEC section 6.
const (
	OK       = 0
	Failure  = 1 // a runtime failure: I/O, store, provider
	Usage    = 2 // unknown flag, missing -c, bad flag value
	Input    = 3 // invalid input; the message names the line
	NotFound = 4 // no such conversation
	// A command stopped by a signal exits 128 + its number: 129 for
	// SIGHUP, 130 for SIGINT, 143 for SIGTERM (see InterruptedError);
	// one whose change committed first exits 0 (UndeliveredError).
	// BrokenPipe: stdout's reader went away and nothing was stored;
	// the status of a death by SIGPIPE (git log | head), without the
	// death.
	BrokenPipe = 128 + 13
)

// Of maps an error to the process status.
func Of(err error) int {
	var ue *UsageError
	var ie *transcript.InputError
	var de *UndeliveredError
	var oe *iostreams.OutputError
	var sig *InterruptedError
	var se *UnsentError
	switch {
	case err == nil:
		return OK
	case errors.As(err, &de):
		return OK
	case errors.As(err, &sig):
		return 128 + int(sig.Sig)
	case errors.As(err, &ue),
		// --db or --to naming what is no convo store, or no location at all
		errors.Is(err, store.ErrNotAStore), errors.Is(err, store.ErrBadLocation),
		// fork --at or rewind --to naming a placeholder
		errors.Is(err, store.ErrPlaceholder),
		// a request the history it sends rules out
		errors.Is(err, format.ErrIncompatible):
		return Usage
	case errors.As(err, &ie):
		return Input
	case errors.Is(err, store.ErrNotFound):
		return NotFound
	case errors.As(err, &oe) && errors.Is(oe, syscall.EPIPE), errors.As(err, &se):
		return BrokenPipe
	}
	return Failure
}

// OutputLost reports whether err is stdout's reader gone: the pipe broke,
// or its reader quit early.
func OutputLost(err error) bool {
	var oe *iostreams.OutputError
	return errors.Is(err, iostreams.ErrUndelivered) || errors.As(err, &oe) && errors.Is(oe, syscall.EPIPE)
}

// Quiet reports whether err ends the process without a message: a
// closed pipe, as quiet as the death by SIGPIPE it stands for, unless it
// has something to say (UnsentError).
func Quiet(err error) bool {
	var ue *UnsentError
	return Of(err) == BrokenPipe && !errors.As(err, &ue)
}

// Message is what the user reads on stderr. An interrupted command
// says what it stored: nothing, unless a PartialError says otherwise.
func Message(err error) string {
	var de *UndeliveredError
	if errors.As(err, &de) { // stored: never "nothing was written"
		return de.Error()
	}
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		if errors.Is(err, context.Canceled) {
			return "interrupted; nothing was written"
		}
		return err.Error()
	}
	what, cause := "nothing was written", ie.Err
	var pe *PartialError
	if errors.As(err, &pe) {
		what, cause = pe.Stored, pe.Err
	}
	if !errors.Is(cause, context.Canceled) { // a failure of its own
		what += " (" + cause.Error() + ")"
	}
	return SignalName(ie.Sig) + "; " + what
}

// SignalName is how a message names the signal that stopped a command.
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "interrupted"
	case syscall.SIGTERM:
		return "terminated"
	}
	return sig.String()
}

// Usagef is a UsageError of a message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}
