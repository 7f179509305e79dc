package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Exit codes of SPEC section 6. This file is the one place errors become
// process statuses.
const (
	ExitOK       = 0
	ExitFailure  = 1 // a runtime failure: I/O, store, provider
	ExitUsage    = 2 // unknown flag, missing -c, bad flag value
	ExitInput    = 3 // invalid input; the message names the line
	ExitNotFound = 4 // no such conversation
	// A command stopped by a signal exits 128 + its number: 129 for
	// SIGHUP, 130 for SIGINT, 143 for SIGTERM (see interruptedError);
	// one whose change committed first exits 0 (undeliveredError).
	// ExitBrokenPipe: stdout's reader went away and nothing was stored;
	// the status of a death by SIGPIPE (git log | head), without the
	// death.
	ExitBrokenPipe = 128 + 13
)

// usageError is a mistake in how convo was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// undeliveredError is a failure after the command's change committed,
// most often of the output that reports it (stdout closed or full), or a
// signal that came after the commit (sig, and stored saying what was:
// see interrupted): the change stands. It is exit 0, so that a script
// that retries what failed does not store the change twice. Never join it
// with another error: that one would lose its exit code.
type undeliveredError struct {
	err    error // nil: a signal came, but the command had done all
	sig    syscall.Signal
	stored string // with sig: "storing 2000 records"
}

func (e *undeliveredError) Error() string {
	if e.sig == 0 {
		return "the change is stored, but its output was not delivered: " + e.err.Error()
	}
	msg := signalName(e.sig) + " after " + e.stored
	switch {
	case e.err == nil:
	case errors.Is(e.err, context.Canceled), errors.Is(e.err, errStoppedWaiting):
		msg += "; its output was cut short"
	default:
		msg += "; its output was not delivered: " + e.err.Error()
	}
	return msg
}
func (e *undeliveredError) Unwrap() error { return e.err }

// afterCommit marks err, a failure after the change committed, as
// undelivered output; nil stays nil.
func afterCommit(err error) error {
	if err == nil {
		return nil
	}
	return &undeliveredError{err: err}
}

// unsentError is an incremental export whose stdout reader went away
// before taking everything: no cursor moved. It exits 141 as any closed
// pipe does, whether the export saw the pipe break (a large output) or
// found its reader gone after writing it all (a small one), but unlike a
// plain closed pipe it says that nothing was marked as sent.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() + "; nothing was marked as sent" }
func (e *unsentError) Unwrap() error { return e.err }

// outputLost reports whether err is stdout's reader gone: the pipe broke,
// or its reader quit early.
func outputLost(err error) bool {
	var oe *iostreams.OutputError
	return errors.Is(err, iostreams.ErrUndelivered) || errors.As(err, &oe) && errors.Is(oe, syscall.EPIPE)
}

// quietExit reports whether err ends the process without a message: a
// closed pipe, as quiet as the death by SIGPIPE it stands for, unless it
// has something to say (unsentError).
func quietExit(err error) bool {
	var ue *unsentError
	return exitCode(err) == ExitBrokenPipe && !errors.As(err, &ue)
}

// exitCode maps an error to the process status.
func exitCode(err error) int {
	var ue *usageError
	var ie *transcript.InputError
	var de *undeliveredError
	var oe *iostreams.OutputError
	var sig *interruptedError
	var se *unsentError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &de):
		return ExitOK
	case errors.As(err, &sig):
		return 128 + int(sig.sig)
	case errors.As(err, &ue),
		// --db or --to naming what is no convo store, or no location at all
		errors.Is(err, store.ErrNotAStore), errors.Is(err, store.ErrBadLocation),
		// a request the history it sends rules out
		errors.Is(err, format.ErrIncompatible):
		return ExitUsage
	case errors.As(err, &ie):
		return ExitInput
	case errors.Is(err, store.ErrNotFound):
		return ExitNotFound
	case errors.As(err, &oe) && errors.Is(oe, syscall.EPIPE), errors.As(err, &se):
		return ExitBrokenPipe
	}
	return ExitFailure
}

// typeUsageErrors makes every error cobra itself finds in a command line a
// usageError where it arises: flag errors through the root's
// FlagErrorFunc (set in newRootCmd), argument errors by wrapping each
// command's Args, cobra's own commands (completion) included. exitCode
// then never reads an error's text.
func typeUsageErrors(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				var ue *usageError
				if err := args(cmd, a); err != nil && !errors.As(err, &ue) {
					return &usageError{err}
				} else {
					return err
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// flagError is every command's FlagErrorFunc (the root's, inherited): a
// flag cobra could not parse is a usage error.
func flagError(cmd *cobra.Command, err error) error {
	if !cmd.HasParent() && cmd.HasSubCommands() && cmd.Flags().NArg() > 0 {
		// convo apend -c x: the root parsed the subcommand's flags because
		// no command matched; that is the mistake to name.
		return unknownCommand(cmd, cmd.Flags().Args())
	}
	return &usageError{err}
}

// unknownCommand is the root's Args: a first argument that names no
// command. (Cobra's own check runs only when Args is unset, and returns an
// untyped error.)
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return &usageError{errors.New(msg)}
}

// errorMessage is what the user reads on stderr. An interrupted command
// says what it stored: nothing, unless a partialError says otherwise.
func errorMessage(err error) string {
	var de *undeliveredError
	if errors.As(err, &de) { // stored: never "nothing was written"
		return de.Error()
	}
	var ie *interruptedError
	if !errors.As(err, &ie) {
		if errors.Is(err, context.Canceled) {
			return "interrupted; nothing was written"
		}
		return err.Error()
	}
	what, cause := "nothing was written", ie.err
	var pe *partialError
	if errors.As(err, &pe) {
		what, cause = pe.stored, pe.err
	}
	if !errors.Is(cause, context.Canceled) { // a failure of its own
		what += " (" + cause.Error() + ")"
	}
	return signalName(ie.sig) + "; " + what
}
