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
