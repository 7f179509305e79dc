package ask

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func TestReadMessage(t *testing.T) {
	for in, want := range map[string]string{
		"Hi\n":           "Hi",
		"two\nlines\r\n": "two\nlines",
		"  spaced  ":     "  spaced  ",
		"":               "empty",
		" \n\t\n":        "empty",
		"a\x00b":         "NUL",
		strings.Repeat("x", transcript.MaxRecordBytes+1): "over",
	} {
		got, err := ReadMessage(strings.NewReader(in))
		var ie *transcript.InputError
		switch {
		case err == nil && !slices.Equal(got, []string{want}):
			t.Errorf("%.20q: %q, want %q", in, got, want)
		case err != nil && (!errors.As(err, &ie) || !strings.Contains(err.Error(), want)):
			t.Errorf("%.20q: %v, want %q", in, err, want)
		}
	}
}
