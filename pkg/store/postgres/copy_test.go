package postgres

import (
	"testing"

	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// TestCopyText: COPY's text format escapes the backslash and what ends a
// field or a line, and nothing else; a docid is its slot plus the
// sequence value modulo DocIDValue's.
func TestCopyText(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", `a\b`: `a\\b`, "t\tn\nr\r": `t\tn\nr\r`, "é\u2028\"'": "é\u2028\"'", "": "",
	} {
		if got := string(appendCopyField(nil, in)); got != want {
			t.Errorf("appendCopyField(%q) = %q, want %q", in, got, want)
		}
	}
	rows := []sqlstore.CopyRow{{ID: "I", Role: "user", Body: `{"x":"a\nb"}`, Terms: `'a' 'b\\c'`, Pos: 1, Sub: 2, Created: 3, Seq: 4, Slot: 5 << 20}}
	got := string(copyText(nil, "c\tv", rows, []int64{docidSpread + 7}))
	want := "c\\tv\tI\t1\t2\tuser\t3\t4\t{\"x\":\"a\\\\nb\"}\t" + "5242887" + "\t'a' 'b\\\\\\\\c'\n"
	if got != want {
		t.Errorf("copyText = %q, want %q", got, want)
	}
}
