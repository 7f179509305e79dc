package transcript

import (
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for in, want := range map[string]Ref{
		"last": RefLast, "last-user": RefLastUser, "last-assistant": RefLastAssistant,
		"01jrzj166j2wrmf990535evsqs": "01JRZJ166J2WRMF990535EVSQS",
	} {
		got, err := ParseRef(in)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
		if id, ok := got.ID(); ok != strings.HasPrefix(in, "01") || (ok && id != string(want)) {
			t.Errorf("%q: ID() = %q, %v", in, id, ok)
		}
	}
	for _, bad := range []string{"", "Last", "first", "01JRZJ166J2WRMF990535EVSQ", "81JRZJ166J2WRMF990535EVSQS"} {
		if _, err := ParseRef(bad); err == nil || !strings.Contains(err.Error(), RefHelp) {
			t.Errorf("%q: %v, want an error saying what a ref may be", bad, err)
		}
	}
}

// FuzzParseRef: a ref parses to a name it knows or to an id, never to
// something else, and parsing is stable.
func FuzzParseRef(f *testing.F) {
	f.Add("last-user")
	f.Add("01jrzj166j2wrmf990535evsqs")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		if id, isID := r.ID(); isID && !IsID(id) {
			t.Fatalf("ParseRef(%q) = %q, neither a name nor an id", s, r)
		}
		if again, err := ParseRef(string(r)); err != nil || again != r {
			t.Fatalf("ParseRef(%q) = %q, then %q (%v)", s, r, again, err)
		}
	})
}
