package importer

import (
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		t      Tally
		bad    int
		strict bool
		want   string // "" for none
	}{
		{Tally{Files: 3, Lost: 2}, 0, false, ""},
		{Tally{Files: 3}, 0, true, ""},
		{Tally{Files: 3}, 1, false, "1 of 3 files could not be imported (named above); the rest is stored"},
		{Tally{Files: 1, Lost: 1}, 1, true, "1 of 1 file could not"}, // bad files first
		{Tally{Files: 2, Lost: 1, Cut: 2}, 0, true, "--strict: 1 thing lost, 2 entries cut, 0 files rewritten in place not read (named above); the rest is stored"},
	} {
		err := tc.t.Outcome(tc.bad, tc.strict)
		var ie *transcript.InputError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want none", tc.t, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &ie)):
			t.Errorf("%+v: %v, want an input error %q", tc.t, err, tc.want)
		}
	}
}

func TestChangedLine(t *testing.T) {
	upper := strings.ToUpper // stands for the terminal escaping
	if got := string(ChangedLine("a\tb", 2, false, upper)); got != "A\tB\t+2 records" {
		t.Errorf("text: %q", got)
	}
	if got := string(ChangedLine("a\tb", 1, true, upper)); got != `{"conversation":"a\tb","records":1}` {
		t.Errorf("JSON: %q", got)
	}
}
