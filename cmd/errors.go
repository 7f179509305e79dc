package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
)

// usageError is a mistake in how convo was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitCode maps an error to the process status.
func exitCode(err error) int {
	var ue *usageError
	var ie *transcript.InputError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &ie):
		return ExitInput
	case errors.Is(err, store.ErrNotFound):
		return ExitNotFound
	case isCobraUsage(err):
		return ExitUsage
	}
	return ExitFailure
}

// isCobraUsage recognises the errors cobra itself returns for a bad command
// line; it does not type them.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "required flag"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

// errorMessage is what the user reads on stderr.
func errorMessage(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted; nothing was written"
	}
	return err.Error()
}
