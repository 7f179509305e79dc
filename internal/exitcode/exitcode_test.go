package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

// Exit codes come from an error's type, never from its text: an error that
// merely reads like a usage error is a runtime failure.
func TestExitCodeByType(t *testing.T) {
	for _, err := range []error{
		errors.New("gemini: 400 Bad Request: Request contains an invalid argument."),
		errors.New("unknown flag: --nothing"),
		fmt.Errorf("provider says: %w", errors.New("accepts 1 arg(s), received 2")),
	} {
		if got := Of(err); got != Failure {
			t.Errorf("Of(%q) = %d, want %d", err, got, Failure)
		}
	}
}

// A failure after the commit that joins a write's error and the flush's
// (the same closed pipe twice) is one line, each text once: a second line
// would reach stderr without "convo: " before it.
func TestUndeliveredOneLine(t *testing.T) {
	pipe := errors.New("write /dev/stdout: broken pipe")
	full := errors.New("write /dev/stdout: no space left on device")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{AfterCommit(errors.Join(pipe, pipe)), "the change is stored, but its output was not delivered: write /dev/stdout: broken pipe"},
		{AfterCommit(errors.Join(pipe, nil)), "the change is stored, but its output was not delivered: write /dev/stdout: broken pipe"},
		{AfterCommit(errors.Join(pipe, full)), "the change is stored, but its output was not delivered: write /dev/stdout: broken pipe; write /dev/stdout: no space left on device"},
	} {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("Message = %q, want %q", got, tc.want)
		}
		if !errors.Is(tc.err, pipe) || Of(tc.err) != OK {
			t.Errorf("%q: the joined error lost its cause or its exit code", tc.err)
		}
	}
}
