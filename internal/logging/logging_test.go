package logging

import (
	"bytes"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
)

func TestNew(t *testing.T) {
	var buf bytes.Buffer
	l, err := New(&buf, "WARNING", "json")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hidden")
	l.Warn("shown", "n", 1)
	if got := buf.String(); strings.Contains(got, "hidden") || !strings.HasPrefix(got, "{") || !strings.Contains(got, `"n":1`) {
		t.Errorf("logged %q", got)
	}
	for _, tc := range []struct{ level, format, want string }{
		{"loud", "text", `--log-level "loud"`},
		{"info", "xml", `--log-format "xml"`},
	} {
		if _, err := New(&buf, tc.level, tc.format); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want a usage error with %s", tc.level, tc.format, err, tc.want)
		}
	}
	for _, level := range Levels {
		if _, err := New(&buf, level, Formats[0]); err != nil {
			t.Errorf("%s: %v", level, err)
		}
	}
}
