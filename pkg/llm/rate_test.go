package llm

import (
	"strings"
	"testing"
	"time"
)

// ParseRate spaces N requests evenly over PERIOD; a value it cannot read
// says why, quoting it.
func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"", 0, ""},
		{"10/1s", 100 * time.Millisecond, ""},
		{"60/m", time.Second, ""},
		{"500/1h", 7200 * time.Millisecond, ""},
		{"10", 0, `"10": want N/PERIOD`},
		{"10/0s", 0, "bad period"},
		{"2000000000/1s", 0, "more than one request a nanosecond"},
	} {
		got, err := ParseRate(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRate(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
